import { Rng, type Game, type InferenceModel } from '@az/core';
import type { Evaluator, LeafBatch } from '@az/mcts';
import { assertNetworkFitsGame } from './multi-row-network.js';
import { PolicyPlayouts } from './policy-playout.js';

/**
 * Priors from an inner evaluator; values from a playout of the sampled world in which every seat plays
 * the network's top legal move from its own view (`PolicyPlayouts`).
 *
 * Why: a uniformly random playout values a Blob bid by how often random card play takes exactly that
 * many tricks, a table nobody sits at. The network's policy alone beats the heuristic bot, so its
 * playouts end where competent players would. Each seat acts on its own view of the sampled world, so
 * no seat's play reads another's cards.
 */
export class PolicyPlayoutEvaluator<S> implements Evaluator<S> {
  readonly needsInputs: boolean;
  readonly needsMasks: boolean;
  private readonly playouts: PolicyPlayouts<S>;
  private readonly rng: Rng;
  private playing: S[] = [];

  constructor(
    readonly game: Game<S>,
    /** Gives the priors (its values are overwritten). */
    readonly inner: Evaluator<S>,
    /** Holds the own-view network that plays every seat (read at every call, so a swapped model is followed). */
    readonly network: { readonly model: InferenceModel },
    seed = 0,
  ) {
    assertNetworkFitsGame(game, network.model);
    this.needsInputs = inner.needsInputs;
    this.needsMasks = inner.needsMasks !== false;
    this.playouts = new PolicyPlayouts(game);
    this.rng = new Rng(`policy-playout:${seed}`);
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    await this.inner.evaluate(batch);
    const { game } = this;
    const n = batch.count;
    const P = batch.numSeats;
    for (let i = 0; i < n; i++) this.playing[i] = game.clone(batch.states[i]);
    await this.playouts.play(this.playing, n, this.network.model, this.rng);
    for (let i = 0; i < n; i++) {
      const z = game.returns(this.playing[i]);
      for (let j = 0; j < P; j++) batch.values[i * P + j] = z[j];
    }
  }
}

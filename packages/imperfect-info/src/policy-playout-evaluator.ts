import { Rng, type Game, type InferenceModel } from '@az/core';
import type { Evaluator, LeafBatch } from '@az/mcts';
import { assertNetworkFitsGame } from './multi-row-network.js';

/**
 * Priors from an inner evaluator; values from a playout of the sampled world in which every seat plays
 * the network's top legal move from its own view (the network as the model of every player).
 *
 * Why: a uniformly random playout values a Blob bid by how often random card play takes exactly that
 * many tricks, a table nobody sits at. The network's policy alone beats the heuristic bot, so its
 * playouts end where competent players would. Each seat acts on its own view of the sampled world
 * (`game.encoder`), so no seat's play reads another's cards. The playouts of a batch advance in lock-step,
 * one network call per ply for all of them (about one row per remaining move of each leaf).
 */
export class PolicyPlayoutEvaluator<S> implements Evaluator<S> {
  readonly needsInputs: boolean;
  readonly needsMasks: boolean;
  private inputs = new Float32Array(0);
  private logits = new Float32Array(0);
  private values = new Float32Array(0);
  private readonly mask: Uint8Array;
  private readonly rng: Rng;
  private playing: S[] = [];
  private active = new Int32Array(0);

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
    this.mask = new Uint8Array(game.masker.actionSize);
    this.rng = new Rng(`policy-playout:${seed}`);
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    await this.inner.evaluate(batch);
    const { game, mask } = this;
    const n = batch.count;
    const P = batch.numSeats;
    const A = batch.actionSize;
    const E = game.encoder.size;
    this.fit(n, A, P, E);
    const { active } = this;
    let live = 0;
    for (let i = 0; i < n; i++) {
      this.playing[i] = game.clone(batch.states[i]);
      if (!game.isTerminal(this.playing[i])) active[live++] = i;
    }
    while (live > 0) {
      for (let k = 0; k < live; k++) {
        const s = this.playing[active[k]];
        game.encoder.encode(s, game.currentPlayer(s), this.inputs, k * E);
      }
      await this.network.model.predict(this.inputs, live, this.logits, this.values);
      let next = 0;
      for (let k = 0; k < live; k++) {
        const i = active[k];
        const s = this.playing[i];
        game.masker.fillMask(s, mask, 0);
        let best = -1;
        let bestLogit = -Infinity;
        for (let a = 0; a < A; a++) {
          if (mask[a] && (best < 0 || this.logits[k * A + a] > bestLogit)) {
            best = a;
            bestLogit = this.logits[k * A + a];
          }
        }
        if (best < 0) throw new Error(`${game.traits.id}: no legal action in a non-terminal state`);
        game.applyAction(s, best, this.rng);
        if (!game.isTerminal(s)) active[next++] = i;
      }
      live = next;
    }
    for (let i = 0; i < n; i++) {
      const z = game.returns(this.playing[i]);
      for (let j = 0; j < P; j++) batch.values[i * P + j] = z[j];
    }
  }

  private fit(n: number, A: number, P: number, E: number): void {
    if (this.active.length >= n) return;
    this.active = new Int32Array(n);
    this.inputs = new Float32Array(n * E);
    this.logits = new Float32Array(n * A);
    this.values = new Float32Array(n * P);
  }
}

import { Rng, randomPlayoutReturns, type Game } from '@az/core';
import type { Evaluator, LeafBatch } from '@az/mcts';

/**
 * Network priors with values mixed from a random playout of the sampled world (AlphaGo's leaf
 * evaluation: v = (1 - w) * network + w * playout).
 *
 * Why for determinized search: the network values a leaf from the mover's view, so every other
 * seat's value there is estimated without that seat's hand. The playout runs in the sampled world,
 * where every hand is known, so it carries each seat's own cards into its value; it is what makes
 * "bid 4 with four top trumps" look better than "bid 4 with nothing" before the network has learned
 * it, and bootstraps the training signal for such decisions.
 */
export class RolloutMixEvaluator<S> implements Evaluator<S> {
  readonly needsInputs: boolean;
  /** Its own playouts read no masks, so the inner evaluator's say. */
  readonly needsMasks: boolean;
  private readonly rng: Rng;
  private readonly mask: Uint8Array;

  constructor(
    readonly game: Game<S>,
    readonly inner: Evaluator<S>,
    /** Weight of the playout's returns in the value (0 = network only, 1 = playout only). */
    readonly rolloutWeight: number,
    seed = 0,
  ) {
    if (!(rolloutWeight >= 0 && rolloutWeight <= 1)) throw new RangeError(`RolloutMixEvaluator: rolloutWeight must be in [0, 1], got ${rolloutWeight}`);
    this.needsInputs = inner.needsInputs;
    this.needsMasks = inner.needsMasks !== false;
    this.rng = new Rng(`rollout:${seed}`);
    this.mask = new Uint8Array(game.masker.actionSize);
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    await this.inner.evaluate(batch);
    const w = this.rolloutWeight;
    if (w === 0) return;
    const { game, rng, mask } = this;
    const P = batch.numSeats;
    for (let i = 0; i < batch.count; i++) {
      const z = randomPlayoutReturns(game, batch.states[i], rng, mask);
      for (let j = 0; j < P; j++) batch.values[i * P + j] = (1 - w) * batch.values[i * P + j] + w * z[j];
    }
  }
}

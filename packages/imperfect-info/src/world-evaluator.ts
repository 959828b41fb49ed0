import type { Game, InferenceModel } from '@az/core';
import type { LeafBatch } from '@az/mcts';
import { MultiRowEvaluator } from './multi-row-network.js';

/** Where `WorldNetworkEvaluator` takes each leaf's policy prior from. */
export type WorldPriors = 'own-view' | 'world';

/**
 * Network evaluation of the leaves of determinized search from the sampled world itself.
 *
 * Every leaf of a determinized tree is a full state of one sampled world, so a network reading the
 * full state (`game.worldEncoder`: every hand, from the mover's seat) is legitimate there: it sees
 * the sampled cards, never the real hidden ones. Its values carry each seat's own cards, which is
 * what the own-view network cannot do at an opponent's node (see `OwnViewNetworkEvaluator`) and what
 * random playouts did before, slowly and noisily.
 *
 * Values: the world row's outputs, rotated from the mover's perspective into seat order. Priors
 * (`priors`):
 * - `'own-view'` (default): the mover's own-view row (`game.encoder`), i.e. the acting network's
 *   policy. Two rows per leaf in one call; the prior never depends on cards the mover cannot see, so
 *   the root prior is the same in every world (no leak of the sampled cards into which moves are tried).
 * - `'world'`: the world row's policy. One row per leaf (half the network work), but priors follow the
 *   sampled cards.
 *
 * One network reads both encodings (same size; the world flag tells them apart), so one call serves
 * both rows and a checkpoint holds one network.
 */
export class WorldNetworkEvaluator<S> extends MultiRowEvaluator<S> {
  /** A world row per leaf, and with own-view priors the mover's own-view row too. */
  constructor(
    game: Game<S>,
    model: InferenceModel,
    readonly priors: WorldPriors = 'own-view',
  ) {
    super(game, model, priors === 'own-view' ? 2 : 1);
    const world = game.worldEncoder;
    if (!world) throw new Error(`${game.traits.id} has no world encoder (Game.worldEncoder), so leaves cannot be valued from the sampled world`);
    if (world.size !== game.encoder.size) {
      throw new Error(`${game.traits.id}: world encoder size ${world.size} differs from the encoder's ${game.encoder.size}; one network must read both`);
    }
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    const { game } = this;
    const world = game.worldEncoder!;
    const P = batch.numSeats;
    const A = batch.actionSize;
    const E = game.encoder.size;
    const R = this.buffers.rowsPerLeaf;
    const rows = batch.count * R;
    this.buffers.fit(batch);
    const { inputs, logits, values } = this.buffers;
    for (let i = 0; i < batch.count; i++) {
      const mover = batch.perspectives[i];
      // Row i*R is the world view; row i*R + 1 (own-view priors) the mover's own view.
      world.encode(batch.states[i], mover, inputs, i * R * E);
      if (R === 2) game.encoder.encode(batch.states[i], mover, inputs, (i * R + 1) * E);
    }
    await this.model.predict(inputs, rows, logits, values);
    const priorRow = R - 1;
    for (let i = 0; i < batch.count; i++) {
      const mover = batch.perspectives[i];
      const p = (i * R + priorRow) * A;
      batch.policyLogits.set(logits.subarray(p, p + A), i * A);
      const v = i * R * P;
      for (let j = 0; j < P; j++) batch.values[i * P + ((mover + j) % P)] = values[v + j];
    }
  }
}

import type { Game, InferenceModel } from '@az/core';
import type { LeafBatch } from '@az/mcts';
import { MultiRowEvaluator } from './multi-row-network.js';

/**
 * Network evaluation for determinized search in which every seat's value comes from that seat's
 * own view of the leaf.
 *
 * Why: a network encodes one seat's information state. The plain `NetworkEvaluator` encodes each leaf
 * from the seat to move and reads every seat's value from that one encoding, so the root player's
 * value at a leaf where an opponent moves is estimated without the root player's own hand. In Blob
 * that makes "I bid 2" worth the same with any hand once the next seat is to bid: the search loses
 * exactly what bidding is about. Here each leaf is encoded once per seat (P rows, one network call
 * for the whole batch); seat j's value is row j's own-value output (relative index 0), and the
 * policy is the mover's row. P times the network work per leaf, in batches P times larger.
 *
 * Opt-in (leaf values `{ kind: 'own-view' }` in `createSearchEngine`'s settings): it is only as good as the network's
 * values for seats that are not to move, and self-play records positions from the mover's view only,
 * so those states are outside what the value head was trained on until the trainer also records every
 * seat's view as value targets.
 */
export class OwnViewNetworkEvaluator<S> extends MultiRowEvaluator<S> {
  /** One row per seat's view of each leaf. */
  constructor(game: Game<S>, model: InferenceModel) {
    super(game, model, game.numPlayers);
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    const { game } = this;
    const P = batch.numSeats;
    const A = batch.actionSize;
    const E = game.encoder.size;
    const rows = batch.count * P;
    this.buffers.fit(batch);
    const { inputs, logits, values } = this.buffers;
    for (let i = 0; i < batch.count; i++) {
      const mover = batch.perspectives[i];
      // Row i*P + j is seat (mover + j) % P's view, so row i*P is the mover's.
      for (let j = 0; j < P; j++) game.encoder.encode(batch.states[i], (mover + j) % P, inputs, (i * P + j) * E);
    }
    await this.model.predict(inputs, rows, logits, values);
    for (let i = 0; i < batch.count; i++) {
      const mover = batch.perspectives[i];
      batch.policyLogits.set(logits.subarray(i * P * A, i * P * A + A), i * A);
      for (let j = 0; j < P; j++) batch.values[i * P + ((mover + j) % P)] = values[(i * P + j) * P];
    }
  }
}

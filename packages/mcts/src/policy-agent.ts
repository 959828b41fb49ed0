import type { Agent, Game } from '@az/core';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { topLegalAction } from './policy.js';

/**
 * Plays the legal move the evaluator's policy rates highest, with no search: what a network has learnt
 * by itself (e.g. `az assess --sims 0`). States are evaluated in batches of `batchSize`.
 */
export class PolicyAgent<S> implements Agent<S> {
  private readonly batch: LeafBatch<S> & { count: number; states: S[] };

  /**
   * @param name The agent's name in arena results.
   * @param game The rules, for the legal moves and the encoding.
   * @param evaluator The policy, usually a `NetworkEvaluator`.
   * @param batchSize States evaluated per call.
   */
  constructor(
    readonly name: string,
    private readonly game: Game<S>,
    private readonly evaluator: Evaluator<S>,
    private readonly batchSize = 256,
  ) {
    const A = game.masker.actionSize;
    const P = game.numPlayers;
    this.batch = {
      count: 0,
      actionSize: A,
      numSeats: P,
      states: new Array<S>(batchSize),
      perspectives: new Int32Array(batchSize),
      inputs: new Float32Array(evaluator.needsInputs ? batchSize * game.encoder.size : 0),
      masks: new Uint8Array(batchSize * A),
      policyLogits: new Float32Array(batchSize * A),
      values: new Float32Array(batchSize * P),
    };
  }

  /** The highest-rated legal move of each state, evaluated in batches; throws on a finished game. */
  async act(states: readonly S[]): Promise<Int32Array> {
    const { game, batch } = this;
    const A = batch.actionSize;
    const out = new Int32Array(states.length);
    for (let start = 0; start < states.length; start += this.batchSize) {
      const count = Math.min(this.batchSize, states.length - start);
      batch.count = count;
      for (let i = 0; i < count; i++) {
        const s = states[start + i];
        if (game.isTerminal(s)) throw new Error(`${game.traits.id}: policy agent asked to move in a finished game`);
        batch.states[i] = s;
        batch.perspectives[i] = game.currentPlayer(s);
        game.masker.fillMask(s, batch.masks, i * A);
        if (this.evaluator.needsInputs) game.encoder.encode(s, batch.perspectives[i], batch.inputs, i * game.encoder.size);
      }
      await this.evaluator.evaluate(batch);
      for (let i = 0; i < count; i++) {
        const best = topLegalAction(batch.masks, i * A, batch.policyLogits, i * A, A);
        if (best < 0) throw new Error(`${game.traits.id}: non-terminal state with no legal action`);
        out[start + i] = best;
      }
    }
    return out;
  }
}

import { describe, expect, it } from 'vitest';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { PolicyAgent } from './policy-agent.js';
import { makeTestTicTacToe, tttFromString, type TttState } from './test-games.js';

const ttt = makeTestTicTacToe();

/** Prefers the highest-numbered cell (logit = cell index), illegal or not; counts its calls. */
class HighestCellEvaluator implements Evaluator<TttState> {
  readonly needsInputs = true;
  calls = 0;
  evaluate(batch: LeafBatch<TttState>): void {
    this.calls++;
    for (let i = 0; i < batch.count; i++) for (let a = 0; a < batch.actionSize; a++) batch.policyLogits[i * batch.actionSize + a] = a;
    batch.values.fill(0);
  }
}

describe('PolicyAgent', () => {
  it("plays the policy's favourite legal move, in batches", async () => {
    const evaluator = new HighestCellEvaluator();
    const agent = new PolicyAgent('policy', ttt, evaluator, 2);
    const states = [tttFromString('.........', 0), tttFromString('X.......O', 0), tttFromString('XO.OX..XO', 0)];
    expect(Array.from(await agent.act(states))).toEqual([8, 7, 6]);
    expect(evaluator.calls).toBe(2);
  });

  it('refuses a finished game', async () => {
    const agent = new PolicyAgent('policy', ttt, new HighestCellEvaluator());
    await expect(agent.act([tttFromString('XXXOO....', 1)])).rejects.toThrow(/finished/);
  });
});

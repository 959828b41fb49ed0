import { describe, expect, it } from 'vitest';
import { BatchedMcts } from './batched-mcts.js';
import { CachingEvaluator } from './evaluation-cache.js';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { makeTestTicTacToe, tttFromString, type TttState } from './test-games.js';

const ttt = makeTestTicTacToe();

/** A deterministic function of the position (so cached and fresh answers must agree); counts positions evaluated. */
class BoardEvaluator implements Evaluator<TttState> {
  readonly needsInputs = true;
  evaluated = 0;
  evaluate(batch: LeafBatch<TttState>): void {
    this.evaluated += batch.count;
    for (let i = 0; i < batch.count; i++) {
      const b = batch.states[i].board;
      let h = 0;
      for (let c = 0; c < 9; c++) h = h * 3 + b[c];
      for (let a = 0; a < 9; a++) batch.policyLogits[i * 9 + a] = ((h * (a + 7)) % 13) / 13;
      batch.values[i * 2] = ((h % 11) - 5) / 10;
      batch.values[i * 2 + 1] = -batch.values[i * 2];
    }
  }
}

async function rootCounts(evaluator: Evaluator<TttState>): Promise<Float32Array[]> {
  const engine = new BatchedMcts(ttt, evaluator, 4, { simulations: 200, leavesPerTree: 1, dirichletEpsilon: 0, seed: 3 });
  for (let t = 0; t < 4; t++) engine.setRoot(t, tttFromString(t % 2 ? 'X...O....' : '.........', 0));
  await engine.search();
  return [0, 1, 2, 3].map((t) => engine.visitCounts(t, new Float32Array(9)));
}

describe('CachingEvaluator', () => {
  it('gives the search the same answers with fewer network positions (transpositions and identical trees)', async () => {
    const plain = new BoardEvaluator();
    const expected = await rootCounts(plain);
    const inner = new BoardEvaluator();
    const cache = new CachingEvaluator(ttt, inner, 10_000);
    expect(await rootCounts(cache)).toEqual(expected);
    expect(inner.evaluated).toBeLessThan(plain.evaluated / 2);
    expect(cache.stats.lookups).toBe(plain.evaluated);
    expect(cache.stats.hits).toBe(cache.stats.lookups - inner.evaluated);
    expect(cache.hitRate).toBeGreaterThan(0.5);
  });

  it('holds at most its capacity, and empties when the generation changes', async () => {
    let generation = 1;
    const inner = new BoardEvaluator();
    const cache = new CachingEvaluator(ttt, inner, 50, () => generation);
    await rootCounts(cache);
    expect(cache.size).toBe(50);
    generation = 2;
    const before = inner.evaluated;
    await rootCounts(cache);
    expect(cache.hitRate).toBeLessThan(1);
    expect(inner.evaluated).toBeGreaterThan(before);
    expect(() => new CachingEvaluator(ttt, inner, 0)).toThrow(/capacity/);
  });
});

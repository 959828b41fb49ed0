import { describe, expect, it } from 'vitest';
import { BatchedMcts } from './batched-mcts.js';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { forcedPlayouts, prunedRootVisits } from './forced-playouts.js';
import { makeTestTicTacToe, rootWithChildren, tttFromString, type TttState } from './test-games.js';

describe('policy target pruning', () => {
  it('takes back the forced visits PUCT would not have given, and drops children left with one', () => {
    // Root: 101 visits (its own + 100). c0: 80 visits, Q 0.5, P 0.6; c1: 15, Q 0.45, P 0.3; c2: 5, Q -0.2, P 0.1.
    const P = 2;
    const sums = [0, 40, 6.75, -1];
    const valueSum = new Float32Array(4 * P);
    sums.forEach((v, n) => (valueSum[n * P] = v));
    const tree = rootWithChildren(P, [4, 7, 2], Int32Array.from([101, 80, 15, 5]), [0.6, 0.3, 0.1], valueSum);
    const out = prunedRootVisits(tree, 0, 1.5, 2, new Float32Array(9), 9);
    // PUCT(c0) = 0.5 + 1.5·0.6·√101/81 ≈ 0.6117. c1 needs ⌊1.5·0.3·√101 / (0.6117 − 0.45)⌋ = 27 > 15 visits to
    // stay below it: PUCT gave it all 15, none pruned. c2 needs 1, and n_forced = ⌊√(2·0.1·100)⌋ = 4: 5 − 4 = 1,
    // a single visit left, so it is dropped.
    expect(Array.from(out)).toEqual([0, 0, 0, 0, 80, 0, 0, 15, 0]);
  });
});

/** Every position looks equal to the net; the prior favours cell 4 heavily. */
class PeakedEvaluator implements Evaluator<TttState> {
  readonly needsInputs = false;
  evaluate(batch: LeafBatch<TttState>): void {
    for (let i = 0; i < batch.count; i++) {
      for (let a = 0; a < batch.actionSize; a++) batch.policyLogits[i * batch.actionSize + a] = a === 4 ? 4 : 0;
      batch.values.fill(0, i * batch.numSeats, (i + 1) * batch.numSeats);
    }
  }
}

describe('forced playouts at the root', () => {
  const ttt = makeTestTicTacToe();
  const settings = { simulations: 200, dirichletEpsilon: 0, leavesPerTree: 1, seed: 1 };

  it('gives every visited root child at least sqrt(k · P · N) visits, and only the root', async () => {
    const plain = new BatchedMcts(ttt, new PeakedEvaluator(), 1, settings);
    const forced = new BatchedMcts(ttt, new PeakedEvaluator(), 1, { ...settings, forcedPlayouts: 2 });
    const prior = Math.exp(0) / (Math.exp(4) + 8);
    for (const search of [plain, forced]) {
      search.setRoot(0, tttFromString('.........', 0));
      await search.search();
    }
    const plainCounts = plain.visitCounts(0, new Float32Array(9));
    const forcedCounts = forced.visitCounts(0, new Float32Array(9));
    const total = forcedCounts.reduce((a, b) => a + b, 0);
    for (const a of [0, 1, 2, 3, 5, 6, 7, 8]) {
      if (forcedCounts[a] > 0) expect(forcedCounts[a]).toBeGreaterThanOrEqual(Math.floor(forcedPlayouts(2, prior, total - 1)));
    }
    // Without forcing the low-prior moves get fewer visits.
    const low = (c: Float32Array): number => c.reduce((s, v, a) => (a === 4 ? s : s + v), 0);
    expect(low(forcedCounts)).toBeGreaterThan(low(plainCounts));
  });

  it('teaches the pruned visits: the forced ones leave the policy target', async () => {
    const forced = new BatchedMcts(ttt, new PeakedEvaluator(), 1, { ...settings, forcedPlayouts: 2 });
    forced.setRoot(0, tttFromString('.........', 0));
    await forced.search();
    const counts = forced.visitCounts(0, new Float32Array(9));
    const target = forced.policyTarget(0, new Float32Array(9));
    expect(target.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    const visitShare = counts[4] / counts.reduce((a, b) => a + b, 0);
    expect(target[4]).toBeGreaterThan(visitShare);
    // Plain PUCT teaches its visit shares unchanged.
    const plain = new BatchedMcts(ttt, new PeakedEvaluator(), 1, settings);
    plain.setRoot(0, tttFromString('.........', 0));
    await plain.search();
    const plainCounts = plain.visitCounts(0, new Float32Array(9));
    const plainTarget = plain.policyTarget(0, new Float32Array(9));
    const plainTotal = plainCounts.reduce((a, b) => a + b, 0);
    for (let a = 0; a < 9; a++) expect(plainTarget[a]).toBeCloseTo(plainCounts[a] / plainTotal, 6);
  });

  it('refuses a negative k', () => {
    expect(() => new BatchedMcts(ttt, new PeakedEvaluator(), 1, { forcedPlayouts: -1 })).toThrow(/forcedPlayouts/);
  });
});

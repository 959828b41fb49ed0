import { describe, expect, it } from 'vitest';
import { Rng, type Game, type ParsedAction, type ResolvedConfig } from '@az/core';
import { BatchedMcts, type SearchConfig } from './batched-mcts.js';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { UniformEvaluator } from './evaluator.js';
import { consideredVisitSequence, sigmaCompletedQ } from './gumbel.js';
import { makeThreeSeatGame, rootWithChildren, type ThreeSeatState } from './test-games.js';

describe('sequential halving schedule', () => {
  it('matches the schedule derived by hand from the paper for n=16, m=4', () => {
    // ⌈log2 4⌉ = 2 phases' worth: 4 actions × ⌊16/(2·4)⌋ = 2 rounds, then 2 actions × ⌊16/(2·2)⌋ = 4 rounds.
    expect(consideredVisitSequence(4, 16)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  });

  it('matches mctx for n=50, m=16 (rounds of at least one visit, then repeated halving down to 2)', () => {
    // log2 16 = 4: 16 × max(1, ⌊50/64⌋)=1 round, 8 × ⌊50/32⌋=1, 4 × ⌊50/16⌋=3, 2 × ⌊50/8⌋=6, then 2 × 6 again, cut at 50.
    const expected = [
      ...Array<number>(16).fill(0),
      ...Array<number>(8).fill(1),
      ...[2, 3, 4].flatMap((v) => Array<number>(4).fill(v)),
      ...[5, 6, 7, 8, 9, 10, 11].flatMap((v) => [v, v]),
    ];
    expect(expected).toHaveLength(50);
    expect(consideredVisitSequence(16, 50)).toEqual(expected);
  });

  it('gives a single considered action every simulation', () => {
    expect(consideredVisitSequence(1, 5)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('completed Q', () => {
  it('completes an unvisited child with the mixed value and scales by (c_visit + max N) · c_scale', () => {
    // Root (seat 0 to move): own evaluation 0.2; children visited 2 (Q 0.5), 1 (Q -0.5), 0 times; priors 0.5, 0.3, 0.2.
    const P = 2;
    const visits = Int32Array.from([4, 2, 1, 0]);
    const valueSum = new Float32Array(4 * P);
    const perSeat0 = [0.2 + 1.0 - 0.5, 1.0, -0.5, 0];
    perSeat0.forEach((v, n) => {
      valueSum[n * P] = v;
      valueSum[n * P + 1] = -v;
    });
    const tree = rootWithChildren(P, [0, 1, 2], visits, [0.5, 0.3, 0.2], valueSum);
    const out = new Float64Array(3);
    sigmaCompletedQ(tree, { gumbelConsideredActions: 16, gumbelCVisit: 50, gumbelCScale: 0.1 }, 0, false, out);
    // Mixed value: (0.2 + 3 · (0.5·0.5 + 0.3·(-0.5)) / 0.8) / 4 = 0.14375; Q [0.5, -0.5, 0.14375] mapped to
    // [0, 1] by (q + 1) / 2 = [0.75, 0.25, 0.571875], × (50 + 2) · 0.1.
    expect(out[0]).toBeCloseTo(0.75 * 5.2, 5);
    expect(out[1]).toBeCloseTo(0.25 * 5.2, 5);
    expect(out[2]).toBeCloseTo(0.571875 * 5.2, 5);
  });
});

/**
 * A bandit: at the root seat 0 picks one of K arms; an arm's state has one move (pull again) and never
 * ends within the test's budgets. The evaluator values an arm's states at its mean plus seeded noise.
 */
interface BanditState {
  arm: number;
  pulls: number;
}

function makeBandit(arms: number): Game<BanditState> {
  return {
    traits: { id: 'bandit', name: 'bandit', description: 'bandit', minPlayers: 2, maxPlayers: 2, information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: 1000 },
    config: {} as ResolvedConfig,
    numPlayers: 2,
    maxGameLength: 1000,
    encoder: { version: 'test', shape: [1], size: 1, encode(s, _p, out, off) { out[off] = s.arm; } },
    masker: {
      actionSize: arms,
      fillMask(s, out, off = 0) {
        for (let a = 0; a < arms; a++) out[off + a] = s.arm < 0 || a === 0 ? 1 : 0;
        return s.arm < 0 ? arms : 1;
      },
    },
    initialState: () => ({ arm: -1, pulls: 0 }),
    currentPlayer: () => 0,
    applyAction(s, a) {
      if (s.arm < 0) s.arm = a;
      s.pulls++;
    },
    isTerminal: (s) => s.pulls >= 1000,
    returns: () => Float32Array.from([0, 0]),
    clone: (s) => ({ ...s }),
    hash: (s) => `${s.arm}:${s.pulls}`,
    render: (s) => `${s.arm}:${s.pulls}`,
    formatAction: (_s, a) => String(a),
    parseAction: (_s, t): ParsedAction => ({ ok: true, action: Number(t) }),
  };
}

class BanditEvaluator implements Evaluator<BanditState> {
  readonly needsInputs = false;
  private readonly rng: Rng;
  constructor(
    private readonly means: readonly number[],
    private readonly rootPrior: readonly number[],
    private readonly noise: number,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }
  evaluate(batch: LeafBatch<BanditState>): void {
    for (let i = 0; i < batch.count; i++) {
      const s = batch.states[i];
      for (let a = 0; a < batch.actionSize; a++) batch.policyLogits[i * batch.actionSize + a] = s.arm < 0 ? Math.log(this.rootPrior[a]) : 0;
      const v = s.arm < 0 ? 0 : Math.max(-1, Math.min(1, this.means[s.arm] + this.noise * (2 * this.rng.next() - 1)));
      batch.values[i * 2] = v;
      batch.values[i * 2 + 1] = -v;
    }
  }
}

const gumbel: Partial<SearchConfig> = { rootSelection: 'gumbel', leavesPerTree: 1, dirichletEpsilon: 0 };

describe('Gumbel root search', () => {
  const means = [0.1, -0.2, 0.55, 0.0, 0.25, -0.4, 0.3, 0.05];
  const best = 2;
  const uniform = means.map(() => 1 / means.length);

  it('picks the best arm of a noisy bandit with few simulations, in most seeded runs', async () => {
    const bandit = makeBandit(means.length);
    let hits = 0;
    const runs = 40;
    for (let seed = 1; seed <= runs; seed++) {
      // 25 simulations: the root's evaluation and 3 visits for each of the 8 arms' worth of halving.
      const search = new BatchedMcts(bandit, new BanditEvaluator(means, uniform, 0.4, seed), 1, { ...gumbel, simulations: 25, gumbelConsideredActions: 8, seed });
      search.setRoot(0, bandit.initialState(new Rng(0)));
      await search.search();
      if (search.selectedAction(0) === best) hits++;
    }
    expect(hits / runs).toBeGreaterThanOrEqual(0.85);
  });

  it('spends the budget as sequential halving does: all m arms once, then the better half more', async () => {
    // Two arms far ahead of the rest, values without noise.
    const spread = [-0.9, 0.9, -0.9, -0.9, 0.8, -0.9, -0.9, -0.9];
    const bandit = makeBandit(spread.length);
    const search = new BatchedMcts(bandit, new BanditEvaluator(spread, uniform, 0, 3), 1, { ...gumbel, simulations: 25, gumbelConsideredActions: 8, seed: 3 });
    search.setRoot(0, bandit.initialState(new Rng(0)));
    await search.search();
    const counts = search.visitCounts(0, new Float32Array(spread.length));
    // n=24 over m=8: 8 × 1, then 4 × 2, then 2 × 4 → two arms with 7, two with 3, four with 1.
    expect(Array.from(counts).sort((a, b) => b - a)).toEqual([7, 7, 3, 3, 1, 1, 1, 1]);
    // The two survivors of the halving are the two good arms.
    expect([counts[1], counts[4]]).toEqual([7, 7]);
  });

  it('teaches an improved policy: more mass than the prior on the better arms, less on the worse', async () => {
    const bandit = makeBandit(means.length);
    // A prior that prefers the worst arm (5) and undervalues the best (2).
    const prior = [0.1, 0.1, 0.05, 0.1, 0.1, 0.35, 0.1, 0.1];
    const search = new BatchedMcts(bandit, new BanditEvaluator(means, prior, 0.1, 7), 1, { ...gumbel, simulations: 33, gumbelConsideredActions: 8, seed: 7 });
    search.setRoot(0, bandit.initialState(new Rng(0)));
    await search.search();
    const target = search.policyTarget(0, new Float32Array(means.length));
    expect(target.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(target[best]).toBeGreaterThan(prior[best]);
    expect(target[5]).toBeLessThan(prior[5]);
    expect(target[best]).toBeGreaterThan(target[5]);
    // Every legal arm keeps some mass (unvisited ones through their completed Q).
    for (let a = 0; a < means.length; a++) expect(target[a]).toBeGreaterThan(0);
  });

  it('samples from the prior when the search has no simulation to spend (the Gumbel-max trick)', async () => {
    const bandit = makeBandit(3);
    const prior = [0.5, 0.3, 0.2];
    const trees = 3000;
    const search = new BatchedMcts(bandit, new BanditEvaluator([0, 0, 0], prior, 0, 1), trees, { ...gumbel, simulations: 1, nodeCapacity: 8, seed: 11 });
    for (let t = 0; t < trees; t++) search.setRoot(t, bandit.initialState(new Rng(0)));
    await search.search();
    const freq = [0, 0, 0];
    for (let t = 0; t < trees; t++) freq[search.selectedAction(t)] += 1 / trees;
    for (let a = 0; a < 3; a++) expect(Math.abs(freq[a] - prior[a])).toBeLessThan(0.04);
  });

  it('keeps Dirichlet noise off the priors it teaches from', async () => {
    const bandit = makeBandit(3);
    const prior = [0.6, 0.3, 0.1];
    const search = new BatchedMcts(bandit, new BanditEvaluator([0, 0, 0], prior, 0, 1), 1, { rootSelection: 'gumbel', simulations: 1, dirichletEpsilon: 0.5, seed: 2 });
    search.setRoot(0, bandit.initialState(new Rng(0)));
    await search.search();
    const target = search.policyTarget(0, new Float32Array(3));
    for (let a = 0; a < 3; a++) expect(target[a]).toBeCloseTo(prior[a], 5);
  });

  it('values every seat as its own in a three-seat game (N-player per-seat values)', async () => {
    // Seat 0 picks a, seat 1 answers; seat 1 answers a=0 with b=1 (seat 0 gets -1), a=1 with b=0 (seat 0 gets 0.5).
    const game = makeThreeSeatGame();
    const search = new BatchedMcts(game, new UniformEvaluator<ThreeSeatState>(), 2, { ...gumbel, simulations: 40, seed: 5 });
    search.setRoot(0, game.initialState(new Rng(0)));
    search.setRoot(1, { moves: [0] });
    await search.search();
    expect(search.selectedAction(0)).toBe(1);
    expect(search.policyTarget(0, new Float32Array(2))[1]).toBeGreaterThan(0.5);
    // Seat 1 to move after a=0: b=1 is worth 1 to it, b=0 worth -1.
    expect(search.selectedAction(1)).toBe(1);
    expect(search.policyTarget(1, new Float32Array(2))[1]).toBeGreaterThan(0.9);
  });

  it('runs a second search on the same root on its own schedule (earlier visits are not counted)', async () => {
    const bandit = makeBandit(4);
    const search = new BatchedMcts(bandit, new BanditEvaluator([0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], 0, 1), 1, { ...gumbel, simulations: 9, gumbelConsideredActions: 4, seed: 1 });
    search.setRoot(0, bandit.initialState(new Rng(0)));
    await search.search();
    const first = search.visitCounts(0, new Float32Array(4));
    await search.search([8]);
    const second = search.visitCounts(0, new Float32Array(4));
    // Each search of 8 simulations over 4 arms: 4 × 1, then 2 × 2 more (⌊8/(2·2)⌋ = 2 rounds of 2).
    const added = Array.from(second, (v, a) => v - first[a]).sort((a, b) => b - a);
    expect(added).toEqual([3, 3, 1, 1]);
  });

  it('refuses a bad setting, naming it', () => {
    const bandit = makeBandit(2);
    expect(() => new BatchedMcts(bandit, new UniformEvaluator<BanditState>(), 1, { rootSelection: 'gumbel', gumbelConsideredActions: 0 })).toThrow(/gumbelConsideredActions/);
    expect(() => new BatchedMcts(bandit, new UniformEvaluator<BanditState>(), 1, { rootSelection: 'bogus' as 'puct' })).toThrow(/rootSelection/);
  });
});

import { describe, expect, it } from 'vitest';
import type { InferenceModel, NetworkConfig } from '@az/core';
import { Rng } from '@az/core';
import { BatchedMcts, nodeCapacityFor, type SearchConfig } from './batched-mcts.js';
import { NetworkEvaluator, UniformEvaluator, type Evaluator, type LeafBatch } from './evaluator.js';
import { MctsAgent } from './mcts-agent.js';
import { selectActionFromVisits } from './policy.js';
import { makeTestTicTacToe, makeThreeSeatGame, tttFromString, type TttState } from './test-games.js';

const ttt = makeTestTicTacToe();

function argmax(a: Float32Array): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
}

function sum(a: Float32Array): number {
  return a.reduce((x, y) => x + y, 0);
}

/** Tic-tac-toe whose masker also lists its legal actions, in increasing or reversed order. */
function tttListingLegalActions(order: 'increasing' | 'reversed'): typeof ttt {
  return {
    ...ttt,
    masker: {
      actionSize: 9,
      fillMask: ttt.masker.fillMask,
      legalActions(s: TttState): ArrayLike<number> {
        const legal: number[] = [];
        for (let a = 0; a < 9; a++) if (s.winner < 0 && s.board[a] === 0) legal.push(a);
        return order === 'increasing' ? legal : legal.reverse();
      },
    },
  };
}

/** Records every batch size it is called with; answers with a uniform prior and zero value. */
class RecordingEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = true;
  readonly sizes: number[] = [];
  evaluate(batch: LeafBatch<S>): void {
    this.sizes.push(batch.count);
    batch.policyLogits.fill(0);
    batch.values.fill(0);
  }
}

describe('BatchedMcts with a uniform evaluator', () => {
  it('gives the principal variation: the most visited child at each level, starting with the move it would play', async () => {
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 400, dirichletEpsilon: 0, seed: 2 });
    search.setRoot(0, tttFromString('XX.OO....', 1));
    await search.search();
    const pv = search.principalVariation(0);
    // O to move wins at once at 5: the line is that move, and nothing follows a finished game.
    expect(pv).toEqual([5]);
    const open = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 400, dirichletEpsilon: 0, seed: 3 });
    open.setRoot(0, tttFromString('.........', 0));
    await open.search();
    const line = open.principalVariation(0, 3);
    expect(line).toHaveLength(3);
    expect(line[0]).toBe(argmax(open.visitCounts(0, new Float32Array(9))));
    expect(new Set(line).size).toBe(3);
  });

  it('finds a win in one', async () => {
    // X X . / O O . / . . .  X to move: cell 2 wins (and O would win at 5 otherwise).
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 200, dirichletEpsilon: 0, seed: 1 });
    search.setRoot(0, tttFromString('XX.OO....', 0));
    await search.search();
    expect(argmax(search.visitCounts(0, new Float32Array(9)))).toBe(2);
    expect(search.rootValue(0)[0]).toBeGreaterThan(0.5);
  });

  it('plays a win in one that the network neither suggests nor values above the other moves', async () => {
    // The winning cell gets a negligible prior and every position looks won to the net (value 0.95 for
    // the side to move): PUCT alone would spend the visits on the favoured moves and never try cell 2.
    const overconfident = (win: number): Evaluator<TttState> => ({
      needsInputs: false,
      evaluate(batch) {
        for (let i = 0; i < batch.count; i++) {
          for (let a = 0; a < 9; a++) batch.policyLogits[i * 9 + a] = a === win ? -12 : 0;
          const mover = batch.perspectives[i];
          batch.values[i * 2 + mover] = 0.95;
          batch.values[i * 2 + 1 - mover] = -0.95;
        }
      },
    });
    for (const [board, win] of [['XX.OO....', 2], ['X..X.O.O.', 6]] as const) {
      const search = new BatchedMcts(ttt, overconfident(win), 1, { simulations: 100, dirichletEpsilon: 0, seed: 1 });
      search.setRoot(0, tttFromString(board, 0));
      await search.search();
      const visits = search.visitCounts(0, new Float32Array(9));
      expect(argmax(visits), board).toBe(win);
      expect(visits[win], board).toBe(99); // every simulation after the root's expansion
    }
  });

  it('with resolveDepth 2, sees an opponent reply that ends the game before visiting it', async () => {
    // O X . / X O . / . . .  X to move: only cell 8 stops O's 0-4-8. The net calls every position won
    // for the side to move, so after any X move O looks equally good; the threat shows only once O's
    // winning reply is known to be terminal. O's win is its last child in order, so without resolving
    // O tries its other replies first and each X move looks fine for several simulations.
    const misleading: Evaluator<TttState> = {
      needsInputs: false,
      evaluate(batch) {
        for (let i = 0; i < batch.count; i++) {
          for (let a = 0; a < 9; a++) batch.policyLogits[i * 9 + a] = 0;
          const mover = batch.perspectives[i];
          batch.values[i * 2 + mover] = 0.95;
          batch.values[i * 2 + 1 - mover] = -0.95;
        }
      },
    };
    const best = async (resolveDepth: number): Promise<number> => {
      const search = new BatchedMcts(ttt, misleading, 1, { simulations: 12, leavesPerTree: 1, dirichletEpsilon: 0, seed: 3, resolveDepth });
      search.setRoot(0, tttFromString('OX.XO....', 0));
      await search.search();
      return argmax(search.visitCounts(0, new Float32Array(9)));
    };
    expect(await best(2)).toBe(8);
    expect(await best(1)).not.toBe(8);
  });

  it('proves a forced win the net cannot tell from its estimates (solve), and values found results above estimates', async () => {
    // . . . / X . O / . O X  X to move: only cell 0 wins (two threats, 0-3-6 and 0-4-8); every other move
    // draws, and neither side wins in one. The net calls every position won for X (+1, saturated, as a
    // chess net does far ahead on material), so plain search sees nothing special behind cell 0.
    const saturated: Evaluator<TttState> = {
      needsInputs: false,
      evaluate(batch) {
        batch.policyLogits.fill(0, 0, batch.count * 9);
        for (let i = 0; i < batch.count; i++) {
          batch.values[i * 2] = 1;
          batch.values[i * 2 + 1] = -1;
        }
      },
    };
    const run = async (config: Partial<SearchConfig>): Promise<{ share: number; evaluations: number }> => {
      const search = new BatchedMcts(ttt, saturated, 1, { simulations: 200, leavesPerTree: 1, dirichletEpsilon: 0, seed: 5, resolveDepth: 2, ...config });
      search.setRoot(0, tttFromString('...X.O.OX', 0));
      await search.search();
      const visits = search.visitCounts(0, new Float32Array(9));
      return { share: visits[0] / sum(visits), evaluations: search.stats.evaluations };
    };
    const plain = await run({});
    const scaled = await run({ networkValueScale: 0.9 });
    const solved = await run({ solve: true, networkValueScale: 0.9 });
    // Proven: the win behind cell 0 is exact at every level, so it draws the visits; the drawing moves
    // are proven too, and the search stops asking the evaluator about a solved tree.
    expect(solved.share).toBeGreaterThan(0.6);
    expect(plain.share).toBeLessThan(0.3);
    expect(scaled.share).toBeLessThan(0.3);
    expect(solved.evaluations).toBeLessThan(plain.evaluations / 2);
    expect(() => new BatchedMcts(ttt, saturated, 1, { networkValueScale: 0 })).toThrow(/networkValueScale/);
  });

  it('blocks a loss in one', async () => {
    // X . . / . O . / O . X  X to move: O threatens cell 2 (6-4-2); X has no win in one; only 2 saves X.
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 400, dirichletEpsilon: 0, seed: 2 });
    search.setRoot(0, tttFromString('X...O.O.X', 0));
    await search.search();
    expect(argmax(search.visitCounts(0, new Float32Array(9)))).toBe(2);
  });

  it('backs up per-seat values so each seat maximises its own', async () => {
    const game = makeThreeSeatGame();
    const search = new BatchedMcts(game, new UniformEvaluator(), 1, { simulations: 600, leavesPerTree: 4, dirichletEpsilon: 0, seed: 3 });
    search.setRoot(0, game.initialState(new Rng(0)));
    await search.search();
    const counts = search.visitCounts(0, new Float32Array(2));
    expect(counts[1]).toBeGreaterThan(counts[0] * 3); // seat 0 picks a=1, because seat 1 punishes a=0
    const v = search.rootValue(0);
    expect(v[0]).toBeGreaterThan(0.3); // converging to 0.5
    expect(v[2]).toBeLessThan(-0.6); // seat 2 is the loser of the line (1, 0)
  });
});

describe('BatchedMcts bookkeeping', () => {
  it('searches each tree with its own budget when given one (playout caps), the configured one otherwise', async () => {
    const engine = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 3, { simulations: 40, leavesPerTree: 4, dirichletEpsilon: 0 });
    for (let t = 0; t < 3; t++) engine.setRoot(t, tttFromString('.........', 0));
    await engine.search(Int32Array.of(5, 40, 17));
    expect([0, 1, 2].map((t) => engine.rootVisits(t))).toEqual([5, 40, 17]);
    await engine.search();
    expect([0, 1, 2].map((t) => engine.rootVisits(t))).toEqual([45, 80, 57]);
    await expect(engine.search(Int32Array.of(1))).rejects.toThrow(/budgets/);
  });

  it('conserves visits under virtual loss: root visits = simulations, children = root - 1', async () => {
    const evaluator = new RecordingEvaluator<TttState>();
    const trees = 16;
    const search = new BatchedMcts(ttt, evaluator, trees, { simulations: 100, leavesPerTree: 8, seed: 4 });
    for (let t = 0; t < trees; t++) search.setRoot(t, ttt.initialState(new Rng(t)));
    await search.search();
    for (let t = 0; t < trees; t++) {
      expect(search.rootVisits(t)).toBe(100);
      expect(sum(search.visitCounts(t, new Float32Array(9)))).toBe(99);
    }
    // One call serves every tree: never more than trees * leavesPerTree, and well above one tree's worth.
    expect(Math.max(...evaluator.sizes)).toBeLessThanOrEqual(trees * 8);
    expect(search.averageBatchSize).toBeGreaterThan(30);
    expect(search.stats.simulations).toBe(trees * 100);
  });

  it('reports how deep its simulations went since the root was set or advanced (mean and deepest leaf, plies below the root)', async () => {
    // Each evaluated leaf's depth is the number of marks on it beyond the root's.
    const marks = (s: TttState): number => s.board.reduce((n, c) => n + (c ? 1 : 0), 0);
    let rootMarks = 0;
    const depths: number[] = [];
    const evaluator: Evaluator<TttState> = {
      needsInputs: false,
      evaluate(batch: LeafBatch<TttState>): void {
        for (let i = 0; i < batch.count; i++) depths.push(marks(batch.states[i]) - rootMarks);
        batch.policyLogits.fill(0);
        batch.values.fill(0);
      },
    };
    const search = new BatchedMcts(ttt, evaluator, 1, { simulations: 40, leavesPerTree: 4, dirichletEpsilon: 0, seed: 6 });
    expect(search.searchDepth(0)).toEqual({ simulations: 0, mean: 0, max: 0 });
    const root = ttt.initialState(new Rng(0));
    search.setRoot(0, root);
    await search.search(Int32Array.of(1));
    // The first simulation evaluates the root itself.
    expect(search.searchDepth(0)).toEqual({ simulations: 1, mean: 0, max: 0 });
    await search.search();
    // 41 simulations from an empty board: none reaches a finished game (every one was evaluated).
    expect(depths).toHaveLength(41);
    const d = search.searchDepth(0);
    expect(d.simulations).toBe(41);
    expect(d.mean).toBeCloseTo(depths.reduce((a, b) => a + b, 0) / depths.length, 12);
    expect(d.max).toBe(Math.max(...depths));
    expect(d.mean).toBeGreaterThan(1);
    // Advancing starts the count afresh, measured from the new root.
    const next = ttt.clone(root);
    ttt.applyAction(next, 4, new Rng(0));
    search.advance(0, 4, next);
    expect(search.searchDepth(0)).toEqual({ simulations: 0, mean: 0, max: 0 });
    depths.length = 0;
    rootMarks = 1;
    await search.search(Int32Array.of(25));
    expect(search.searchDepth(0).simulations).toBe(25);
    expect(depths).toHaveLength(25);
    expect(search.searchDepth(0).mean).toBeCloseTo(depths.reduce((a, b) => a + b, 0) / 25, 12);
    expect(search.searchDepth(0).max).toBe(Math.max(...depths));
    search.setRoot(0, root);
    expect(search.searchDepth(0).simulations).toBe(0);
    // A simulation that ends at a finished game counts that node's depth: X wins at once here, every
    // simulation after the first goes to that move.
    search.setRoot(0, tttFromString('XX.OO....', 0));
    await search.search(Int32Array.of(30));
    expect(search.searchDepth(0)).toMatchObject({ simulations: 30, max: 1 });
    expect(search.searchDepth(0).mean).toBeCloseTo(29 / 30, 12);
  });

  it('keeps the searched subtree when advancing and continues from it', async () => {
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 300, dirichletEpsilon: 0, seed: 5 });
    const root = ttt.initialState(new Rng(0));
    search.setRoot(0, root);
    await search.search();
    const counts = search.visitCounts(0, new Float32Array(9));
    const action = argmax(counts);
    const kept = counts[action];
    const next = ttt.clone(root);
    ttt.applyAction(next, action, new Rng(0));
    search.advance(0, action, next);
    expect(search.rootVisits(0)).toBe(kept);
    expect(sum(search.visitCounts(0, new Float32Array(9)))).toBe(kept - 1);
    await search.search();
    expect(search.rootVisits(0)).toBe(kept + 300);
    expect(sum(search.visitCounts(0, new Float32Array(9)))).toBe(kept + 299);
  });

  it('gives the same search after re-rooting whether or not the tree was compacted', async () => {
    const run = async (nodeCapacity: number): Promise<{ counts: number[]; size: number }> => {
      const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 300, dirichletEpsilon: 0, nodeCapacity, seed: 6 });
      const root = ttt.initialState(new Rng(0));
      search.setRoot(0, root);
      await search.search();
      const next = ttt.clone(root);
      ttt.applyAction(next, 4, new Rng(0));
      search.advance(0, 4, next);
      const size = search.treeSize(0);
      await search.search();
      expect(search.stats.capacityHits).toBe(0);
      return { counts: Array.from(search.visitCounts(0, new Float32Array(9))), size };
    };
    const pointerOnly = await run(100_000); // plenty of room: re-rooting just moves the root pointer
    const compacted = await run(3000); // more than half used: the kept subtree is compacted
    expect(compacted.size).toBeLessThan(pointerOnly.size); // compaction dropped the siblings
    expect(compacted.counts).toEqual(pointerOnly.counts);
  });

  it('keeps the documented layout through search, re-rooting and compaction', async () => {
    // The per-node arrays are private; read them here to check the invariants the class comment states.
    interface Layout {
      cap: number;
      parent: Int32Array;
      firstChild: Int32Array;
      childCount: Int32Array;
      visits: Int32Array;
      pendingVisits: Int32Array;
      flags: Uint8Array;
      states: (TttState | undefined)[];
      nextFree: Int32Array;
      rootOf: Int32Array;
    }
    const check = (search: BatchedMcts<TttState>, trees: number): void => {
      const l = search as unknown as Layout;
      for (let t = 0; t < trees; t++) {
        const base = t * l.cap;
        const end = base + l.nextFree[t];
        // Free nodes hold no state.
        for (let n = end; n < base + l.cap; n++) expect(l.states[n]).toBeUndefined();
        if (!search.hasTree(t)) continue;
        const root = l.rootOf[t];
        expect(l.parent[root]).toBe(-1);
        const stack = [root];
        while (stack.length > 0) {
          const n = stack.pop() as number;
          expect(n >= base && n < end).toBe(true);
          expect(l.pendingVisits[n]).toBe(0);
          if (l.visits[n] > 0) expect(l.states[n]).toBeDefined();
          if (!(l.flags[n] & 1)) continue; // not expanded
          let childVisits = 0;
          for (let c = l.firstChild[n]; c < l.firstChild[n] + l.childCount[n]; c++) {
            expect(l.parent[c]).toBe(n);
            childVisits += l.visits[c];
            stack.push(c);
          }
          // One evaluation expanded the node; every later simulation went on to a child.
          expect(l.visits[n]).toBe(childVisits + 1);
        }
      }
    };
    const trees = 3;
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), trees, { simulations: 60, leavesPerTree: 4, nodeCapacity: 1000, seed: 8 });
    const states = [0, 1, 2].map((t) => ttt.initialState(new Rng(t)));
    states.forEach((s, t) => search.setRoot(t, s));
    const rng = new Rng(1);
    const counts = new Float32Array(9);
    let compactions = 0;
    for (let move = 0; move < 5; move++) {
      await search.search();
      check(search, trees);
      for (let t = 0; t < trees; t++) {
        if (!search.hasTree(t) || ttt.isTerminal(states[t])) continue;
        const action = selectActionFromVisits(search.visitCounts(t, counts), 1, rng);
        ttt.applyAction(states[t], action, rng);
        const before = search.treeSize(t);
        if (ttt.isTerminal(states[t])) search.clearTree(t);
        else search.advance(t, action, states[t]);
        if (search.treeSize(t) < before) compactions++;
        check(search, trees);
      }
    }
    expect(search.stats.capacityHits).toBe(0);
    expect(compactions).toBeGreaterThan(0);
  });

  it('is reproducible from its seed, noise included', async () => {
    const run = async (): Promise<Float32Array> => {
      const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 2, { simulations: 50, dirichletEpsilon: 0.25, seed: 9 });
      search.setRoot(0, ttt.initialState(new Rng(0)));
      search.setRoot(1, tttFromString('X...O....', 0));
      await search.search();
      const out = new Float32Array(18);
      search.visitCounts(0, out.subarray(0, 9));
      search.visitCounts(1, out.subarray(9));
      return out;
    };
    expect(Array.from(await run())).toEqual(Array.from(await run()));
  });

  it("expands from the masker's legalActions list when the game has one, with the same priors as the mask", async () => {
    // Logits that differ per action, so priors (and hence visits) depend on which logits expand reads.
    const graded: Evaluator<TttState> = {
      needsInputs: false,
      evaluate(batch) {
        for (let i = 0; i < batch.count; i++) for (let a = 0; a < 9; a++) batch.policyLogits[i * 9 + a] = ((a * 7) % 5) * 0.3;
        batch.values.fill(0, 0, batch.count * 2);
      },
    };
    const visits = async (game: typeof ttt, simulations: number): Promise<number[]> => {
      const search = new BatchedMcts(game, graded, 1, { simulations, dirichletEpsilon: 0, leavesPerTree: 4 });
      search.setRoot(0, tttFromString('X...O....', 0));
      await search.search();
      return Array.from(search.visitCounts(0, new Float32Array(9)));
    };
    // Listed in increasing order, children come in the mask's order: the very same search.
    const fromMask = await visits(ttt, 200);
    expect(await visits(tttListingLegalActions('increasing'), 200)).toEqual(fromMask);
    expect(sum(Float32Array.from(fromMask))).toBe(199);
    // The list is what expand uses: listed in reverse, the first child (and so the first pick among
    // equal scores) is the last action. With a uniform prior the second simulation picks child 0.
    const first = async (game: typeof ttt): Promise<number> => {
      const search = new BatchedMcts(game, new UniformEvaluator<TttState>(), 1, { simulations: 2, dirichletEpsilon: 0, leavesPerTree: 1 });
      search.setRoot(0, ttt.initialState(new Rng(0)));
      await search.search();
      return argmax(search.visitCounts(0, new Float32Array(9)));
    };
    expect(await first(ttt)).toBe(0);
    expect(await first(tttListingLegalActions('reversed'))).toBe(8);
  });

  it('fills the masks only for an evaluator that reads them, or when expansion needs them (no legalActions)', async () => {
    const listed = tttListingLegalActions('increasing');
    const graded = (needsMasks: boolean | undefined, seen: { marked: number }): Evaluator<TttState> => ({
      needsInputs: false,
      ...(needsMasks === undefined ? {} : { needsMasks }),
      evaluate(batch) {
        for (let i = 0; i < batch.count * 9; i++) seen.marked += batch.masks[i];
        for (let i = 0; i < batch.count; i++) for (let a = 0; a < 9; a++) batch.policyLogits[i * 9 + a] = ((a * 7) % 5) * 0.3;
        batch.values.fill(0, 0, batch.count * 2);
      },
    });
    const run = async (game: typeof ttt, needsMasks: boolean | undefined): Promise<{ visits: number[]; marked: number }> => {
      const seen = { marked: 0 };
      const search = new BatchedMcts(game, graded(needsMasks, seen), 1, { simulations: 100, dirichletEpsilon: 0, leavesPerTree: 4 });
      search.setRoot(0, tttFromString('X...O....', 0));
      await search.search();
      return { visits: Array.from(search.visitCounts(0, new Float32Array(9))), marked: seen.marked };
    };
    const filled = await run(listed, undefined);
    expect(filled.marked).toBeGreaterThan(0);
    const unfilled = await run(listed, false);
    expect(unfilled.marked).toBe(0);
    expect(unfilled.visits).toEqual(filled.visits);
    // Without a legal-action list, expansion reads the masks: they are filled whatever the evaluator says.
    expect((await run(ttt, false)).marked).toBeGreaterThan(0);
  });

  it("asks the network for its leaves' legal logits only, when the game lists them and the model can: the same search", async () => {
    const run = async (game: typeof ttt, model: InputLogitModel): Promise<{ visits: number[]; value: number[]; calls: typeof model.calls }> => {
      const search = new BatchedMcts(game, new NetworkEvaluator<TttState>(model), 2, { simulations: 120, dirichletEpsilon: 0, leavesPerTree: 4, seed: 5 });
      search.setRoot(0, tttFromString('X...O....', 0));
      search.setRoot(1, tttFromString('.........', 0));
      await search.search();
      const visits = [...search.visitCounts(0, new Float32Array(9)), ...search.visitCounts(1, new Float32Array(9))];
      return { visits, value: [...search.rootValue(0), ...search.rootValue(1)], calls: model.calls };
    };
    // Listed in reverse, compact row k is the logit of the k-th listed (not the k-th) action: expand must map them.
    for (const order of ['increasing', 'reversed'] as const) {
      const listed = tttListingLegalActions(order);
      const dense = await run(listed, new InputLogitModel(false));
      const compact = await run(listed, new InputLogitModel(true));
      expect(compact.calls.dense).toBe(0);
      expect(compact.calls.legal).toBeGreaterThan(0);
      expect(compact.visits).toEqual(dense.visits);
      expect(compact.value).toEqual(dense.value);
    }
    // A game without lists gets full rows from the same model.
    const unlisted = await run(ttt, new InputLogitModel(true));
    expect(unlisted.calls.legal).toBe(0);
    expect(unlisted.calls.dense).toBeGreaterThan(0);
  });

  it('evaluates but does not expand leaves once a tree is full', async () => {
    const search = new BatchedMcts(ttt, new UniformEvaluator<TttState>(), 1, { simulations: 100, nodeCapacity: 20, dirichletEpsilon: 0 });
    search.setRoot(0, ttt.initialState(new Rng(0)));
    await search.search();
    expect(search.rootVisits(0)).toBe(100);
    expect(search.treeSize(0)).toBeLessThanOrEqual(20);
    expect(search.stats.capacityHits).toBeGreaterThan(0);
  });

  it('skips trees whose root is terminal or absent', async () => {
    const evaluator = new RecordingEvaluator<TttState>();
    const search = new BatchedMcts(ttt, evaluator, 3, { simulations: 10 });
    search.setRoot(0, tttFromString('XXXOO....', 1)); // X has won
    search.setRoot(2, ttt.initialState(new Rng(0)));
    await search.search();
    expect(search.rootVisits(0)).toBe(0);
    expect(search.hasTree(1)).toBe(false);
    expect(search.rootVisits(2)).toBe(10);
  });
});

describe('NetworkEvaluator', () => {
  it('rotates perspective-relative values into absolute seat order', async () => {
    const config: NetworkConfig = { spec: { kind: 'mlp', hidden: [1] }, inputShape: [18], actionSize: 9, numSeats: 2 };
    // Value for "me" is 0.9, for the opponent -0.9; policy prefers action 4.
    const model: InferenceModel = {
      config,
      backendName: 'fake',
      async predict(_input, count, policy, value) {
        for (let i = 0; i < count; i++) {
          for (let a = 0; a < 9; a++) policy[i * 9 + a] = a === 4 ? 5 : 0;
          value[i * 2] = 0.9;
          value[i * 2 + 1] = -0.9;
        }
      },
      dispose() {},
    };
    const evaluator = new NetworkEvaluator<TttState>(model);
    const batch: LeafBatch<TttState> = {
      count: 2, actionSize: 9, numSeats: 2, states: [], perspectives: Int32Array.from([0, 1]),
      inputs: new Float32Array(36), masks: new Uint8Array(18).fill(1), policyLogits: new Float32Array(18), values: new Float32Array(4),
    };
    await evaluator.evaluate(batch);
    expect(Array.from(batch.values).map((v) => Math.round(v * 10) / 10)).toEqual([0.9, -0.9, -0.9, 0.9]);
    expect(batch.policyLogits[4]).toBe(5);

    // A swapped-in model answers the next call; the previous one is handed back, not disposed.
    let disposed = false;
    const next: InferenceModel = {
      ...model,
      async predict(_input, count, policy, value) {
        policy.fill(0, 0, count * 9);
        value.fill(0.5, 0, count * 2);
      },
      dispose: () => {
        disposed = true;
      },
    };
    expect(evaluator.setModel(next)).toBe(model);
    expect(evaluator.model).toBe(next);
    await evaluator.evaluate(batch);
    expect(Array.from(batch.values)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(disposed).toBe(false);
  });

  it("writes compact rows from the model's predictLegal when the batch lists legal actions, padding rows to the widest", async () => {
    const model = new InputLogitModel(true);
    const evaluator = new NetworkEvaluator<TttState>(model);
    expect(evaluator.legalLogits).toBe(true);
    const inputs = Float32Array.from({ length: 3 * 18 }, (_, j) => ((j * 37) % 11) / 7);
    const lists = [[4, 0, 8], [2], [7, 1]];
    const batch: LeafBatch<TttState> = {
      count: 3, actionSize: 9, numSeats: 2, states: [], perspectives: Int32Array.from([0, 1, 0]), legalActions: lists,
      inputs, masks: new Uint8Array(27), policyLogits: new Float32Array(27).fill(NaN), values: new Float32Array(6),
    };
    await evaluator.evaluate(batch);
    expect(model.calls).toEqual({ dense: 0, legal: 1 });
    expect(model.lastWidth).toBe(3);
    // Padding repeats the row's first action.
    expect(model.lastActions).toEqual([4, 0, 8, 2, 2, 2, 7, 1, 7]);
    const dense = new Float32Array(27);
    const values = new Float32Array(6);
    await new InputLogitModel(false).predict(inputs, 3, dense, values);
    for (let i = 0; i < 3; i++) {
      lists[i].forEach((a, k) => expect(batch.policyLogits[i * 9 + k]).toBe(dense[i * 9 + a]));
    }
    // Without lists, or with a model that cannot return them, rows are full.
    const full: LeafBatch<TttState> = { ...batch, legalActions: undefined, policyLogits: new Float32Array(27) };
    await evaluator.evaluate(full);
    expect(Array.from(full.policyLogits)).toEqual(Array.from(dense));
    expect(new NetworkEvaluator<TttState>(new InputLogitModel(false)).legalLogits).toBe(false);
    // Lists given to an evaluator whose model has no predictLegal (swapped in after the search asked):
    // its full rows, gathered into the compact layout the search expects.
    const gathered: LeafBatch<TttState> = { ...batch, policyLogits: new Float32Array(27).fill(NaN) };
    await new NetworkEvaluator<TttState>(new InputLogitModel(false)).evaluate(gathered);
    for (let i = 0; i < 3; i++) lists[i].forEach((a, k) => expect(gathered.policyLogits[i * 9 + k]).toBe(dense[i * 9 + a]));
  });

  it('keeps overlapping calls apart when the model reads its arguments and writes its outputs later (as onnxruntime does)', async () => {
    // Like onnxruntime-node (whose run happens in a setImmediate) or a worker thread's queue: the action
    // lists are read and the outputs written only after the call has returned its promise.
    const deferred: InferenceModel = {
      config: { spec: { kind: 'mlp', hidden: [1] }, inputShape: [1], actionSize: 9, numSeats: 2 },
      backendName: 'fake',
      predict: (input, count, policyOut, valueOut) =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            for (let i = 0; i < count * 9; i++) policyOut[i] = input[Math.floor(i / 9)] * 100 + (i % 9);
            for (let i = 0; i < count; i++) valueOut.fill(input[i] / 10, i * 2, i * 2 + 2);
            resolve();
          }),
        ),
      predictLegal: (input, count, actions, width, policyOut, valueOut) =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            for (let i = 0; i < count * width; i++) policyOut[i] = input[Math.floor(i / width)] * 100 + actions[i];
            for (let i = 0; i < count; i++) valueOut.fill(input[i] / 10, i * 2, i * 2 + 2);
            resolve();
          }),
        ),
      dispose() {},
    };
    const evaluator = new NetworkEvaluator<TttState>(deferred);
    const batchOf = (tag: number, lists: number[][] | undefined): LeafBatch<TttState> => ({
      count: 1, actionSize: 9, numSeats: 2, states: [], perspectives: new Int32Array(1), legalActions: lists,
      inputs: Float32Array.of(tag), masks: new Uint8Array(9), policyLogits: new Float32Array(9), values: new Float32Array(2),
    });
    for (const compact of [true, false]) {
      const a = batchOf(1, compact ? [[1, 2, 3]] : undefined);
      const b = batchOf(2, compact ? [[7, 8, 6]] : undefined);
      // B starts while A's model call is still pending (the same width, so no buffer is grown in between).
      await Promise.all([evaluator.evaluate(a), Promise.resolve().then(() => evaluator.evaluate(b))]);
      expect(Array.from(a.policyLogits.subarray(0, compact ? 3 : 9))).toEqual(compact ? [101, 102, 103] : [100, 101, 102, 103, 104, 105, 106, 107, 108]);
      expect(Array.from(b.policyLogits.subarray(0, compact ? 3 : 9))).toEqual(compact ? [207, 208, 206] : [200, 201, 202, 203, 204, 205, 206, 207, 208]);
      expect(Array.from(a.values)).toEqual([0.1, 0.1].map(Math.fround));
      expect(Array.from(b.values)).toEqual([0.2, 0.2].map(Math.fround));
    }
  });
});

/**
 * A fake network whose logits and values depend on the input (so a search over it depends on which
 * logits reach which child); `predictLegal` only when built with it, answering the same logits gathered.
 */
class InputLogitModel implements InferenceModel {
  readonly config: NetworkConfig = { spec: { kind: 'mlp', hidden: [1] }, inputShape: [18], actionSize: 9, numSeats: 2 };
  readonly backendName = 'fake';
  readonly calls = { dense: 0, legal: 0 };
  lastActions: number[] = [];
  lastWidth = 0;
  readonly predictLegal?: InferenceModel['predictLegal'];

  constructor(legal: boolean) {
    if (legal) {
      this.predictLegal = async (input, count, actions, width, policyOut, valueOut) => {
        this.calls.legal++;
        this.lastActions = Array.from(actions.subarray(0, count * width));
        this.lastWidth = width;
        const dense = new Float32Array(count * 9);
        this.compute(input, count, dense, valueOut);
        for (let i = 0; i < count * width; i++) policyOut[i] = dense[Math.floor(i / width) * 9 + actions[i]];
      };
    }
  }

  async predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    this.calls.dense++;
    this.compute(input, count, policyOut, valueOut);
  }

  private compute(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): void {
    for (let i = 0; i < count; i++) {
      let own = 0;
      for (let c = 0; c < 9; c++) own += input[i * 18 + c] * (c + 1);
      for (let a = 0; a < 9; a++) policyOut[i * 9 + a] = Math.sin(own * 0.7 + a * 1.3) * 2;
      valueOut[i * 2] = Math.tanh(Math.cos(own) * 0.5);
      valueOut[i * 2 + 1] = -valueOut[i * 2];
    }
  }

  dispose(): void {}
}

describe('MctsAgent and action selection', () => {
  it('plays the winning move for many states in one batched call', async () => {
    const agent = MctsAgent.create(ttt, new UniformEvaluator<TttState>(), { maxBatchTrees: 4, search: { simulations: 200 } });
    const states = [tttFromString('XX.OO....', 0), tttFromString('OO.XX.X..', 1), tttFromString('X...O.O.X', 0)];
    expect(Array.from(await agent.act(states))).toEqual([2, 2, 2]);
  });

  it('samples with temperature and takes the argmax at zero', () => {
    const rng = new Rng(7);
    const counts = Float32Array.from([0, 10, 30, 0]);
    expect(selectActionFromVisits(counts, 0, rng)).toBe(2);
    const seen = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) seen[selectActionFromVisits(counts, 1, rng)]++;
    expect(seen[0]).toBe(0);
    expect(seen[3]).toBe(0);
    expect(seen[2] / 4000).toBeGreaterThan(0.7);
    expect(seen[2] / 4000).toBeLessThan(0.8);
  });
});

describe('BatchedMcts.forEachRootChild', () => {
  it("lists the visited root children with their states, visits and mean values, which add up to the root's", async () => {
    // A value that depends on the position (seat 0: 0.1 x the first empty cell - 0.4), so children differ.
    const valueOf = (s: TttState): number => 0.1 * s.board.indexOf(0) - 0.4;
    const evaluator: Evaluator<TttState> = {
      needsInputs: false,
      evaluate(batch: LeafBatch<TttState>): void {
        batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
        for (let i = 0; i < batch.count; i++) {
          batch.values[2 * i] = valueOf(batch.states[i]);
          batch.values[2 * i + 1] = -valueOf(batch.states[i]);
        }
      },
    };
    const root = tttFromString('X...O....', 0);
    const engine = new BatchedMcts(ttt, evaluator, 1, { simulations: 60, leavesPerTree: 2, dirichletEpsilon: 0, seed: 4 });
    engine.setRoot(0, root);
    await engine.search();
    const counts = engine.visitCounts(0, new Float32Array(9));
    const seen = new Float32Array(9);
    let weighted = 0;
    engine.forEachRootChild(0, (state, visits, value, world) => {
      expect(world).toBe(0);
      // The child is the root with one more mark: find which.
      const moved = state.board.findIndex((c, i) => c !== root.board[i]);
      expect(state.board.filter((c, i) => c !== root.board[i]).length).toBe(1);
      seen[moved] = visits;
      expect(value[0]).toBeCloseTo(-value[1], 5);
      weighted += visits * value[0];
    });
    expect(Array.from(seen)).toEqual(Array.from(counts));
    // Every simulation but the root's own expansion went through one child: the sums add up.
    const rootVisits = engine.rootVisits(0);
    expect(rootVisits).toBe(60);
    expect(engine.rootValue(0)[0] * rootVisits).toBeCloseTo(valueOf(root) + weighted, 3);
  });
});

describe('nodeCapacityFor', () => {
  it('gives 64 nodes a simulation, whatever the leaves per step, and at least 1024', () => {
    expect(nodeCapacityFor(800)).toBe(51_200);
    expect(nodeCapacityFor(64)).toBe(4096);
    expect(nodeCapacityFor(8)).toBe(1024);
  });

  it('holds a search and the subtree it keeps for the next move without filling up', async () => {
    const game = makeTestTicTacToe();
    const simulations = 64;
    const mcts = new BatchedMcts(game, new UniformEvaluator<TttState>(), 1, { simulations, nodeCapacity: nodeCapacityFor(simulations), seed: 1 });
    let state = game.initialState(new Rng(1));
    mcts.setRoot(0, state);
    for (let move = 0; move < 4; move++) {
      await mcts.search();
      const action = selectActionFromVisits(mcts.visitCounts(0, new Float32Array(game.masker.actionSize)), 0, new Rng(move));
      state = game.clone(state);
      game.applyAction(state, action, new Rng(move));
      mcts.advance(0, action, state);
    }
    expect(mcts.stats.capacityHits).toBe(0);
  });
});

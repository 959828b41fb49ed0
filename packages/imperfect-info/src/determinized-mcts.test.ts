import { BatchedMcts, NetworkEvaluator, UniformEvaluator, type Evaluator, type LeafBatch } from '@az/mcts';
import { describe, expect, it } from 'vitest';
import { DeterminizedMcts } from './determinized-mcts.js';
import { createSearchEngine } from './search-factory.js';
import type { SearchSettings } from './search-settings.js';
import { OwnViewNetworkEvaluator } from './own-view-evaluator.js';
import { PolicyPlayoutEvaluator } from './policy-playout-evaluator.js';
import { RolloutMixEvaluator } from './rollout-mix-evaluator.js';
import { WorldNetworkEvaluator } from './world-evaluator.js';
import { BET, CALL, FOLD, FakeModel, PASS, SHOWDOWN_CARDS, makeShowdown, networkLeaves, settingsOf, showdownState, type ShowdownState } from './test-games.js';

/** Uniform prior, zero value; records batch sizes. */
class RecordingEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = false;
  readonly sizes: number[] = [];
  evaluate(batch: LeafBatch<S>): void {
    this.sizes.push(batch.count);
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    batch.values.fill(0, 0, batch.count * batch.numSeats);
  }
}

const search = { simulations: 64, leavesPerTree: 4, dirichletEpsilon: 0, seed: 3 };

describe('DeterminizedMcts', () => {
  it('decides from the mover’s own card over sampled worlds, never from the real hidden card', async () => {
    // Seat 0 holds 8, seat 1 really holds 9. Over the worlds seat 0 can imagine, betting wins 8 times
    // in 9; a search that peeked at the real state would pass.
    const game = makeShowdown();
    const state = showdownState(8, 9);
    const engine = new DeterminizedMcts(game, new UniformEvaluator<ShowdownState>(), 1, search, { determinizations: 8 });
    engine.setRoot(0, state);
    await engine.search();
    const counts = engine.visitCounts(0, new Float32Array(4));
    expect(counts[BET]).toBeGreaterThan(counts[PASS]);

    const peeking = new BatchedMcts(game, new UniformEvaluator<ShowdownState>(), 1, search);
    peeking.setRoot(0, state);
    await peeking.search();
    const peeked = peeking.visitCounts(0, new Float32Array(4));
    expect(peeked[PASS]).toBeGreaterThan(peeked[BET]);

    // And with the lowest card it passes whatever seat 1 really holds.
    engine.setRoot(0, showdownState(0, 5));
    await engine.search();
    engine.visitCounts(0, counts);
    expect(counts[PASS]).toBeGreaterThan(counts[BET]);
  });

  it('sums visit counts over the worlds and averages their root values', async () => {
    const game = makeShowdown();
    const D = 5;
    const engine = new DeterminizedMcts(game, new UniformEvaluator<ShowdownState>(), 2, search, { determinizations: D });
    engine.setRoot(0, showdownState(4, 1));
    engine.setRoot(1, showdownState(6, 2));
    expect(game.determinizer?.calls).toBe(2 * D);
    await engine.search();
    for (let slot = 0; slot < 2; slot++) {
      const total = engine.visitCounts(slot, new Float32Array(4));
      const expected = new Float32Array(4);
      const meanValue = new Float32Array(2);
      const worldCounts = new Float32Array(4);
      for (let d = 0; d < D; d++) {
        engine.trees.visitCounts(slot * D + d, worldCounts);
        for (let a = 0; a < 4; a++) expected[a] += worldCounts[a];
        const v = engine.trees.rootValue(slot * D + d);
        for (let j = 0; j < 2; j++) meanValue[j] += v[j] / D;
      }
      expect(Array.from(total)).toEqual(Array.from(expected));
      // Each world: `simulations` visits at the root, one spent expanding it.
      expect(total.reduce((a, b) => a + b, 0)).toBe(D * (search.simulations - 1));
      const value = engine.rootValue(slot);
      expect(value[0]).toBeCloseTo(meanValue[0], 6);
      expect(value[1]).toBeCloseTo(meanValue[1], 6);
      expect(value[0]).toBeCloseTo(-value[1], 5);
      // Each world's children, told apart by their world index: their visits are that world's counts.
      const childVisits = Array.from({ length: D }, () => new Float32Array(4));
      engine.forEachRootChild(slot, (state, visits, _value, world) => {
        expect(game.currentPlayer(state)).toBe(1);
        childVisits[world][state.history[state.history.length - 1]] += visits;
      });
      for (let d = 0; d < D; d++) expect(Array.from(childVisits[d])).toEqual(Array.from(engine.trees.visitCounts(slot * D + d, worldCounts)));
    }
  });

  it('runs one Gumbel root per world and teaches the mean of their improved policies', async () => {
    const game = makeShowdown();
    const D = 8;
    const slots = 20;
    const engine = new DeterminizedMcts(game, new UniformEvaluator<ShowdownState>(), slots, { ...search, simulations: 16, rootSelection: 'gumbel' }, { determinizations: D });
    // Slots 0..9 hold the 8 (betting wins in 8 worlds of 9), slots 10..19 the 0 (betting always loses).
    for (let slot = 0; slot < slots; slot++) engine.setRoot(slot, slot < 10 ? showdownState(8, 9) : showdownState(0, 5));
    await engine.search();
    const target = new Float32Array(4);
    const world = new Float32Array(4);
    let betsWithEight = 0;
    let betsWithZero = 0;
    for (let slot = 0; slot < slots; slot++) {
      engine.policyTarget(slot, target);
      const mean = new Float32Array(4);
      for (let d = 0; d < D; d++) {
        engine.trees.policyTarget(slot * D + d, world);
        for (let a = 0; a < 4; a++) mean[a] += world[a] / D;
      }
      for (let a = 0; a < 4; a++) expect(target[a]).toBeCloseTo(mean[a], 6);
      expect(target[PASS] + target[BET]).toBeCloseTo(1, 5);
      const action = engine.selectedAction(slot);
      expect([PASS, BET]).toContain(action);
      if (slot < 10) {
        expect(target[BET]).toBeGreaterThan(target[PASS]);
        if (action === BET) betsWithEight++;
      } else {
        expect(target[PASS]).toBeGreaterThan(target[BET]);
        if (action === BET) betsWithZero++;
      }
    }
    expect(betsWithEight).toBeGreaterThanOrEqual(7);
    expect(betsWithZero).toBeLessThanOrEqual(3);
    // Plain search leaves the move to the caller.
    const plain = new DeterminizedMcts(game, new UniformEvaluator<ShowdownState>(), 1, search, { determinizations: 2 });
    plain.setRoot(0, showdownState(8, 9));
    await plain.search();
    expect(plain.selectedAction(0)).toBe(-1);
  });

  it('serves every world of every slot with one evaluator call per step', async () => {
    const game = makeShowdown();
    const evaluator = new RecordingEvaluator<ShowdownState>();
    const engine = new DeterminizedMcts(game, evaluator, 4, search, { determinizations: 3 });
    for (let slot = 0; slot < 4; slot++) engine.setRoot(slot, showdownState(slot, 9 - slot));
    await engine.search();
    // The first step evaluates the 4 x 3 roots together.
    expect(evaluator.sizes[0]).toBe(12);
    expect(engine.stats.evaluatorCalls).toBe(evaluator.sizes.length);
    expect(engine.averageBatchSize).toBeGreaterThanOrEqual(12);
  });

  it('re-determinizes from the new real state when the game moves on', async () => {
    const game = makeShowdown();
    const engine = new DeterminizedMcts(game, new UniformEvaluator<ShowdownState>(), 1, search, { determinizations: 4 });
    engine.setRoot(0, showdownState(9, 2));
    await engine.search();
    const calls = game.determinizer?.calls ?? 0;
    // Seat 1 now holds 2 and faces a bet: it samples seat 0's card, and folds (calling loses 8 times in 9).
    engine.advance(0, BET, showdownState(9, 2, [BET]));
    expect(game.determinizer?.calls).toBe(calls + 4);
    const counts = engine.visitCounts(0, new Float32Array(4));
    expect(Array.from(counts)).toEqual([0, 0, 0, 0]);
    await engine.search();
    engine.visitCounts(0, counts);
    expect(counts[PASS] + counts[BET]).toBe(0);
    expect(counts[FOLD]).toBeGreaterThan(counts[CALL]);
  });

  it('roots terminal states without sampling, and clears slots', async () => {
    const game = makeShowdown();
    const engine = new DeterminizedMcts(game, new RecordingEvaluator<ShowdownState>(), 2, search, { determinizations: 2 });
    engine.setRoot(0, showdownState(3, 4, [PASS]));
    expect(game.determinizer?.calls).toBe(0);
    expect(engine.hasTree(0)).toBe(true);
    expect(engine.hasTree(1)).toBe(false);
    await engine.search();
    expect(engine.stats.evaluations).toBe(0);
    engine.clearTree(0);
    expect(engine.hasTree(0)).toBe(false);
    expect(() => engine.setRoot(2, showdownState(1, 2))).toThrow(/slot 2/);
  });
});

describe('createSearchEngine', () => {
  it('builds plain search for perfect information and determinized search for imperfect', () => {
    const game = makeShowdown();
    const evaluator = new UniformEvaluator<ShowdownState>();
    const perfect = { ...game, traits: { ...game.traits, information: 'perfect' as const } };
    expect(createSearchEngine(perfect, { evaluator }, 3, settingsOf(search))).toBeInstanceOf(BatchedMcts);
    const engine = createSearchEngine(game, { evaluator }, 3, settingsOf(search, { determinizations: 5 }));
    expect(engine).toBeInstanceOf(DeterminizedMcts);
    expect(engine.numTrees).toBe(3);
    expect((engine as DeterminizedMcts<ShowdownState>).determinizations).toBe(5);
    expect((engine as DeterminizedMcts<ShowdownState>).trees.numTrees).toBe(15);
    expect((createSearchEngine(game, { evaluator }, 1, settingsOf(search)) as DeterminizedMcts<ShowdownState>).determinizations).toBe(3);
  });

  it('names the game when an imperfect-information game has no determinizer', () => {
    const game = makeShowdown({ withoutDeterminizer: true });
    expect(() => createSearchEngine(game, { evaluator: new UniformEvaluator<ShowdownState>() }, 1, settingsOf(search))).toThrow(/showdown.*determinizer/);
    expect(() => new DeterminizedMcts(makeShowdown(), new UniformEvaluator<ShowdownState>(), 1, search, { determinizations: 0 })).toThrow(RangeError);
  });

  it('gives network evaluators playout values by default, and own-view values when asked', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const one = { ...search, simulations: 1 };
    // Default: the network's priors (one row per leaf) and a playout's returns as the value.
    const engine = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, settingsOf(one));
    engine.setRoot(0, showdownState(1, 2));
    await engine.search();
    expect(model.rows).toEqual([3]);
    // The root value is the mean over worlds of playout returns: -1, 0, 0.5 or 1 per world, never
    // the network's marker value -0.5 for the other seat.
    const v = engine.rootValue(0);
    expect(v[0]).toBeCloseTo(-v[1], 5);
    // Network values only, from each seat's own view: two rows per leaf.
    const plain = settingsOf(one);
    const ownViewSettings: SearchSettings = { ...plain, hidden: { ...plain.hidden, leafValues: { kind: 'own-view', playoutWeight: 0 } } };
    const own = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, ownViewSettings);
    own.setRoot(0, showdownState(1, 2));
    await own.search();
    expect(model.rows).toEqual([3, 6]);
    // Seat 0 holds 1 (own value 0.1); seat 1's value is what it sees in each world (its sampled card / 10).
    expect(own.rootValue(0)[0]).toBeCloseTo(0.1, 5);
    // Network values from the mover's view only: seat 1's value is the marker.
    const mover = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, settingsOf(one, { playoutWeight: 0 }));
    mover.setRoot(0, showdownState(1, 2));
    await mover.search();
    expect(model.rows).toEqual([3, 6, 3]);
    expect(mover.rootValue(0)[1]).toBeCloseTo(-0.5, 5);
  });
});

/** A leaf batch of Showdown states, each valued from the seat to move unless `movers` says otherwise. */
const leafBatch = (states: ShowdownState[], movers: number[] = states.map((s) => s.history.length % 2)) => ({
  count: states.length,
  actionSize: 4,
  numSeats: 2,
  states,
  perspectives: Int32Array.from(movers),
  inputs: new Float32Array(0),
  masks: new Uint8Array(4 * states.length),
  policyLogits: new Float32Array(4 * states.length),
  values: new Float32Array(2 * states.length),
});

describe('RolloutMixEvaluator', () => {
  it('mixes the inner values with one playout of the leaf', async () => {
    const game = makeShowdown();
    const constant: Evaluator<ShowdownState> = {
      needsInputs: false,
      evaluate(batch) {
        batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
        batch.values.fill(0.2, 0, batch.count * batch.numSeats);
      },
    };
    // Seat 1 faces a bet holding 9 against 3: calling wins 1, folding loses 0.5; a playout does either.
    const batch = {
      count: 1,
      actionSize: 4,
      numSeats: 2,
      states: [showdownState(3, 9, [BET])],
      perspectives: Int32Array.of(1),
      inputs: new Float32Array(0),
      masks: new Uint8Array(4),
      policyLogits: new Float32Array(4),
      values: new Float32Array(2),
    };
    const seen = new Set<string>();
    const mix = new RolloutMixEvaluator(game, constant, 0.5, 1);
    for (let t = 0; t < 20; t++) {
      await mix.evaluate(batch);
      seen.add(Array.from(batch.values, (x) => x.toFixed(2)).join(','));
    }
    // 0.5 * 0.2 + 0.5 * z for z = (0.5, -0.5) after a fold or (-1, 1) after a call.
    expect([...seen].sort()).toEqual(['-0.40,0.60', '0.35,-0.15']);
    expect(batch.states[0].history).toEqual([BET]); // the leaf itself is untouched
    expect(() => new RolloutMixEvaluator(game, constant, 1.5)).toThrow(RangeError);
  });
});

describe('OwnViewNetworkEvaluator', () => {
  it('takes each seat’s value from its own encoding and the policy from the mover’s', async () => {
    const game = makeShowdown();
    const evaluator = new OwnViewNetworkEvaluator(game, new FakeModel(game.encoder.size));
    const states = [showdownState(3, 7), showdownState(6, 1, [BET])];
    const batch = {
      count: 2,
      actionSize: 4,
      numSeats: 2,
      states,
      perspectives: Int32Array.of(0, 1),
      inputs: new Float32Array(0),
      masks: new Uint8Array(8),
      policyLogits: new Float32Array(8),
      values: new Float32Array(4),
    };
    await evaluator.evaluate(batch);
    // Leaf 0 (seat 0 to move, holding 3): policy favours action 3; values 0.3 and 0.7.
    expect(Array.from(batch.policyLogits.subarray(0, 4))).toEqual([0, 0, 0, 5]);
    expect(batch.values[0]).toBeCloseTo(0.3);
    expect(batch.values[1]).toBeCloseTo(0.7);
    // Leaf 1 (seat 1 to move, holding 1): policy from seat 1's row favours action 1.
    expect(Array.from(batch.policyLogits.subarray(4, 8))).toEqual([0, 5, 0, 0]);
    expect(batch.values[2]).toBeCloseTo(0.6);
    expect(batch.values[3]).toBeCloseTo(0.1);
  });

  it('refuses a network shaped for another game', () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const wrong = { ...model, predict: model.predict.bind(model), dispose: () => {}, config: { ...model.config, numSeats: 3 } };
    expect(() => new OwnViewNetworkEvaluator(game, wrong)).toThrow(/3 seat values/);
  });
});

describe('WorldNetworkEvaluator', () => {
  it('values each leaf from its full state and takes priors from the mover’s own view', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const batch = leafBatch([showdownState(3, 7), showdownState(6, 1, [BET])], [0, 1]);
    await new WorldNetworkEvaluator(game, model).evaluate(batch);
    expect(model.rows).toEqual([4]); // two rows per leaf, one call
    // Leaf 0, seat 0 to move: the world row knows seat 1 holds 7; the own-view prior favours 3 % 4.
    expect(Array.from(batch.policyLogits.subarray(0, 4))).toEqual([0, 0, 0, 5]);
    expect(batch.values[0]).toBeCloseTo(0.3);
    expect(batch.values[1]).toBeCloseTo(0.7);
    // Leaf 1, seat 1 to move holding 1: values rotated back to seat order.
    expect(Array.from(batch.policyLogits.subarray(4, 8))).toEqual([0, 5, 0, 0]);
    expect(batch.values[2]).toBeCloseTo(0.6);
    expect(batch.values[3]).toBeCloseTo(0.1);
  });

  it('takes priors from the world row when asked, one row per leaf', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const batch = leafBatch([showdownState(3, 7)], [0]);
    await new WorldNetworkEvaluator(game, model, 'world').evaluate(batch);
    expect(model.rows).toEqual([1]);
    expect(Array.from(batch.policyLogits.subarray(0, 4))).toEqual([0, 5, 0, 0]); // (3 + 2) % 4
    expect(batch.values[1]).toBeCloseTo(0.7);
  });

  it('refuses a game without a world encoder, naming it', () => {
    const game = { ...makeShowdown(), worldEncoder: undefined };
    expect(() => new WorldNetworkEvaluator(game, new FakeModel(game.encoder.size))).toThrow(/showdown has no world encoder/);
  });

  it('is what createSearchEngine uses for world leaf values, with playouts off unless asked', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const engine = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, settingsOf({ ...search, simulations: 1 }, { leafValues: 'world' }));
    engine.setRoot(0, showdownState(1, 2));
    await engine.search();
    expect(model.rows).toEqual([6]); // 3 worlds x 2 rows
    // Seat 0 holds 1: its value is 0.1 in every world; seat 1's is its sampled card / 10, never -0.5.
    const v = engine.rootValue(0);
    expect(v[0]).toBeCloseTo(0.1, 5);
    expect(v[1]).toBeGreaterThanOrEqual(0);
  });
});

describe('PolicyPlayoutEvaluator', () => {
  // FakeModel's own-view policy favours action (own card % 4); where that action is illegal every legal
  // logit is 0 and the first legal action is played.
  const constantPriors: Evaluator<ShowdownState> = {
    needsInputs: false,
    needsMasks: false,
    evaluate(batch) {
      for (let i = 0; i < batch.count * batch.actionSize; i++) batch.policyLogits[i] = i % batch.actionSize;
      batch.values.fill(0.25, 0, batch.count * batch.numSeats);
    },
  };
  it('plays every seat by the network from its own view to the end, in lock-step, keeping the inner priors', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const leaves = [showdownState(5, 3), showdownState(2, 7), showdownState(1, 6, [BET]), showdownState(4, 0, [PASS])];
    const batch = leafBatch(leaves);
    await new PolicyPlayoutEvaluator(game, constantPriors, { model }).evaluate(batch);
    // Leaf 0: seat 0 (card 5) bets, seat 1 (card 3, its own view) calls, 5 beats 3. Read from seat 0's
    // card, seat 1 would have folded (5 % 4 = 1 is not a reply), so the outcome shows whose view acted.
    expect(Array.from(batch.values.subarray(0, 2))).toEqual([1, -1]);
    // Leaf 1: seat 0 (card 2) has no favourite among pass/bet and passes.
    expect(Array.from(batch.values.subarray(2, 4), (v) => v + 0)).toEqual([0, 0]); // + 0: the test game returns -0
    // Leaf 2: seat 1 (card 6) folds to the bet.
    expect(Array.from(batch.values.subarray(4, 6))).toEqual([0.5, -0.5]);
    // Leaf 3 is already over: its returns, no network row.
    expect(Array.from(batch.values.subarray(6, 8), (v) => v + 0)).toEqual([0, 0]);
    // One call per ply for the playouts still running: three, then leaf 0's reply.
    expect(model.rows).toEqual([3, 1]);
    expect(Array.from(batch.policyLogits.subarray(0, 4))).toEqual([0, 1, 2, 3]);
    expect(leaves[0].history).toEqual([]); // the leaves themselves are not played on
  });

  it('is what createSearchEngine uses for policy-playout leaf values, priors from the network', async () => {
    const game = makeShowdown();
    const model = new FakeModel(game.encoder.size);
    const engine = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, settingsOf({ ...search, simulations: 1 }, { leafValues: 'policy-playouts', determinizations: 1 }));
    engine.setRoot(0, showdownState(5, 3));
    await engine.search();
    // The root's priors (one row), then its playout: seat 0 bets, seat 1 replies (two rows).
    expect(model.rows).toEqual([1, 1, 1]);
  });
});

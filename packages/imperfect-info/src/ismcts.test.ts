import { NetworkEvaluator, UniformEvaluator, playSearchConfig, type Evaluator, type LeafBatch, type SearchConfig } from '@az/mcts';
import { describe, expect, it } from 'vitest';
import { createSearchEngine } from './search-factory.js';
import { InformationSetMcts } from './ismcts.js';
import type { WorldWeigher } from './world-inference.js';
import { BET, CALL, FOLD, FakeModel, PASS, makeShowdown, networkLeaves, settingsOf, showdownState, type ShowdownState } from './test-games.js';

/** Uniform prior, zero value; records batch sizes and every leaf's state. */
class RecordingEvaluator implements Evaluator<ShowdownState> {
  readonly needsInputs = false;
  readonly sizes: number[] = [];
  readonly opponentCards = new Set<number>();
  evaluate(batch: LeafBatch<ShowdownState>): void {
    this.sizes.push(batch.count);
    for (let i = 0; i < batch.count; i++) this.opponentCards.add(batch.states[i].cards[1]);
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    batch.values.fill(0, 0, batch.count * batch.numSeats);
  }
}

/**
 * A network with one favoured action: zero values, zero logits except where `favour(state)` names an
 * action and its logit (null: uniform there).
 */
class FavouringEvaluator implements Evaluator<ShowdownState> {
  readonly needsInputs = false;
  constructor(private readonly favour: (state: ShowdownState) => { action: number; logit: number } | null) {}
  evaluate(batch: LeafBatch<ShowdownState>): void {
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    batch.values.fill(0, 0, batch.count * batch.numSeats);
    for (let i = 0; i < batch.count; i++) {
      const favoured = this.favour(batch.states[i]);
      if (favoured) batch.policyLogits[i * batch.actionSize + favoured.action] = favoured.logit;
    }
  }
}

const search = { simulations: 200, leavesPerTree: 4, seed: 3 };

describe('InformationSetMcts', () => {
  it('refuses forced playouts instead of ignoring them, and bad Gumbel settings', () => {
    const game = makeShowdown();
    expect(() => new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 1, { ...search, forcedPlayouts: 2 })).toThrow(/forced playouts/);
    expect(() => new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 1, { ...search, rootSelection: 'gumbel', gumbelConsideredActions: 0 })).toThrow(/gumbelConsideredActions must be a positive integer, got 0/);
    expect(() => new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 1, { ...search, rootSelection: 'gumbel', gumbelCScale: 0 })).toThrow(/gumbelCScale must be > 0/);
    expect(() => new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 1, { ...search, rootSelection: 'best' as never })).toThrow(/rootSelection must be 'puct' or 'gumbel', got best/);
  });

  describe('Gumbel root search (one root per information set)', () => {
    const gumbel = { ...search, rootSelection: 'gumbel' as const };

    it('halves over the observer’s actions, teaches the improved policy and plays the survivor: bet with the 8, pass with the 0', async () => {
      const engine = new InformationSetMcts(makeShowdown(), new UniformEvaluator<ShowdownState>(), 2, gumbel);
      engine.setRoot(0, showdownState(8, 9));
      engine.setRoot(1, showdownState(0, 5));
      await engine.search();
      for (const [slot, right] of [[0, BET], [1, PASS]] as const) {
        const visits = engine.visitCounts(slot, new Float32Array(4));
        // Two actions: sequential halving gives both the budget's halves, where PUCT would pile onto one.
        expect(visits[BET] + visits[PASS]).toBe(199);
        expect(Math.abs(visits[BET] - visits[PASS])).toBeLessThanOrEqual(1);
        const target = engine.policyTarget(slot, new Float32Array(4));
        expect(target[FOLD] + target[CALL]).toBe(0);
        expect(target[BET] + target[PASS]).toBeCloseTo(1, 6);
        expect(target[right]).toBeGreaterThan(0.9); // σ(completed Q) with c_visit 50 over equal priors: the better value wins the target
        expect(engine.selectedAction(slot)).toBe(right);
      }
    });

    it('draws the sampled action as Gumbel-max does: with one considered action, every visit goes to an action drawn with the prior’s odds', async () => {
      // Network: pass with logit 1 against 0, so softmax gives pass 0.731.
      const evaluator = new FavouringEvaluator((s) => (s.history.length === 0 ? { action: PASS, logit: 1 } : null));
      const slots = 400;
      const engine = new InformationSetMcts(makeShowdown(), evaluator, slots, { ...gumbel, simulations: 9, gumbelConsideredActions: 1 });
      for (let s = 0; s < slots; s++) engine.setRoot(s, showdownState(5, 1));
      await engine.search();
      let passes = 0;
      for (let s = 0; s < slots; s++) {
        const visits = engine.visitCounts(s, new Float32Array(4));
        expect(Math.max(visits[PASS], visits[BET])).toBe(8);
        expect(engine.selectedAction(s)).toBe(visits[PASS] === 8 ? PASS : BET);
        if (visits[PASS] === 8) passes++;
      }
      // Binomial(400, 0.731): mean 292.4, sd 8.9; 4.5 sd either side.
      expect(passes).toBeGreaterThan(252);
      expect(passes).toBeLessThan(333);
    });

    it('adds no Dirichlet noise (Gumbel’s noise takes its place), follows the seed, and counts each search call on its own', async () => {
      const evaluator = (): FavouringEvaluator => new FavouringEvaluator((s) => (s.history.length === 0 ? { action: PASS, logit: 5 } : null));
      const run = async (seed: number): Promise<InformationSetMcts<ShowdownState>> => {
        const engine = new InformationSetMcts(makeShowdown(), evaluator(), 4, { ...gumbel, simulations: 12, seed });
        for (let s = 0; s < 4; s++) engine.setRoot(s, showdownState(5, 1));
        await engine.search();
        return engine;
      };
      const a = await run(4);
      const b = await run(4);
      for (let s = 0; s < 4; s++) {
        expect(a.rootPriors(s)[PASS]).toBeCloseTo(1 / (1 + Math.exp(-5)), 6);
        expect(Array.from(a.policyTarget(s, new Float32Array(4)))).toEqual(Array.from(b.policyTarget(s, new Float32Array(4))));
        expect(a.selectedAction(s)).toBe(b.selectedAction(s));
      }
      const before = Array.from(a.visitCounts(0, new Float32Array(4)));
      await a.search();
      const after = Array.from(a.visitCounts(0, new Float32Array(4)));
      expect(before[PASS] + before[BET]).toBe(11);
      // The second call halves its own 12 simulations over both actions (6 each), whatever the first left.
      expect([after[PASS] - before[PASS], after[BET] - before[BET]]).toEqual([6, 6]);
    });

    it('with a budget of 1 (the root’s own evaluation) teaches the prior and plays a sample of it, as Gumbel-max does', async () => {
      const evaluator = new FavouringEvaluator((s) => (s.history.length === 0 ? { action: PASS, logit: 1 } : null));
      const slots = 400;
      const engine = new InformationSetMcts(makeShowdown(), evaluator, slots, { ...gumbel, simulations: 1 });
      for (let s = 0; s < slots; s++) engine.setRoot(s, showdownState(5, 1));
      await engine.search();
      const pass = 1 / (1 + Math.exp(-1));
      let passes = 0;
      for (let s = 0; s < slots; s++) {
        const target = engine.policyTarget(s, new Float32Array(4));
        expect(target[PASS]).toBeCloseTo(pass, 5);
        expect(target[BET]).toBeCloseTo(1 - pass, 5);
        const action = engine.selectedAction(s);
        expect([PASS, BET]).toContain(action);
        expect(engine.selectedAction(s)).toBe(action); // drawn once per search
        if (action === PASS) passes++;
      }
      expect(passes).toBeGreaterThan(252); // Binomial(400, 0.731), 4.5 sd
      expect(passes).toBeLessThan(333);
    });

    it('gives a slot searched before in the move its whole budget when another slot is fresh in the same call', async () => {
      const engine = new InformationSetMcts(makeShowdown(), new UniformEvaluator<ShowdownState>(), 2, { ...gumbel, simulations: 12 });
      engine.setRoot(0, showdownState(5, 1));
      await engine.search();
      const rootVisits = (slot: number): number => {
        const v = engine.visitCounts(slot, new Float32Array(4));
        return v[PASS] + v[BET];
      };
      expect(rootVisits(0)).toBe(11);
      engine.setRoot(1, showdownState(5, 1));
      await engine.search();
      expect(rootVisits(0)).toBe(11 + 12);
      expect(rootVisits(1)).toBe(11);
    });

    it('is what createSearchEngine builds for information-set search with rootSelection gumbel', async () => {
      const engine = createSearchEngine(makeShowdown(), { evaluator: new UniformEvaluator<ShowdownState>() }, 1, settingsOf({ ...gumbel, simulations: 20 }, { method: 'information-set', determinizations: 1 }));
      expect(engine).toBeInstanceOf(InformationSetMcts);
      engine.setRoot(0, showdownState(8, 9));
      await engine.search();
      expect(engine.selectedAction(0)).toBe(BET);
    });
  });

  it('decides from the mover’s own card over worlds sampled per simulation, never from the real hidden card', async () => {
    const game = makeShowdown();
    const engine = new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 2, search);
    engine.setRoot(0, showdownState(8, 9)); // betting wins in 8 of the 9 worlds seat 0 can imagine
    engine.setRoot(1, showdownState(0, 5)); // with the lowest card, passing is right whatever seat 1 holds
    await engine.search();
    const high = engine.visitCounts(0, new Float32Array(4));
    const low = engine.visitCounts(1, new Float32Array(4));
    expect(high[BET]).toBeGreaterThan(high[PASS]);
    expect(low[PASS]).toBeGreaterThan(low[BET]);
    // Every simulation but the one that evaluated the root goes through a root child.
    expect(high[BET] + high[PASS]).toBe(199);
  });

  it('samples a world per simulation and sends every slot’s leaves in one call per step', async () => {
    const game = makeShowdown();
    const evaluator = new RecordingEvaluator();
    const engine = new InformationSetMcts(game, evaluator, 3, { simulations: 8, leavesPerTree: 4, seed: 1 });
    for (let s = 0; s < 3; s++) engine.setRoot(s, showdownState(4, 1));
    await engine.search();
    expect(game.determinizer?.calls).toBe(24); // one world per simulation
    // The roots first (one simulation each, one call), then at most 2 steps of 3 slots x 4 simulations.
    expect(evaluator.sizes[0]).toBe(3);
    expect(evaluator.sizes.length).toBeLessThanOrEqual(3);
    for (const size of evaluator.sizes) expect(size).toBeLessThanOrEqual(12);
    expect(evaluator.opponentCards.has(4)).toBe(false); // never the mover's own card
    expect(engine.stats.simulations).toBe(24);
  });

  it('gives each slot its own budget when search is given one (playout caps)', async () => {
    const game = makeShowdown();
    const engine = new InformationSetMcts(game, new RecordingEvaluator(), 3, { simulations: 8, leavesPerTree: 4, seed: 1 });
    for (let s = 0; s < 3; s++) engine.setRoot(s, showdownState(4, 1));
    await engine.search(Int32Array.of(1, 6, 11));
    expect(game.determinizer?.calls).toBe(18); // one world per simulation
    expect(engine.stats.simulations).toBe(18);
  });

  it('is what createSearchEngine builds for method information-set, with D x S simulations', async () => {
    const game = makeShowdown();
    const evaluator = new RecordingEvaluator();
    const engine = createSearchEngine(game, { evaluator }, 1, settingsOf({ simulations: 10, leavesPerTree: 5, seed: 2 }, { method: 'information-set', determinizations: 3 }));
    expect(engine).toBeInstanceOf(InformationSetMcts);
    engine.setRoot(0, showdownState(5, 2));
    await engine.search();
    const counts = engine.visitCounts(0, new Float32Array(4));
    expect(counts[PASS] + counts[BET]).toBe(29);
  });

  it('reports terminal roots without searching them, and names a game without a determinizer', async () => {
    const game = makeShowdown();
    const engine = new InformationSetMcts(game, new UniformEvaluator<ShowdownState>(), 1, search);
    engine.setRoot(0, showdownState(7, 2, [BET, 3])); // called: seat 0 wins
    await engine.search();
    expect(Array.from(engine.rootValue(0))).toEqual([1, -1]);
    expect(engine.stats.evaluations).toBe(0);
    expect(() => new InformationSetMcts(makeShowdown({ withoutDeterminizer: true }), new UniformEvaluator<ShowdownState>(), 1)).toThrow(/showdown has no determinizer/);
  });

  describe('root Dirichlet noise', () => {
    /** Seat 0's network policy: pass almost surely (logit 5 against 0); values zero. */
    const passingEvaluator = (): FavouringEvaluator => new FavouringEvaluator((s) => (s.history.length === 0 ? { action: PASS, logit: 5 } : null));
    const networkPass = 1 / (1 + Math.exp(-5));

    async function searched(config: Partial<SearchConfig>, slots = 1): Promise<InformationSetMcts<ShowdownState>> {
      const engine = new InformationSetMcts(makeShowdown(), passingEvaluator(), slots, { simulations: 12, leavesPerTree: 4, seed: 4, ...config });
      for (let s = 0; s < slots; s++) engine.setRoot(s, showdownState(5, 1));
      await engine.search();
      return engine;
    }

    it('is off with epsilon 0 (or alpha 0): the root keeps the network’s priors and the search is the noise-free one', async () => {
      const plain = await searched({ dirichletAlpha: 0 }, 4);
      const off = await searched({ dirichletEpsilon: 0 }, 4);
      for (let s = 0; s < 4; s++) {
        expect(Array.from(off.rootPriors(s))).toEqual(Array.from(plain.rootPriors(s)));
        expect(Array.from(off.visitCounts(s, new Float32Array(4)))).toEqual(Array.from(plain.visitCounts(s, new Float32Array(4))));
        expect(Array.from(off.rootValue(s))).toEqual(Array.from(plain.rootValue(s)));
        expect(off.rootPriors(s)[PASS]).toBeCloseTo(networkPass, 6);
      }
    });

    it('is on by default (SearchConfig’s alpha 0.3, epsilon 0.25): the root priors move off the network’s, still a distribution over the legal actions only', async () => {
      const engine = await searched({}, 8);
      let moved = 0;
      for (let s = 0; s < 8; s++) {
        const priors = engine.rootPriors(s);
        expect(priors[PASS] + priors[BET]).toBeCloseTo(1, 6);
        expect([priors[FOLD], priors[CALL]]).toEqual([0, 0]); // not legal at the root
        expect(priors[PASS]).toBeGreaterThanOrEqual(0.75 * networkPass - 1e-6);
        if (Math.abs(priors[PASS] - networkPass) > 1e-3) moved++;
      }
      expect(moved).toBeGreaterThan(0);
      // Drawn per slot: the 8 roots do not all get the same noise.
      expect(new Set(Array.from({ length: 8 }, (_, s) => engine.rootPriors(s)[PASS])).size).toBeGreaterThan(1);
    });

    it('is mixed in once per move, when the root is first evaluated, and drawn afresh for the next move', async () => {
      const engine = await searched({ dirichletEpsilon: 0.5 });
      const first = Array.from(engine.rootPriors(0));
      await engine.search(); // more simulations on the same root: the same priors
      expect(Array.from(engine.rootPriors(0))).toEqual(first);
      engine.advance(0, PASS, showdownState(5, 1)); // a new move (here the same position): new noise
      expect(Array.from(engine.rootPriors(0))).toEqual([0, 0, 0, 0]);
      await engine.search();
      expect(Array.from(engine.rootPriors(0))).not.toEqual(first);
    });

    it('follows the seed: the same seed gives the same priors and visits, another seed other priors', async () => {
      const a = await searched({ seed: 9 }, 3);
      const b = await searched({ seed: 9 }, 3);
      const c = await searched({ seed: 10 }, 3);
      for (let s = 0; s < 3; s++) {
        expect(Array.from(b.rootPriors(s))).toEqual(Array.from(a.rootPriors(s)));
        expect(Array.from(b.visitCounts(s, new Float32Array(4)))).toEqual(Array.from(a.visitCounts(s, new Float32Array(4))));
      }
      expect([0, 1, 2].map((s) => c.rootPriors(s)[PASS])).not.toEqual([0, 1, 2].map((s) => a.rootPriors(s)[PASS]));
    });

    it('changes what is played: with a confident network and few simulations only the noise makes the search bet', async () => {
      const slots = 32;
      const mostVisitedBets = async (config: Partial<SearchConfig>): Promise<number> => {
        const engine = await searched(config, slots);
        let bets = 0;
        for (let s = 0; s < slots; s++) {
          const counts = engine.visitCounts(s, new Float32Array(4));
          if (counts[BET] > counts[PASS]) bets++;
        }
        return bets;
      };
      expect(await mostVisitedBets({ dirichletEpsilon: 0 })).toBe(0);
      expect(await mostVisitedBets({ dirichletAlpha: 0.3, dirichletEpsilon: 0.25 })).toBeGreaterThan(0);
    });

    it('is off in play settings (playSearchConfig) and through createSearchEngine when the config says so', async () => {
      const engine = createSearchEngine(makeShowdown(), { evaluator: passingEvaluator() }, 1, settingsOf({ ...playSearchConfig, simulations: 4, leavesPerTree: 4, seed: 1 }, { method: 'information-set', determinizations: 3 }));
      engine.setRoot(0, showdownState(5, 1));
      await engine.search();
      expect((engine as InformationSetMcts<ShowdownState>).rootPriors(0)[PASS]).toBeCloseTo(networkPass, 6);
    });
  });

  describe('priors at the other seats’ nodes', () => {
    /**
     * The network's policy for seat 1 follows seat 1's card in the world it is given (call with 5 or
     * more, else fold, almost surely); uniform for seat 0; values zero.
     */
    const cardPolicyEvaluator = (): FavouringEvaluator => new FavouringEvaluator((s) => (s.history.length === 1 ? { action: s.cards[1] >= 5 ? CALL : FOLD, logit: 20 } : null));

    /** Seat 0 holds the lowest card in every slot: seat 1 calls and wins in every world, so betting loses. */
    async function betsWithLowestCard(otherSeatPriors: 'uniform' | 'first-world', build: 'constructor' | 'createSearchEngine' = 'constructor'): Promise<number> {
      const slots = 12;
      const config = { simulations: 200, leavesPerTree: 4, seed: 5 };
      const engine =
        build === 'constructor'
          ? new InformationSetMcts(makeShowdown(), cardPolicyEvaluator(), slots, config, { otherSeatPriors })
          : createSearchEngine(makeShowdown(), { evaluator: cardPolicyEvaluator() }, slots, settingsOf({ ...config, simulations: 100 }, { method: 'information-set', determinizations: 2, otherSeatPriors }));
      for (let s = 0; s < slots; s++) engine.setRoot(s, showdownState(0, 9));
      await engine.search();
      let bets = 0;
      for (let s = 0; s < slots; s++) {
        const counts = engine.visitCounts(s, new Float32Array(4));
        if (counts[BET] > counts[PASS]) bets++;
      }
      return bets;
    }

    it('are uniform by default: seat 1’s play in the tree is learned over all worlds, so a hopeless bet is never chosen', async () => {
      expect(await betsWithLowestCard('uniform')).toBe(0);
    });

    it('with first-world priors follow the hand seat 1 held in one sampled world: seat 1 folds everywhere and seat 0 bluffs', async () => {
      // The first world of a slot gives seat 1 a card below 5 with probability 4/9; then its fold prior
      // is ~1 and PUCT never tries the call that wins in the other worlds.
      expect(await betsWithLowestCard('first-world')).toBeGreaterThan(0);
    });

    it('are passed through by createSearchEngine', async () => {
      expect(await betsWithLowestCard('first-world', 'createSearchEngine')).toBe(await betsWithLowestCard('first-world'));
      expect(await betsWithLowestCard('uniform', 'createSearchEngine')).toBe(0);
    });

    it('refuses an unknown setting', () => {
      expect(() => new InformationSetMcts(makeShowdown(), new RecordingEvaluator(), 1, search, { otherSeatPriors: 'mean' as 'uniform' })).toThrow(/otherSeatPriors/);
    });
  });

  describe('other seats moving by their policy in each world (otherSeatMoves: policy)', () => {
    /** Seat 1's policy: call with 5 or more, else fold (almost surely); uniform for seat 0; values zero. */
    const cardPolicy = (): FavouringEvaluator => new FavouringEvaluator((s) => (s.history.length === 1 ? { action: s.cards[1] >= 5 ? CALL : FOLD, logit: 20 } : null));

    /**
     * Seat 0 holds 5 in every slot. Seat 1 calling with its world's card (policy): it folds 0-4 (+0.5 for
     * seat 0) and calls 6-9 (-1), so a bet is worth (5 x 0.5 - 4) / 9 < 0 and seat 0 passes. Seat 1
     * choosing by its node's statistics over all worlds calls everywhere (calling loses 1/9 on average,
     * folding 1/2), so a bet wins (5 - 4) / 9 > 0 and seat 0 bets.
     */
    async function betsHoldingFive(otherSeatMoves: 'search' | 'policy'): Promise<{ bets: number; evaluations: number; simulations: number }> {
      const slots = 12;
      const evaluator = cardPolicy();
      const engine = new InformationSetMcts(makeShowdown(), evaluator, slots, { simulations: 400, leavesPerTree: 4, seed: 3, dirichletEpsilon: 0 }, { otherSeatMoves, otherSeatPolicy: evaluator });
      for (let s = 0; s < slots; s++) engine.setRoot(s, showdownState(5, 9));
      await engine.search();
      let bets = 0;
      for (let s = 0; s < slots; s++) {
        const counts = engine.visitCounts(s, new Float32Array(4));
        if (counts[BET] > counts[PASS]) bets++;
      }
      return { bets, evaluations: engine.stats.evaluations, simulations: engine.stats.simulations };
    }

    it('lets seat 1 play the card it holds in each world: holding the middle card, seat 0 stops betting', async () => {
      // A bet's edge is only 1/9 with 400 simulations: most slots, not all (11 of 12 at this seed).
      expect((await betsHoldingFive('search')).bets).toBeGreaterThanOrEqual(10);
      expect((await betsHoldingFive('policy')).bets).toBe(0);
    });

    it('counts the other seat’s policy evaluations with the leaves’ (same simulations, more evaluations)', async () => {
      const search = await betsHoldingFive('search');
      const policy = await betsHoldingFive('policy');
      expect(policy.simulations).toBe(search.simulations);
      // Every simulation through BET meets seat 1's node once it has priors: more evaluations than simulations.
      expect(policy.evaluations).toBeGreaterThan(search.evaluations);
    });

    it('is passed through by createSearchEngine with a network evaluator (its policy), and refused without one or unknown', async () => {
      const game = makeShowdown();
      const rowsWith = async (otherSeatMoves: 'search' | 'policy'): Promise<number> => {
        const model = new FakeModel(game.encoder.size);
        const engine = createSearchEngine(game, networkLeaves(new NetworkEvaluator<ShowdownState>(model)), 1, settingsOf({ ...search, simulations: 20 }, { method: 'information-set', otherSeatMoves }));
        engine.setRoot(0, showdownState(5, 9));
        await engine.search();
        return model.rows.reduce((a, b) => a + b, 0);
      };
      // 60 simulations: the leaves' rows alike, plus a policy row for each path through seat 1's node.
      expect(await rowsWith('policy')).toBeGreaterThan(await rowsWith('search'));
      expect(() => createSearchEngine(game, { evaluator: cardPolicy() }, 1, settingsOf(search, { method: 'information-set', otherSeatMoves: 'policy' }))).toThrow(/showdown.*network/);
      expect(() => new InformationSetMcts(game, cardPolicy(), 1, search, { otherSeatMoves: 'policy' })).toThrow(/otherSeatPolicy/);
      expect(() => new InformationSetMcts(game, cardPolicy(), 1, search, { otherSeatMoves: 'sample' as 'policy' })).toThrow(/otherSeatMoves/);
      expect(() => new InformationSetMcts(game, cardPolicy(), 1, search, { otherSeatMoves: 'policy', otherSeatPolicy: cardPolicy(), otherSeatPriors: 'first-world' })).toThrow(/first-world' has no effect/);
    });
  });

  describe('with inference over worlds', () => {
    /** Weighs worlds by the opponent's card: heavy when it is at least `from`, light otherwise. */
    class CardWeigher implements WorldWeigher<ShowdownState> {
      calls = 0;
      constructor(private readonly from: number | null) {}
      async logWeights(worlds: readonly ShowdownState[], _observers: ArrayLike<number>, out: Float64Array): Promise<void> {
        this.calls++;
        worlds.forEach((w, i) => (out[i] = this.from === null ? 0 : w.cards[1] >= this.from ? 0 : -40));
      }
    }

    it('draws every simulation’s world from the weighed pool, once weighed per move for all slots', async () => {
      const game = makeShowdown();
      const evaluator = new RecordingEvaluator();
      const weigher = new CardWeigher(7);
      // No root noise: which pool worlds the 100 simulations happen to reach is what is checked.
      const engine = new InformationSetMcts(game, evaluator, 2, { simulations: 100, leavesPerTree: 4, seed: 2, dirichletEpsilon: 0 }, { inference: { weigher, candidates: 64 } });
      engine.setRoot(0, showdownState(2, 0));
      engine.setRoot(1, showdownState(3, 0));
      await engine.search();
      expect(weigher.calls).toBe(1);
      expect(game.determinizer?.calls).toBe(128); // the pools only: simulations copy their worlds
      expect([...evaluator.opponentCards].sort()).toEqual([7, 8, 9]);
      // A new move is weighed afresh.
      engine.setRoot(0, showdownState(2, 0));
      await engine.search();
      expect(weigher.calls).toBe(2);
    });

    it('keeps sampling fresh worlds when nothing tells the worlds apart', async () => {
      const game = makeShowdown();
      const engine = new InformationSetMcts(game, new RecordingEvaluator(), 1, { simulations: 100, leavesPerTree: 4, seed: 2 }, { inference: { weigher: new CardWeigher(null), candidates: 4 } });
      engine.setRoot(0, showdownState(2, 0));
      await engine.search();
      // The 4 candidates, then a fresh world for each of the 100 simulations.
      expect(game.determinizer?.calls).toBe(104);
    });

    it('refuses a pool of no worlds', () => {
      expect(() => new InformationSetMcts(makeShowdown(), new RecordingEvaluator(), 1, search, { inference: { weigher: new CardWeigher(null), candidates: 0 } })).toThrow(/candidates must be a positive integer/);
    });
  });
});

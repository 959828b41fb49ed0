// Determinized search on Blob: the contract it relies on (legal actions agree across sampled worlds),
// that it plays legally and sensibly, and that it beats random play by a clear margin.
import { Rng, validateConfig, type Agent } from '@az/core';
import { DeterminizedMcts, InformationSetMcts, createSearchEngine, resolveSearchSettings, type SearchChoices, type SearchSettings } from '@az/imperfect-info';
import { MctsAgent, RolloutEvaluator, type Evaluator, type LeafBatch } from '@az/mcts';
import { describe, expect, it } from 'vitest';
import { BlobDeterminizer } from './determinizer.js';
import { BlobGame } from './game.js';
import { blobOutcomeMetrics, blobPlugin } from './plugin.js';
import { BID_ACTION_BASE } from './rules.js';
import { PHASE_BID, type BlobState } from './state.js';
import { makeGame, randomPlayout, setHands } from './test-helpers.js';

const ROUND = { rounds: 'one', roundCards: 5 };

/** A search of Blob with these choices. */
const blobSearch = (choices: SearchChoices): SearchSettings => resolveSearchSettings({ game: blobPlugin.traits }, choices);

function rolloutSearcher(game: BlobGame, simulations: number, seed: number, slots = 64): Agent<BlobState> {
  const engine = createSearchEngine(game, { evaluator: new RolloutEvaluator(game, seed) }, slots, blobSearch({ tree: { simulations, dirichletEpsilon: 0, nodeCapacity: 4096, seed }, determinizations: 3 }));
  return new MctsAgent('mcts', engine, game.masker.actionSize, 0, seed);
}

describe('Blob determinized search', () => {
  it('exposes its determinizer on the game, so createSearchEngine picks determinized search', () => {
    const game = makeGame(ROUND);
    expect(game.determinizer).toBeInstanceOf(BlobDeterminizer);
    expect(createSearchEngine(game, { evaluator: new RolloutEvaluator(game) }, 2, blobSearch({ determinizations: 4 }))).toBeInstanceOf(DeterminizedMcts);
  });

  it('sees the same legal actions in every sampled world as in the real state', () => {
    // Legal actions depend only on the mover's own cards and public facts, which every sample keeps:
    // this is what lets DeterminizedMcts add visit counts across worlds.
    for (const config of [ROUND, { players: 5, maxHand: 3 }, { players: 3, trump: 'turned-up', maxHand: 4 }]) {
      const game = makeGame(config);
      const rng = new Rng(11);
      const real = new Uint8Array(game.masker.actionSize);
      const sampled = new Uint8Array(game.masker.actionSize);
      for (const seed of [1, 2, 3]) {
        for (const state of randomPlayout(game, seed)) {
          if (game.isTerminal(state)) continue;
          game.masker.fillMask(state, real, 0);
          const seat = game.currentPlayer(state);
          for (let d = 0; d < 4; d++) {
            const world = game.determinizer.sample(state, seat, rng);
            expect(game.currentPlayer(world)).toBe(seat);
            game.masker.fillMask(world, sampled, 0);
            expect(Array.from(sampled)).toEqual(Array.from(real));
          }
        }
      }
    }
  });

  it('batches every world of every game into each evaluator call', async () => {
    const game = makeGame(ROUND);
    const sizes: number[] = [];
    const evaluator: Evaluator<BlobState> = {
      needsInputs: false,
      evaluate(batch: LeafBatch<BlobState>) {
        sizes.push(batch.count);
        batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
        batch.values.fill(0, 0, batch.count * batch.numSeats);
      },
    };
    const engine = createSearchEngine(game, { evaluator }, 8, blobSearch({ tree: { simulations: 30, leavesPerTree: 8, seed: 1 }, determinizations: 3 }));
    const rng = new Rng(4);
    for (let slot = 0; slot < 8; slot++) engine.setRoot(slot, game.initialState(rng));
    await engine.search();
    expect(sizes[0]).toBe(8 * 3); // every root of every world at once
    expect(Math.max(...sizes)).toBe(8 * 3 * 8);
    expect(engine.averageBatchSize).toBeGreaterThan(8 * 3 * 4);
  });

  it('bids high with the top trumps and nothing with low cards', async () => {
    const game = makeGame(ROUND);
    const agent = rolloutSearcher(game, 60, 5);
    // Round 0 trumps spades; dealer 0, so seat 1 bids first.
    const strong = game.initialState(new Rng(1));
    setHands(strong, [['2H', '3H', '4H', '5H', '6H'], ['AS', 'KS', 'QS', 'JS', '10S'], ['2C', '3C', '4C', '5C', '6C'], ['2D', '3D', '4D', '5D', '6D']]);
    const weak = game.initialState(new Rng(2));
    setHands(weak, [['AS', 'KS', 'QS', 'JS', '10S'], ['2H', '3H', '2C', '3C', '2D'], ['AH', 'KH', 'QH', 'JH', '10H'], ['AC', 'KC', 'QC', 'JC', '10C']]);
    expect(strong.phase).toBe(PHASE_BID);
    expect(strong.toAct).toBe(1);
    const [strongBid, weakBid] = await agent.act([strong, weak]);
    expect(strongBid - BID_ACTION_BASE).toBeGreaterThanOrEqual(4);
    expect(weakBid - BID_ACTION_BASE).toBe(0);
  });

  it('plays only legal actions and beats random play on mean score per round', async () => {
    // 64 single rounds, the searcher in each seat in turn (16 rounds per seat), random elsewhere.
    const game = makeGame(ROUND);
    const searcher = rolloutSearcher(game, 30, 9);
    const random = new Rng(10);
    const rng = new Rng(12);
    const rounds = 64;
    const states = Array.from({ length: rounds }, () => game.initialState(rng));
    const searchSeat = (g: number): number => g % game.numPlayers;
    const mask = new Uint8Array(game.masker.actionSize);
    let searchMoves = 0;
    for (;;) {
      const live = states.map((s, g) => g).filter((g) => !game.isTerminal(states[g]));
      if (live.length === 0) break;
      const mine = live.filter((g) => game.currentPlayer(states[g]) === searchSeat(g));
      const actions = await searcher.act(mine.map((g) => states[g]));
      mine.forEach((g, i) => {
        const legal = game.masker.fillMask(states[g], mask, 0);
        expect(legal).toBeGreaterThan(0);
        expect(mask[actions[i]], `game ${g}: ${game.formatAction(states[g], actions[i])} is illegal`).toBe(1);
        game.applyAction(states[g], actions[i], rng);
        searchMoves++;
      });
      for (const g of live) {
        if (mine.includes(g) || game.isTerminal(states[g])) continue;
        const n = game.masker.fillMask(states[g], mask, 0);
        let k = random.int(n);
        let a = 0;
        while (!mask[a] || k-- > 0) a++;
        game.applyAction(states[g], a, rng);
      }
    }
    expect(searchMoves).toBe(rounds * 6); // one bid and five cards per round
    let searchScore = 0;
    let randomScore = 0;
    let searchExact = 0;
    for (let g = 0; g < rounds; g++) {
      for (let seat = 0; seat < game.numPlayers; seat++) {
        const m = blobOutcomeMetrics(game.config, states[g], seat);
        if (seat === searchSeat(g)) {
          searchScore += m.scorePerRound;
          searchExact += m.bidAccuracy;
        } else {
          randomScore += m.scorePerRound / (game.numPlayers - 1);
        }
      }
    }
    // Random play scores about 1.8 a round (bid accuracy ~16%); the heuristic bot about 5.6.
    expect(searchScore / rounds - randomScore / rounds).toBeGreaterThan(2.5);
    expect(searchExact / rounds).toBeGreaterThan(0.4);
  });
});

describe('Blob information-set search with the other seats moving by a policy', () => {
  /** A stand-in network policy: the highest legal action, favoured; values zero. */
  class TopActionPolicy implements Evaluator<BlobState> {
    readonly needsInputs = false;
    calls = 0;
    evaluate(batch: LeafBatch<BlobState>): void {
      this.calls++;
      batch.values.fill(0, 0, batch.count * batch.numSeats);
      for (let i = 0; i < batch.count; i++) {
        const row = i * batch.actionSize;
        let top = -1;
        for (let a = 0; a < batch.actionSize; a++) {
          batch.policyLogits[row + a] = 0;
          if (batch.masks[row + a]) top = a;
        }
        batch.policyLogits[row + top] = 3;
      }
    }
  }
  interface TreeNode {
    readonly children: Map<number, TreeNode>;
    readonly visits: number;
    readonly pending: number;
  }

  /** Every node of a slot's tree (a private field: the invariants below are the tree's, not an API). */
  function nodesOf(engine: InformationSetMcts<BlobState>, slot: number): TreeNode[] {
    const root = (engine as unknown as { slots: ({ root: TreeNode } | null)[] }).slots[slot]!.root;
    const out: TreeNode[] = [];
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      out.push(node);
      stack.push(...node.children.values());
    }
    return out;
  }

  it.each(['puct', 'gumbel'] as const)('leaves no virtual visit behind and no child with more visits than its parent (%s root)', async (rootSelection) => {
    // Walks here pause several times (three other seats), reach leaves and terminals after pausing, and
    // run under Gumbel root search: what the showdown test game cannot show.
    const game = makeGame(ROUND);
    const policy = new TopActionPolicy();
    const slots = 6;
    const engine = new InformationSetMcts(game, new RolloutEvaluator(game, 1), slots, { simulations: 300, leavesPerTree: 8, seed: 2, rootSelection }, { otherSeatMoves: 'policy', otherSeatPolicy: policy });
    const rng = new Rng(9);
    const roots: BlobState[] = [];
    for (let s = 0; s < slots; s++) {
      // Roots at the first bid and a few plies into the card play.
      const state = game.initialState(rng);
      const mask = new Uint8Array(game.masker.actionSize);
      for (let ply = 0; ply < (s % 2 === 0 ? 0 : 4 + s); ply++) {
        game.masker.fillMask(state, mask, 0);
        const legal = [...mask.keys()].filter((a) => mask[a]);
        game.applyAction(state, legal[rng.int(legal.length)], rng);
      }
      roots.push(state);
      engine.setRoot(s, state);
    }
    await engine.search();
    expect(engine.stats.simulations).toBe(slots * 300);
    expect(policy.calls).toBeGreaterThan(0);
    for (let s = 0; s < slots; s++) {
      const nodes = nodesOf(engine, s);
      expect(nodes.length).toBeGreaterThan(50);
      for (const node of nodes) {
        expect(node.pending).toBe(0);
        let childVisits = 0;
        for (const child of node.children.values()) childVisits += child.visits;
        expect(childVisits).toBeLessThanOrEqual(node.visits);
      }
      // The move is one the real state allows.
      const counts = engine.visitCounts(s, new Float32Array(game.masker.actionSize));
      const mask = new Uint8Array(game.masker.actionSize);
      game.masker.fillMask(roots[s], mask, 0);
      counts.forEach((c, a) => {
        if (c > 0) expect(mask[a]).toBe(1);
      });
    }
  });
});

describe('Blob training hints', () => {
  it('train on one round of 5 cards with determinized search', () => {
    const hints = blobPlugin.training;
    expect(hints?.determinizations).toBe(3);
    expect(hints?.simulations).toBe(30);
    const config = blobPlugin.finalizeConfig?.(validateConfig(blobPlugin.configSchema, hints?.gameConfig ?? {})) ?? {};
    expect(config.rounds).toBe('one');
    expect(config.roundCards).toBe(5);
    expect(new BlobGame(config).maxGameLength).toBe(24);
  });
});

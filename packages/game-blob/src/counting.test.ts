import { Rng, type Agent } from '@az/core';
import { describe, expect, it } from 'vitest';
import { CountingAgent, CountingBidder, countingPlay } from './counting.js';
import { BlobDeterminizer } from './determinizer.js';
import { HeuristicAgent, heuristicAction } from './heuristic.js';
import { bidAction, hookedBid } from './rules.js';
import { PHASE_BID, type BlobState } from './state.js';
import { makeGame, play, setHands } from './test-helpers.js';

type Game = ReturnType<typeof makeGame>;

/**
 * Duplicate format: every deal is played twice, agent A in one seat (rotating) against three B's and
 * then B in that seat; the per-deal difference of that seat's score removes most of the deal's luck.
 */
async function duplicate(game: Game, a: Agent<BlobState>, b: Agent<BlobState>, rounds: number, seed: number): Promise<number[]> {
  const rng = new Rng(seed);
  const diffs: number[] = [];
  for (let g = 0; g < rounds; g++) {
    const deal = game.initialState(rng);
    const seat = g % 4;
    const scores: number[] = [];
    for (const hero of [a, b]) {
      const state = deal.clone();
      while (!game.isTerminal(state)) {
        const agent = state.toAct === seat ? hero : b;
        game.applyAction(state, (await agent.act([state]))[0], rng);
      }
      scores.push(state.scores[seat]);
    }
    diffs.push(scores[0] - scores[1]);
  }
  return diffs;
}

describe('CountingAgent', () => {
  it('plays legal moves, respects the hook, and acts the same in every world its view allows', async () => {
    const game = makeGame({ players: 4, maxHand: 5 });
    const agent = new CountingAgent(game.rules, 3, 8);
    const determinizer = new BlobDeterminizer();
    const rng = new Rng(6);
    const state = game.initialState(rng);
    const mask = new Uint8Array(game.masker.actionSize);
    let checked = 0;
    while (!game.isTerminal(state)) {
      game.masker.fillMask(state, mask);
      if (state.phase === PHASE_BID) {
        // Same seed, same view: the same bid in the real state and in a sampled world.
        const world = determinizer.sample(state, state.toAct, rng);
        const real = new CountingBidder(game.rules, new Rng(9), 8).bid(state);
        expect(new CountingBidder(game.rules, new Rng(9), 8).bid(world)).toBe(real);
      } else if (checked++ % 3 === 0) {
        const world = determinizer.sample(state, state.toAct, rng);
        const worldMask = new Uint8Array(game.masker.actionSize);
        game.masker.fillMask(world, worldMask);
        expect(countingPlay(world, worldMask)).toBe(countingPlay(state, mask));
      }
      const [action] = await agent.act([state]);
      expect(mask[action]).toBe(1);
      if (state.phase === PHASE_BID) expect(action).not.toBe(bidAction(hookedBid(state)));
      game.applyAction(state, action, rng);
    }
  });

  it('cashes a sure winner where the heuristic leads its strongest card', () => {
    const game = makeGame({ players: 3, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(1)); // spades trump, seat 1 bids first and leads
    setHands(state, [
      ['3D', '9H', '8C'],
      ['AH', '2S', '4C'],
      ['JH', '8H', '2H'],
    ]);
    play(game, state, ['bid 1', 'bid 0', 'bid 0']);
    const mask = new Uint8Array(game.masker.actionSize);
    game.masker.fillMask(state, mask);
    expect(game.formatAction(state, heuristicAction(game.rules, state))).toBe('2S');
    expect(game.formatAction(state, countingPlay(state, mask))).toBe('AH');
  });

  it('sheds its strongest card when, last to play with its bid made, every card wins', () => {
    const game = makeGame({ players: 3, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(1));
    setHands(state, [
      ['QH', 'KH', '5C'],
      ['2H', '3D', '4D'],
      ['3H', '5D', '6D'],
    ]);
    play(game, state, ['bid 0', 'bid 1', 'bid 0', '2H', '3H']); // seat 0 bid 0, is last, and holds only winners in hearts
    const mask = new Uint8Array(game.masker.actionSize);
    game.masker.fillMask(state, mask);
    expect(game.formatAction(state, countingPlay(state, mask))).toBe('KH');
  });

  it('bids by its hand: many with the top trumps, none with low cards', () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 5 });
    const state = game.initialState(new Rng(2)); // spades trump, seat 1 bids first
    setHands(state, [
      ['2H', '3H', '4H', '5H', '6H'],
      ['AS', 'KS', 'QS', 'JS', '10S'],
      ['2C', '3C', '4C', '5C', '6C'],
      ['2D', '3D', '4D', '5D', '6D'],
    ]);
    const bidder = new CountingBidder(game.rules, new Rng(4), 16);
    expect(bidder.bid(state)).toBeGreaterThanOrEqual(4);
    play(game, state, ['bid 5']);
    expect(bidder.bid(state)).toBe(0); // seat 2: five low clubs
  });

  it('outscores the heuristic in its seat over 300 seeded duplicate deals, seats rotating', async () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 5 });
    const diffs = await duplicate(game, new CountingAgent(game.rules, 1), new HeuristicAgent(game.rules), 300, 31);
    const mean = diffs.reduce((s, d) => s + d, 0) / diffs.length;
    const sd = Math.sqrt(diffs.reduce((s, d) => s + (d - mean) ** 2, 0) / (diffs.length - 1));
    expect(mean - (1.96 * sd) / Math.sqrt(diffs.length)).toBeGreaterThan(0);
  }, 60_000);
});

import { Rng, randomLegalAction } from '@az/core';
import { describe, expect, it } from 'vitest';
import { DECK_SIZE, cardSuit } from './cards.js';
import { BlobDeterminizer } from './determinizer.js';
import { blobEncodingLayout } from './encoding.js';
import { HeuristicAgent, heuristicAction } from './heuristic.js';
import { blobInformationState, informationKey } from './information.js';
import { bidAction, hookedBid } from './rules.js';
import { BlobState, NONE, PHASE_BID, PHASE_OVER } from './state.js';
import { makeGame, play, randomPlayout, setHands } from './test-helpers.js';

type Game = ReturnType<typeof makeGame>;

function encode(game: Game, state: BlobState, seat: number): Float32Array {
  const out = new Float32Array(game.encoder.size).fill(NaN); // NaN catches elements the encoder forgets to write
  game.encoder.encode(state, seat, out, 0);
  return out;
}

/** The encoding's bytes as a hex string: byte-identical means equal strings (and cheap to compare). */
const bytes = (a: Float32Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

/** Mid-round states (play phase, some voids shown) from random playouts. */
function interestingStates(game: Game, seed: number, count: number): BlobState[] {
  const states = randomPlayout(game, seed).filter((s) => s.phase !== PHASE_OVER);
  const withVoids = states.filter((s) => s.voidSuits.some((v) => v !== 0));
  const picks: BlobState[] = [];
  for (let i = 0; i < count; i++) {
    const pool = i % 2 === 0 && withVoids.length ? withVoids : states;
    picks.push(pool[Math.floor((i * 7919) % pool.length)]);
  }
  return picks;
}

/** Two other seats' cards swapped: a difference `seat` cannot see. */
function swapHidden(state: BlobState, seat: number): BlobState | null {
  const copy = state.clone();
  for (let a = 0; a < DECK_SIZE; a++) {
    const oa = copy.owner[a];
    if (oa === NONE || oa === seat) continue;
    for (let b = a + 1; b < DECK_SIZE; b++) {
      const ob = copy.owner[b];
      if (ob !== NONE && ob !== seat && ob !== oa) {
        copy.owner[a] = ob;
        copy.owner[b] = oa;
        return copy;
      }
    }
  }
  return null;
}

describe('information discipline', () => {
  const configs: Record<string, unknown>[] = [{ players: 4 }, { players: 5, trump: 'turned-up', maxHand: 5 }];
  for (const config of configs) {
    it(`encodes only what the seat observes (${JSON.stringify(config)})`, () => {
      const game = makeGame(config);
      const P = game.numPlayers;
      const determinizer = new BlobDeterminizer();
      const rng = new Rng(5);
      let swaps = 0;
      for (const state of interestingStates(game, 21, 12)) {
        for (let seat = 0; seat < P; seat++) {
          const mine = encode(game, state, seat);
          expect(mine.every((x) => Number.isFinite(x))).toBe(true);
          const key = informationKey(blobInformationState(state, seat));
          const hidden = swapHidden(state, seat);
          if (hidden) {
            swaps++;
            expect(bytes(encode(game, hidden, seat))).toBe(bytes(mine));
            expect(informationKey(blobInformationState(hidden, seat))).toBe(key);
          }
          const sampled = determinizer.sample(state, seat, rng);
          expect(bytes(encode(game, sampled, seat))).toBe(bytes(mine));
          expect(informationKey(blobInformationState(sampled, seat))).toBe(key);
        }
      }
      expect(swaps).toBeGreaterThan(10);
    });
  }

  it('changes the encoding when a visible fact changes', () => {
    const game = makeGame({ players: 4 });
    const [state] = interestingStates(game, 3, 1);
    const seat = 0;
    const base = bytes(encode(game, state, seat));
    // Own hand: swap one of my cards with someone else's.
    const mineSwapped = state.clone();
    const my = mineSwapped.owner.findIndex((o) => o === seat);
    const theirs = mineSwapped.owner.findIndex((o) => o !== seat && o !== NONE);
    mineSwapped.owner[my] = mineSwapped.owner[theirs];
    mineSwapped.owner[theirs] = seat;
    expect(bytes(encode(game, mineSwapped, seat))).not.toBe(base);
    // A bid, tricks won, a void, the score, the dealer: each visible.
    const edits: ((s: BlobState) => void)[] = [
      (s) => (s.bids[2] = s.bids[2] === 1 ? 2 : 1),
      (s) => s.tricksWon[3]++,
      (s) => (s.voidSuits[1] ^= 1),
      (s) => (s.scores[2] += 11),
      (s) => (s.dealer = (s.dealer + 1) % 4),
      (s) => (s.trumpSuit = (s.trumpSuit + 1) % 5),
    ];
    for (const edit of edits) {
      const changed = state.clone();
      edit(changed);
      expect(bytes(encode(game, changed, seat))).not.toBe(base);
    }
  });

  it('encodes relative to the perspective seat', () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(8));
    play(game, state, ['bid 2']); // seat 1 bids 2
    const L = blobEncodingLayout(4, 3);
    const fromSeat1 = encode(game, state, 1);
    const fromSeat3 = encode(game, state, 3);
    expect(fromSeat1[L.bids + 0 * 5 + 1 + 2]).toBe(1); // own bid at relative seat 0
    expect(fromSeat3[L.bids + 2 * 5 + 1 + 2]).toBe(1); // seat 1 is two to the left of seat 3
    expect(fromSeat1[L.dealer + 3]).toBe(1); // dealer 0 is relative seat 3 from seat 1
    expect(fromSeat1[L.toAct + 1]).toBe(1);
    expect(fromSeat1[L.phase + PHASE_BID]).toBe(1);
    expect(L.size).toBe(game.encoder.size);
    let hand = 0;
    for (let c = 0; c < DECK_SIZE; c++) hand += fromSeat1[L.hand + c];
    expect(hand).toBe(3);
  });

  it('world encoding: the own view plus every other hand at its relative seat, and the world flag', () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(9));
    play(game, state, ['bid 1', 'bid 0']);
    const L = blobEncodingLayout(4, 3);
    expect(game.worldEncoder.size).toBe(game.encoder.size);
    for (let seat = 0; seat < 4; seat++) {
      const own = encode(game, state, seat);
      const world = new Float32Array(game.encoder.size).fill(NaN);
      game.worldEncoder.encode(state, seat, world, 0);
      expect(own[L.world]).toBe(0);
      expect(world[L.world]).toBe(1);
      for (let i = 0; i < L.otherHands; i++) expect(world[i]).toBe(own[i]); // the shared planes agree
      for (let i = L.otherHands; i < L.size; i++) if (i !== L.world) expect(own[i]).toBe(0);
      for (let c = 0; c < DECK_SIZE; c++) {
        const owner = state.owner[c];
        for (let j = 1; j < 4; j++) {
          const expected = owner === (seat + j) % 4 ? 1 : 0;
          expect(world[L.otherHands + (j - 1) * DECK_SIZE + c]).toBe(expected);
        }
      }
    }
    // Hidden cards change the world encoding (that is its point) but never the own view.
    const hidden = swapHidden(state, 0);
    expect(hidden).not.toBeNull();
    const a = new Float32Array(game.encoder.size);
    const b = new Float32Array(game.encoder.size);
    game.worldEncoder.encode(state, 0, a, 0);
    game.worldEncoder.encode(hidden as BlobState, 0, b, 0);
    expect(bytes(a)).not.toBe(bytes(b));
  });
});

describe('BlobDeterminizer', () => {
  it('keeps what the seat knows and redeals the rest consistently', () => {
    for (const config of [{ players: 4 }, { players: 3, trump: 'turned-up' }]) {
      const game = makeGame(config);
      const determinizer = new BlobDeterminizer();
      const rng = new Rng(17);
      const scratch = new BlobState(game.numPlayers);
      for (const state of interestingStates(game, 9, 8)) {
        const seat = state.toAct;
        const original = state.key();
        const distinct = new Set<string>();
        for (let t = 0; t < 20; t++) {
          const sampled = determinizer.sample(state, seat, rng, scratch);
          expect(sampled).toBe(scratch);
          expect(state.key()).toBe(original); // input untouched
          let stock = 0;
          const held = new Array<number>(game.numPlayers).fill(0);
          for (let c = 0; c < DECK_SIZE; c++) {
            const o = sampled.owner[c];
            if (state.owner[c] === seat || o === seat) expect(o).toBe(state.owner[c]);
            if (state.playedBy[c] !== NONE || c === state.turnedUp) expect(o).toBe(NONE);
            if (o !== NONE) {
              held[o]++;
              expect(sampled.voidSuits[o] & (1 << cardSuit(c))).toBe(0);
            } else if (state.playedBy[c] === NONE && c !== state.turnedUp) stock++;
          }
          expect(held).toEqual(Array.from(state.handSizes));
          expect(stock).toBe(DECK_SIZE - game.numPlayers * state.cardsDealt - (state.turnedUp === NONE ? 0 : 1));
          distinct.add(Array.from(sampled.owner).join(','));
          // The sample is a real, playable state: finish the round on it.
          const play = sampled.clone();
          const r = new Rng(t);
          const round = play.round;
          while (play.round === round && play.phase !== PHASE_OVER) game.applyAction(play, randomLegalAction(game, play, r), r);
        }
        if (state.handSizes.some((n, s) => s !== seat && n > 1)) expect(distinct.size).toBeGreaterThan(1);
      }
    }
  });

  it('deals unseen cards with the right marginal frequencies', () => {
    // At the first bid nothing is revealed: each unseen card is in another hand with probability 5/47.
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 5 });
    const state = game.initialState(new Rng(1));
    const seat = state.toAct;
    const determinizer = new BlobDeterminizer();
    const rng = new Rng(2);
    const unseen = state.owner.findIndex((o) => o !== seat);
    const other = (seat + 1) % 4;
    const samples = 4000;
    let hits = 0;
    for (let t = 0; t < samples; t++) if (determinizer.sample(state, seat, rng).owner[unseen] === other) hits++;
    expect(hits / samples).toBeGreaterThan(5 / 47 - 0.02);
    expect(hits / samples).toBeLessThan(5 / 47 + 0.02);
  });

  it('respects voids: a seat void in a suit never receives it', () => {
    const game = makeGame({ players: 3, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(1));
    setHands(state, [
      ['2S', '3S', '4H'],
      ['AH', 'KH', 'QD'],
      ['5C', '6C', '7C'],
    ]);
    play(game, state, ['bid 2', 'bid 0', 'bid 0', 'AH', '5C']); // seat 2 shows a hearts void
    expect(state.voidSuits[2]).toBe(1 << 1);
    const determinizer = new BlobDeterminizer();
    const rng = new Rng(4);
    for (let t = 0; t < 200; t++) {
      const s = determinizer.sample(state, 0, rng);
      for (let c = 0; c < DECK_SIZE; c++) if (s.owner[c] === 2) expect(cardSuit(c)).not.toBe(1);
    }
  });
});

describe('HeuristicAgent', () => {
  it('plays legal moves, respects the hook, and uses only its own information', async () => {
    const game = makeGame({ players: 4, maxHand: 5 });
    const agent = new HeuristicAgent(game.rules);
    const determinizer = new BlobDeterminizer();
    const rng = new Rng(6);
    const state = game.initialState(rng);
    const mask = new Uint8Array(game.masker.actionSize);
    let checked = 0;
    while (!game.isTerminal(state)) {
      const [action] = await agent.act([state]);
      game.masker.fillMask(state, mask);
      expect(mask[action]).toBe(1);
      if (state.phase === PHASE_BID) expect(action).not.toBe(bidAction(hookedBid(state)));
      if (checked++ % 5 === 0) {
        const world = determinizer.sample(state, state.toAct, rng);
        expect(heuristicAction(game.rules, world)).toBe(action);
      }
      game.applyAction(state, action, rng);
    }
  });

  it('wins cheaply while short of its bid and ducks once it is made', () => {
    const game = makeGame({ players: 3, rounds: 'one', roundCards: 3 });
    const setup = (bid: string) => {
      const state = game.initialState(new Rng(1)); // spades trump, seat 1 leads
      setHands(state, [
        ['3D', '9H', '8C'],
        ['10H', '4C', '5C'],
        ['JH', '8H', '2H'],
      ]);
      play(game, state, ['bid 0', bid, 'bid 0', '10H']);
      return state;
    };
    expect(game.formatAction(setup('bid 1'), heuristicAction(game.rules, setup('bid 1')))).toBe('JH');
    // Bid made (0): the strongest card that still loses to the 10H.
    expect(game.formatAction(setup('bid 0'), heuristicAction(game.rules, setup('bid 0')))).toBe('8H');
  });

  it('outscores random players', async () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 5 });
    const agent = new HeuristicAgent(game.rules);
    const rng = new Rng(12);
    let heuristic = 0;
    let random = 0;
    for (let g = 0; g < 40; g++) {
      const state = game.initialState(rng);
      const seat = g % 4;
      while (!game.isTerminal(state)) {
        const action = state.toAct === seat ? (await agent.act([state]))[0] : randomLegalAction(game, state, rng);
        game.applyAction(state, action, rng);
      }
      for (let s = 0; s < 4; s++) {
        if (s === seat) heuristic += state.scores[s];
        else random += state.scores[s] / 3;
      }
    }
    expect(heuristic).toBeGreaterThan(1.5 * random);
  });
});

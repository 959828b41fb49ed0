import { ConfigError, Rng, randomLegalAction, resolveGameConfig, validateConfig, type GamePlugin } from '@az/core';
import { describe, expect, it } from 'vitest';
import { DIAMONDS, HEARTS, NO_TRUMP, SPADES, cardSuit } from './cards.js';
import { blobConfigSchema, finalizeBlobConfig, roundSchedule } from './config.js';
import { BLOB_TRAINING, blobPlugin } from './plugin.js';
import { bidAction, hookedBid, roundScore, trickWinner } from './rules.js';
import { NONE, PHASE_BID, PHASE_OVER, PHASE_PLAY, type BlobState } from './state.js';
import { card, makeGame, play, randomPlayout, threeSeatTwoCardDeal } from './test-helpers.js';

const legalBids = (game: ReturnType<typeof makeGame>, state: BlobState): number[] => {
  const mask = new Uint8Array(game.masker.actionSize);
  game.masker.fillMask(state, mask);
  const bids: number[] = [];
  for (let b = 0; b <= game.rules.maxHand; b++) if (mask[bidAction(b)]) bids.push(b);
  return bids;
};

const legalCards = (game: ReturnType<typeof makeGame>, state: BlobState): string[] => {
  const mask = new Uint8Array(game.masker.actionSize);
  game.masker.fillMask(state, mask);
  const out: string[] = [];
  for (let c = 0; c < 52; c++) if (mask[c]) out.push(game.formatAction(state, c));
  return out.sort();
};

describe('follow suit and tricks', () => {
  // Three players, one round of 2 cards; seat 0 deals, so seat 1 bids and leads first. Round 0: spades are trump.
  const setup = threeSeatTwoCardDeal;

  it('forces following the suit led when able, and only then', () => {
    const { game, state } = setup();
    expect(state.trumpSuit).toBe(SPADES);
    play(game, state, ['bid 1', 'bid 0', 'bid 0', 'AH']);
    expect(legalCards(game, state)).toEqual(['KH']);
    expect(game.parseAction(state, '3C')).toEqual({ ok: false, error: 'you must follow hearts' });
    expect(() => game.applyAction(state, card('3C'), new Rng(0))).toThrow(/you must follow hearts/);
    play(game, state, ['KH']);
    // Seat 0 has no hearts: anything goes, and failing to follow reveals the void.
    expect(legalCards(game, state)).toEqual(['4S', '5D']);
    expect(state.voidSuits[0]).toBe(0);
    play(game, state, ['4S']);
    expect(state.voidSuits[0]).toBe(1 << HEARTS);
    expect(state.tricksWon[0]).toBe(1); // the lowest trump beats the ace led
    expect(state.toAct).toBe(0); // the winner leads next
    expect(state.trickLeader).toBe(0);
    expect(legalCards(game, state)).toEqual(['5D']);
  });

  it('gives the trick to the highest trump, else the highest card of the suit led', () => {
    const t = (cards: Record<number, string>, leader: number, trump: number, players = 4): number => {
      const trick = new Int16Array(players).fill(NONE);
      for (const [seat, text] of Object.entries(cards)) trick[Number(seat)] = card(text);
      return trickWinner(trick, leader, players, trump);
    };
    // No trump: the highest of the suit led; an off-suit ace wins nothing.
    expect(t({ 0: '5H', 1: 'AS', 2: 'KH', 3: '9H' }, 0, NO_TRUMP)).toBe(2);
    expect(t({ 0: '5H', 1: 'AS', 2: 'KD', 3: '9C' }, 0, NO_TRUMP)).toBe(0);
    // Trump: the lowest trump beats the ace led; two trumps, the higher wins.
    expect(t({ 0: 'AH', 1: '2S', 2: 'KH', 3: '9H' }, 0, SPADES)).toBe(1);
    expect(t({ 0: 'AH', 1: '2S', 2: '3S', 3: 'KS' }, 0, SPADES)).toBe(3);
    // Trump led: highest trump; a side-suit ace does not win.
    expect(t({ 2: '4D', 3: 'AH', 0: '9D', 1: '3D' }, 2, DIAMONDS)).toBe(0);
    // Leader other than seat 0, nobody follows: the leader wins.
    expect(t({ 3: '2C', 0: 'AH', 1: 'AD', 2: 'KH' }, 3, NO_TRUMP)).toBe(3);
  });
});

describe('the hook', () => {
  const atDealer = (bids: number[]) => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(2));
    expect(state.dealer).toBe(0);
    expect(legalBids(game, state)).toEqual([0, 1, 2, 3]); // the first bidder is never restricted
    play(game, state, bids.map((b) => `bid ${b}`));
    expect(state.toAct).toBe(state.dealer);
    return { game, state };
  };

  it('forbids the dealer the bid that would make the total equal the cards dealt', () => {
    const { game, state } = atDealer([1, 1, 0]);
    expect(state.phase).toBe(PHASE_BID);
    expect(hookedBid(state)).toBe(1);
    expect(legalBids(game, state)).toEqual([0, 2, 3]);
    expect(game.parseAction(state, 'bid 1')).toEqual({ ok: false, error: 'the dealer may not bid 1: the bids would add up to the 3 cards dealt' });
    expect(() => game.applyAction(state, bidAction(1), new Rng(0))).toThrow(/dealer may not bid 1/);
    const zeros = atDealer([0, 0, 0]);
    expect(legalBids(zeros.game, zeros.state)).toEqual([0, 1, 2]); // forbidden value at the top of the range
  });

  it('restricts nothing when the completing number is out of range', () => {
    const { game, state } = atDealer([2, 2, 0]); // 3 - 4 = -1
    expect(hookedBid(state)).toBe(NONE);
    expect(legalBids(game, state)).toEqual([0, 1, 2, 3]);
    play(game, state, ['bid 3']);
    expect(state.phase).toBe(PHASE_PLAY);
    expect(state.toAct).toBe(1); // left of the dealer leads
  });

  it('does not restrict the other players', () => {
    const game = makeGame({ players: 4, rounds: 'one', roundCards: 3 });
    const state = game.initialState(new Rng(3));
    play(game, state, ['bid 1', 'bid 2']);
    expect(state.toAct).not.toBe(state.dealer);
    expect(legalBids(game, state)).toEqual([0, 1, 2, 3]); // seat 3 could make the total 3: allowed
  });
});

describe('round sequence, dealing and the dealer', () => {
  it('plays C..1, P rounds of 1, then 2..C', () => {
    expect(roundSchedule(7, 5)).toEqual([7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7]);
    expect(makeGame({ players: 5 }).rules.schedule).toHaveLength(18);
    expect(makeGame({ rounds: 'one', roundCards: 4 }).rules.schedule).toEqual([4]);
  });

  it('deals each round with the dealer moving left, bidding and leading from the dealer\'s left', () => {
    const game = makeGame({ players: 5, firstDealer: 2 });
    const rng = new Rng(11);
    const state = game.initialState(rng);
    const seen: { cards: number; dealer: number }[] = [];
    let round = -1;
    let moves = 0;
    while (!game.isTerminal(state)) {
      if (state.round !== round) {
        round = state.round;
        seen.push({ cards: state.cardsDealt, dealer: state.dealer });
        expect(state.phase).toBe(PHASE_BID);
        expect(state.toAct).toBe((state.dealer + 1) % 5);
        let held = 0;
        for (let s = 0; s < 5; s++) {
          let n = 0;
          for (let c = 0; c < 52; c++) if (state.owner[c] === s) n++;
          expect(n).toBe(state.cardsDealt);
          expect(state.handSizes[s]).toBe(state.cardsDealt);
          held += n;
        }
        expect(held).toBe(5 * state.cardsDealt);
      }
      if (state.phase === PHASE_PLAY && state.trickNumber === 0 && state.trickSize === 0) {
        expect(state.toAct).toBe((state.dealer + 1) % 5);
      }
      game.applyAction(state, randomLegalAction(game, state, rng), rng);
      moves++;
    }
    expect(seen.map((r) => r.cards)).toEqual([7, 6, 5, 4, 3, 2, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7]);
    expect(seen.map((r) => r.dealer)).toEqual(seen.map((_, i) => (2 + i) % 5));
    expect(moves).toBe(game.maxGameLength);
    expect(state.phase).toBe(PHASE_OVER);
  });

  it('rotates trump spades, hearts, clubs, diamonds, no trump by round', () => {
    const states = randomPlayout(makeGame({ players: 3, maxHand: 4 }), 5);
    const trumps = new Map<number, number>();
    for (const s of states) if (s.phase !== PHASE_OVER) trumps.set(s.round, s.trumpSuit);
    expect([...trumps.values()]).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
  });

  it('turns up the first undealt card for trump, and plays without trump when none is left', () => {
    const game = makeGame({ players: 4, trump: 'turned-up' });
    for (let seed = 0; seed < 5; seed++) {
      const state = game.initialState(new Rng(seed));
      expect(state.turnedUp).not.toBe(NONE);
      expect(state.owner[state.turnedUp]).toBe(NONE); // not in anyone's hand
      expect(state.trumpSuit).toBe(cardSuit(state.turnedUp));
    }
    const full = makeGame({ players: 4, maxHand: 13, trump: 'turned-up' });
    const rng = new Rng(9);
    const state = full.initialState(rng);
    expect(state.cardsDealt).toBe(13);
    expect(state.turnedUp).toBe(NONE);
    expect(state.trumpSuit).toBe(NO_TRUMP);
    while (state.round === 0) full.applyAction(state, randomLegalAction(full, state, rng), rng);
    expect(state.cardsDealt).toBe(12);
    expect(state.turnedUp).not.toBe(NONE);
    expect(state.trumpSuit).toBe(cardSuit(state.turnedUp));
  });
});

describe('scoring', () => {
  it('scores blob: 10 + bid for an exact bid, else 0', () => {
    const rules = makeGame().rules;
    expect(roundScore(rules, 0, 0)).toBe(10);
    expect(roundScore(rules, 3, 3)).toBe(13);
    expect(roundScore(rules, 3, 2)).toBe(0);
    expect(roundScore(rules, 0, 1)).toBe(0);
  });

  it('scores oh-hell: tricks + 10 for an exact bid, optionally minus the miss', () => {
    const plain = makeGame({ scoring: 'oh-hell' }).rules;
    expect(roundScore(plain, 2, 2)).toBe(12);
    expect(roundScore(plain, 3, 1)).toBe(1);
    expect(roundScore(plain, 0, 2)).toBe(2);
    const penalty = makeGame({ scoring: 'oh-hell', missPenalty: true }).rules;
    expect(roundScore(penalty, 2, 2)).toBe(12);
    expect(roundScore(penalty, 3, 1)).toBe(-1);
    expect(roundScore(penalty, 0, 2)).toBe(0);
    expect(roundScore(penalty, 4, 0)).toBe(-4);
  });

  it('adds each round\'s points to the totals', () => {
    const { game, state } = threeSeatTwoCardDeal();
    // Seat 1 bids 1, seat 2 bids 0, dealer 0 bids 0 (1 is hooked). Seat 0 trumps the AH, then leads 5D:
    // seat 1 must play 2S (trump, wins), seat 2 plays 3C.
    play(game, state, ['bid 1', 'bid 0', 'bid 0', 'AH', 'KH', '4S', '5D', '2S', '3C']);
    expect(game.isTerminal(state)).toBe(true);
    expect(Array.from(state.tricksWon)).toEqual([1, 1, 0]);
    expect(Array.from(state.scores)).toEqual([0, 11, 10]);
    expect(Array.from(state.lastRoundScores)).toEqual([0, 11, 10]);
    expect(Array.from(state.exactBids)).toEqual([0, 1, 1]);
  });
});

describe('config', () => {
  const finalize = (raw: Record<string, unknown>) => finalizeBlobConfig(validateConfig(blobConfigSchema, raw));
  const fieldOf = (raw: Record<string, unknown>): string => {
    try {
      finalize(raw);
    } catch (e) {
      if (e instanceof ConfigError) return e.field;
      throw e;
    }
    return '(accepted)';
  };

  it('derives maxHand: the largest C <= 7 with C * players <= 52', () => {
    expect(finalize({}).maxHand).toBe(7);
    expect(finalize({ players: 7 }).maxHand).toBe(7);
    expect(finalize({ players: 8 }).maxHand).toBe(6);
    expect(finalize({ players: '3', maxHand: '17' }).maxHand).toBe(17);
    expect(finalize({ rounds: 'one', roundCards: 3 }).maxHand).toBe(3);
    expect(finalize(finalize({ players: 8 })).maxHand).toBe(6); // idempotent
  });

  it('rejects bad configs naming the field', () => {
    expect(fieldOf({ players: 8, maxHand: 7 })).toBe('maxHand');
    expect(fieldOf({ players: 4, maxHand: 14 })).toBe('maxHand');
    expect(fieldOf({ players: 9 })).toBe('players');
    expect(fieldOf({ players: 2 })).toBe('players');
    expect(fieldOf({ trump: 'random' })).toBe('trump');
    expect(fieldOf({ scoring: 'bridge' })).toBe('scoring');
    expect(fieldOf({ missPenalty: true })).toBe('missPenalty'); // only with oh-hell
    expect(fieldOf({ missPenalty: true, scoring: 'oh-hell' })).toBe('(accepted)');
    expect(fieldOf({ rounds: 'one', players: 8, roundCards: 7 })).toBe('roundCards');
    expect(fieldOf({ rounds: 'one', roundCards: 6, maxHand: 5 })).toBe('roundCards');
    expect(fieldOf({ firstDealer: 4 })).toBe('firstDealer');
    expect(fieldOf({ decks: 2 })).toBe('decks');
    expect(() => finalize({ players: 8, maxHand: 7 })).toThrow(/maxHand 7 with 8 players needs 56 cards/);
  });

  it('refuses roundCards without rounds=one, where it would be ignored; its default and rounds=one keep working', () => {
    expect(fieldOf({ roundCards: 3 })).toBe('roundCards'); // rounds=game by default
    expect(fieldOf({ rounds: 'sampled', roundCards: '3' })).toBe('roundCards');
    expect(() => finalize({ rounds: 'game', roundCards: 3 })).toThrow(
      "game 'blob' config: roundCards 3 only applies with rounds=one (rounds is game, whose hands follow maxHand); set rounds=one or leave roundCards out",
    );
    expect(() => resolveGameConfig(blobPlugin as GamePlugin, { roundCards: 4 })).toThrow(ConfigError);
    expect(fieldOf({ rounds: 'one', roundCards: 3 })).toBe('(accepted)');
    for (const rounds of ['game', 'sampled', undefined]) expect(fieldOf(rounds ? { rounds } : {})).toBe('(accepted)');
    // A resolved config (roundCards at its default) resolves again, as a model's or a record's does.
    expect(finalize(finalize({ rounds: 'sampled', players: 5 })).rounds).toBe('sampled');
    // The training unit (rounds=one, roundCards=5) under a user's rounds=game, as az train merges them.
    expect(fieldOf({ ...BLOB_TRAINING.gameConfig, rounds: 'game' })).toBe('(accepted)');
  });

  it('sizes the action space and game length from the config', () => {
    const game = makeGame();
    expect(game.masker.actionSize).toBe(52 + 7 + 1);
    expect(game.maxGameLength).toBe(304);
    expect(game.traits.maxGameLength).toBe(304);
    expect(makeGame({ players: 3, rounds: 'one', roundCards: 5 }).maxGameLength).toBe(3 * 6);
  });
});

import type { Agent } from '@az/core';
import { DECK_SIZE, NO_TRUMP, cardRank, cardSuit } from './cards.js';
import type { BlobRules } from './config.js';
import { BID_ACTION_BASE, actionSpaceSize, beats, fillLegalMask, hookedBid } from './rules.js';
import { BlobState, NONE, PHASE_BID, PHASE_PLAY } from './state.js';

const QUEEN = 10;
const TEN = 8;
const KING = 11;
const ACE = 12;

/**
 * Expected tricks from a hand, by counting high cards and trumps (a rule of thumb, not a model):
 * trump Q/K/A count 1, trump 10/J 0.5, lower trumps 0.25 (they win when a suit runs out);
 * a side-suit ace 0.85 (it may be trumped), a side-suit king 0.4 when guarded by another card of its
 * suit, else 0.2.
 */
export function estimateTricks(state: BlobState, seat: number): number {
  const trump = state.trumpSuit;
  const suitLength = [0, 0, 0, 0];
  for (let c = 0; c < DECK_SIZE; c++) if (state.owner[c] === seat) suitLength[cardSuit(c)]++;
  let estimate = 0;
  for (let c = 0; c < DECK_SIZE; c++) {
    if (state.owner[c] !== seat) continue;
    const suit = cardSuit(c);
    const rank = cardRank(c);
    if (trump !== NO_TRUMP && suit === trump) estimate += rank >= QUEEN ? 1 : rank >= TEN ? 0.5 : 0.25;
    else if (rank === ACE) estimate += 0.85;
    else if (rank === KING) estimate += suitLength[suit] >= 2 ? 0.4 : 0.2;
  }
  return estimate;
}

/** The estimate rounded into 0..cards; if the hook forbids it, the nearest allowed bid (lower on ties). */
export function heuristicBid(state: BlobState): number {
  const estimate = estimateTricks(state, state.toAct);
  const cards = state.cardsDealt;
  let bid = Math.min(cards, Math.max(0, Math.round(estimate)));
  const hooked = hookedBid(state);
  if (bid === hooked) {
    const down = bid - 1;
    const up = bid + 1;
    if (down < 0) bid = up;
    else if (up > cards) bid = down;
    else bid = estimate - down <= up - estimate ? down : up;
  }
  return bid;
}

/** Ordering for "cheap" and "strong": any trump is worth more than any side card, then by rank. */
function strength(card: number, trump: number): number {
  return (cardSuit(card) === trump ? 100 : 0) + cardRank(card);
}

/**
 * Plays to make the bid exactly: while short of it, win as cheaply as possible (lead the strongest
 * card; when following, the cheapest card that beats the trick so far, else dump the cheapest);
 * once the bid is made, duck (lead the cheapest card; when following, the strongest card that still
 * loses, else the cheapest).
 */
export function heuristicPlay(state: BlobState, mask: Uint8Array): number {
  const seat = state.toAct;
  const trump = state.trumpSuit;
  const wantTricks = state.bids[seat] - state.tricksWon[seat] > 0;

  let winning = NONE;
  for (let i = 0; i < state.trickSize; i++) {
    const card = state.trickCards[(state.trickLeader + i) % state.numPlayers];
    if (winning === NONE || beats(card, winning, trump)) winning = card;
  }

  let cheapest = NONE;
  let strongest = NONE;
  let cheapestWinner = NONE;
  let strongestLoser = NONE;
  for (let c = 0; c < DECK_SIZE; c++) {
    if (!mask[c]) continue;
    const s = strength(c, trump);
    if (cheapest === NONE || s < strength(cheapest, trump)) cheapest = c;
    if (strongest === NONE || s > strength(strongest, trump)) strongest = c;
    if (winning === NONE) continue;
    if (beats(c, winning, trump)) {
      if (cheapestWinner === NONE || s < strength(cheapestWinner, trump)) cheapestWinner = c;
    } else if (strongestLoser === NONE || s > strength(strongestLoser, trump)) {
      strongestLoser = c;
    }
  }
  if (winning === NONE) return wantTricks ? strongest : cheapest;
  if (wantTricks) return cheapestWinner !== NONE ? cheapestWinner : cheapest;
  return strongestLoser !== NONE ? strongestLoser : cheapest;
}

/** The heuristic's action for the seat to act. Reads only that seat's hand and public information. */
export function heuristicAction(rules: BlobRules, state: BlobState, mask: Uint8Array = new Uint8Array(actionSpaceSize(rules))): number {
  if (state.phase === PHASE_BID) return BID_ACTION_BASE + heuristicBid(state);
  if (state.phase !== PHASE_PLAY) throw new Error('blob heuristic: the game is over');
  fillLegalMask(rules, state, mask, 0);
  return heuristicPlay(state, mask);
}

/** The `heuristic` bot: counted-high-card bids, plays to make its bid exactly. Deterministic. */
export class HeuristicAgent implements Agent<BlobState> {
  readonly name = 'heuristic';
  private readonly mask: Uint8Array;

  constructor(private readonly rules: BlobRules) {
    this.mask = new Uint8Array(actionSpaceSize(rules));
  }

  async act(states: readonly BlobState[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) out[i] = heuristicAction(this.rules, states[i], this.mask);
    return out;
  }
}

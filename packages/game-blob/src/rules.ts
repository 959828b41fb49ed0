import type { Rng } from '@az/core';
import { CLUBS, DECK_SIZE, DIAMONDS, HEARTS, NO_TRUMP, RANKS, SPADES, SUIT_NAMES, cardRank, cardSuit, formatCard } from './cards.js';
import type { BlobRules } from './config.js';
import { BlobState, NONE, PHASE_BID, PHASE_OVER, PHASE_PLAY } from './state.js';

/**
 * The action space: actions 0..51 play that card; action 52 + b bids b (b = 0..maxHand).
 * The mask allows only the current phase's actions, enforcing follow-suit and the hook.
 */
export const BID_ACTION_BASE = DECK_SIZE;

export function bidAction(bid: number): number {
  return BID_ACTION_BASE + bid;
}

export function isBidAction(action: number): boolean {
  return action >= BID_ACTION_BASE;
}

export function actionSpaceSize(rules: BlobRules): number {
  return BID_ACTION_BASE + rules.maxHand + 1;
}

/** Trump by round index (mod 5) in the default 'rotation' variant. */
export const TRUMP_ROTATION: readonly number[] = [SPADES, HEARTS, CLUBS, DIAMONDS, NO_TRUMP];

/**
 * A new game: scores at zero, round 0 dealt with `rng`. With `rounds=sampled` the round is drawn
 * uniformly from the whole game's schedule first (one `rng.int`), so every round of a game, with its
 * cards, trump and dealer, is a training example as often as it occurs in a game.
 */
export function newGame(rules: BlobRules, rng: Rng): BlobState {
  const state = new BlobState(rules.players);
  state.scores.fill(0);
  state.lastRoundScores.fill(0);
  state.exactBids.fill(0);
  state.previousTrick.fill(NONE);
  state.previousTrickWinner = NONE;
  state.round = rules.rounds === 'sampled' ? rng.int(rules.schedule.length) : 0;
  state.moveCount = 0;
  startRound(rules, state, rng);
  return state;
}

// Scratch deck for dealing (deals are synchronous, so one module-level buffer is safe).
const deck = new Uint8Array(DECK_SIZE);

/** Deals round `state.round`: shuffles the whole deck and deals one card at a time from the dealer's left. */
export function startRound(rules: BlobRules, state: BlobState, rng: Rng): void {
  const P = rules.players;
  const cards = rules.schedule[state.round];
  state.owner.fill(NONE);
  state.playedBy.fill(NONE);
  state.playedInTrick.fill(NONE);
  state.bids.fill(NONE);
  state.tricksWon.fill(0);
  state.trickCards.fill(NONE);
  state.voidSuits.fill(0);
  state.handSizes.fill(cards);
  state.cardsDealt = cards;
  state.dealer = (rules.firstDealer + state.round) % P;

  for (let c = 0; c < DECK_SIZE; c++) deck[c] = c;
  rng.shuffle(deck);
  const dealt = cards * P;
  for (let i = 0; i < dealt; i++) state.owner[deck[i]] = (state.dealer + 1 + i) % P;

  if (rules.trump === 'rotation') {
    state.trumpSuit = TRUMP_ROTATION[state.round % TRUMP_ROTATION.length];
    state.turnedUp = NONE;
  } else if (dealt < DECK_SIZE) {
    state.turnedUp = deck[dealt];
    state.trumpSuit = cardSuit(state.turnedUp);
  } else {
    state.turnedUp = NONE; // no card left to turn up: the round is played without trump
    state.trumpSuit = NO_TRUMP;
  }

  state.phase = PHASE_BID;
  state.toAct = (state.dealer + 1) % P;
  state.trickLeader = state.toAct;
  state.trickNumber = 0;
  state.trickSize = 0;
  state.ledSuit = NONE;
  state.lastTrickWinner = NONE;
}

/**
 * The hook: the bid the seat to act may not make (the dealer, bidding last, may not make the total of
 * bids equal the cards dealt), or NONE when nothing is forbidden (not the dealer, or the number that
 * would complete the total is outside 0..cards).
 */
export function hookedBid(state: Pick<BlobState, 'phase' | 'toAct' | 'dealer' | 'numPlayers' | 'bids' | 'cardsDealt'>): number {
  if (state.phase !== PHASE_BID || state.toAct !== state.dealer) return NONE;
  let others = 0;
  for (let s = 0; s < state.numPlayers; s++) if (s !== state.dealer) others += state.bids[s];
  const completing = state.cardsDealt - others;
  return completing >= 0 && completing <= state.cardsDealt ? completing : NONE;
}

/** Why the dealer may not make the hooked bid, in words for a player. */
export function hookReason(bid: number, cardsDealt: number): string {
  return `the dealer may not bid ${bid}: the bids would add up to the ${cardsDealt} card${cardsDealt === 1 ? '' : 's'} dealt`;
}

/** Whether `seat` holds a card of `suit`. */
export function holdsSuit(state: BlobState, seat: number, suit: number): boolean {
  const base = suit * RANKS;
  for (let r = 0; r < RANKS; r++) if (state.owner[base + r] === seat) return true;
  return false;
}

/** Why `action` is illegal now, in words for a person, or null when it is legal. */
export function illegalReason(rules: BlobRules, state: BlobState, action: number): string | null {
  if (state.phase === PHASE_OVER) return 'the game is over';
  if (!(Number.isInteger(action) && action >= 0 && action < actionSpaceSize(rules))) {
    return `action ${action} is outside the action space 0..${actionSpaceSize(rules) - 1}`;
  }
  if (state.phase === PHASE_BID) {
    if (!isBidAction(action)) return `it is time to bid, not to play a card: bid 0..${state.cardsDealt}`;
    const bid = action - BID_ACTION_BASE;
    if (bid > state.cardsDealt) return `a bid must be 0..${state.cardsDealt} (${state.cardsDealt} cards this round)`;
    if (bid === hookedBid(state)) return hookReason(bid, state.cardsDealt);
    return null;
  }
  if (isBidAction(action)) return 'bidding is over: play a card';
  if (state.owner[action] !== state.toAct) return `you don't hold ${formatCard(action)}`;
  const led = state.ledSuit;
  if (led !== NONE && cardSuit(action) !== led && holdsSuit(state, state.toAct, led)) return `you must follow ${SUIT_NAMES[led]}`;
  return null;
}

/** Writes the legal-action mask (1 legal, 0 not) at `out[offset..offset+actionSize)`; returns the legal count. */
export function fillLegalMask(rules: BlobRules, state: BlobState, out: Uint8Array, offset = 0): number {
  const size = actionSpaceSize(rules);
  out.fill(0, offset, offset + size);
  if (state.phase === PHASE_OVER) return 0;
  let count = 0;
  if (state.phase === PHASE_BID) {
    const hooked = hookedBid(state);
    for (let bid = 0; bid <= state.cardsDealt; bid++) {
      if (bid === hooked) continue;
      out[offset + BID_ACTION_BASE + bid] = 1;
      count++;
    }
    return count;
  }
  const seat = state.toAct;
  const led = state.ledSuit;
  // Follow suit if able: restrict to the led suit when the seat holds any.
  if (led !== NONE) {
    const base = led * RANKS;
    for (let r = 0; r < RANKS; r++) {
      if (state.owner[base + r] === seat) {
        out[offset + base + r] = 1;
        count++;
      }
    }
    if (count > 0) return count;
  }
  for (let c = 0; c < DECK_SIZE; c++) {
    if (state.owner[c] === seat) {
      out[offset + c] = 1;
      count++;
    }
  }
  return count;
}

/**
 * The winner of a complete trick: the highest trump if any trump was played, else the highest card
 * of the suit led. `trickCards[seat]` is each seat's card; play went round from `leader`.
 */
export function trickWinner(trickCards: ArrayLike<number>, leader: number, numPlayers: number, trumpSuit: number): number {
  let winner = leader;
  let best = trickCards[leader];
  for (let i = 1; i < numPlayers; i++) {
    const seat = (leader + i) % numPlayers;
    const card = trickCards[seat];
    if (beats(card, best, trumpSuit)) {
      best = card;
      winner = seat;
    }
  }
  return winner;
}

/** Whether `card` beats `best`, the card currently winning a trick (whose suit is led or trump). */
export function beats(card: number, best: number, trumpSuit: number): boolean {
  const suit = cardSuit(card);
  const bestSuit = cardSuit(best);
  if (suit === bestSuit) return cardRank(card) > cardRank(best);
  return suit === trumpSuit; // an off-suit card wins only as a trump over a non-trump
}

/** Points for one round: blob = 10 + bid for an exact bid, else 0; oh-hell = tricks + 10 if exact (minus the miss, with missPenalty). */
export function roundScore(rules: BlobRules, bid: number, tricks: number): number {
  const exact = bid === tricks;
  if (rules.scoring === 'blob') return exact ? 10 + bid : 0;
  if (exact) return tricks + 10;
  return rules.missPenalty ? tricks - Math.abs(bid - tricks) : tricks;
}

/** Applies a legal action in place; throws (with the reason) on an illegal one. `rng` deals the next round. */
export function applyBlobAction(rules: BlobRules, state: BlobState, action: number, rng: Rng): void {
  const reason = illegalReason(rules, state, action);
  if (reason !== null) throw new Error(`blob: illegal action ${action}: ${reason}`);
  const P = state.numPlayers;
  const seat = state.toAct;
  state.moveCount++;

  if (state.phase === PHASE_BID) {
    state.bids[seat] = action - BID_ACTION_BASE;
    if (seat === state.dealer) {
      state.phase = PHASE_PLAY;
      state.toAct = (state.dealer + 1) % P;
      state.trickLeader = state.toAct;
    } else {
      state.toAct = (seat + 1) % P;
    }
    return;
  }

  const card = action;
  const suit = cardSuit(card);
  state.owner[card] = NONE;
  state.playedBy[card] = seat;
  state.playedInTrick[card] = state.trickNumber;
  state.handSizes[seat]--;
  state.trickCards[seat] = card;
  if (state.trickSize === 0) state.ledSuit = suit;
  else if (suit !== state.ledSuit) state.voidSuits[seat] |= 1 << state.ledSuit; // failing to follow reveals a void
  state.trickSize++;

  if (state.trickSize < P) {
    state.toAct = (seat + 1) % P;
    return;
  }

  const winner = trickWinner(state.trickCards, state.trickLeader, P, state.trumpSuit);
  state.tricksWon[winner]++;
  state.lastTrickWinner = winner;
  state.trickNumber++;
  if (state.trickNumber === state.cardsDealt) {
    // The next deal wipes this round's cards: keep its last trick for display.
    state.previousTrick.set(state.trickCards);
    state.previousTrickWinner = winner;
  }
  state.trickCards.fill(NONE);
  state.trickSize = 0;
  state.ledSuit = NONE;
  state.toAct = winner;
  state.trickLeader = winner;
  if (state.trickNumber === state.cardsDealt) finishRound(rules, state, rng);
}

function finishRound(rules: BlobRules, state: BlobState, rng: Rng): void {
  for (let s = 0; s < state.numPlayers; s++) {
    const points = roundScore(rules, state.bids[s], state.tricksWon[s]);
    state.scores[s] += points;
    state.lastRoundScores[s] = points;
    if (state.bids[s] === state.tricksWon[s]) state.exactBids[s]++;
  }
  if (rules.rounds === 'sampled') {
    state.phase = PHASE_OVER; // one round of the game; `round` keeps saying which
    return;
  }
  state.round++;
  if (state.round >= rules.schedule.length) {
    state.phase = PHASE_OVER;
    return;
  }
  startRound(rules, state, rng);
}

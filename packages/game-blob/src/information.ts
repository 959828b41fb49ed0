import { DECK_SIZE } from './cards.js';
import type { BlobPhase, BlobState } from './state.js';

/**
 * What one seat knows (the spec's "What each player observes"): its own hand, the trump and turned-up
 * card, every bid, every card played this round with who played it and in which trick, tricks won,
 * hand sizes, revealed voids, scores, who deals and who is to act. Not included: other hands and the
 * undealt cards. Earlier rounds are summarized by the scores: the deck is reshuffled every round, so
 * nothing else about them bears on the future.
 *
 * Seats here are absolute (the encoder makes them relative).
 */
export interface BlobInformationState {
  readonly seat: number;
  readonly numPlayers: number;
  readonly round: number;
  readonly cardsDealt: number;
  readonly dealer: number;
  readonly trumpSuit: number;
  /** The turned-up card, or -1. */
  readonly turnedUp: number;
  readonly phase: BlobPhase;
  readonly toAct: number;
  readonly trickLeader: number;
  readonly trickNumber: number;
  /** Suit led to the trick in progress, or -1. */
  readonly ledSuit: number;
  readonly lastTrickWinner: number;
  /** The seat's own cards, ascending. */
  readonly hand: Int16Array;
  readonly bids: Int16Array;
  readonly tricksWon: Int16Array;
  readonly handSizes: Int16Array;
  readonly trickCards: Int16Array;
  /** [52] who played each card this round, or -1. */
  readonly playedBy: Int16Array;
  /** [52] in which trick each card was played this round, or -1. */
  readonly playedInTrick: Int16Array;
  /** Per seat, bitmask of suits it has shown it lacks this round. */
  readonly voidSuits: Int16Array;
  readonly scores: Int16Array;
  readonly lastRoundScores: Int16Array;
  /** Per seat, finished rounds in which it took exactly its bid. */
  readonly exactBids: Int16Array;
  /** Per seat, its card in the last trick of the round before, or -1 (first round); and who took that trick. */
  readonly previousTrick: Int16Array;
  readonly previousTrickWinner: number;
}

export function blobInformationState(state: BlobState, seat: number): BlobInformationState {
  if (!(Number.isInteger(seat) && seat >= 0 && seat < state.numPlayers)) {
    throw new RangeError(`blob: seat must be 0..${state.numPlayers - 1}, got ${seat}`);
  }
  const hand: number[] = [];
  for (let c = 0; c < DECK_SIZE; c++) if (state.owner[c] === seat) hand.push(c);
  return {
    seat,
    numPlayers: state.numPlayers,
    round: state.round,
    cardsDealt: state.cardsDealt,
    dealer: state.dealer,
    trumpSuit: state.trumpSuit,
    turnedUp: state.turnedUp,
    phase: state.phase,
    toAct: state.toAct,
    trickLeader: state.trickLeader,
    trickNumber: state.trickNumber,
    ledSuit: state.ledSuit,
    lastTrickWinner: state.lastTrickWinner,
    hand: Int16Array.from(hand),
    bids: state.bids.slice(),
    tricksWon: state.tricksWon.slice(),
    handSizes: state.handSizes.slice(),
    trickCards: state.trickCards.slice(),
    playedBy: state.playedBy.slice(),
    playedInTrick: state.playedInTrick.slice(),
    voidSuits: state.voidSuits.slice(),
    scores: state.scores.slice(),
    lastRoundScores: state.lastRoundScores.slice(),
    exactBids: state.exactBids.slice(),
    previousTrick: state.previousTrick.slice(),
    previousTrickWinner: state.previousTrickWinner,
  };
}

/** A stable string for an information state: equal knowledge, equal keys. */
export function informationKey(info: BlobInformationState): string {
  const scalars = [
    info.seat,
    info.numPlayers,
    info.round,
    info.cardsDealt,
    info.dealer,
    info.trumpSuit,
    info.turnedUp,
    info.phase,
    info.toAct,
    info.trickLeader,
    info.trickNumber,
    info.ledSuit,
    info.lastTrickWinner,
    info.previousTrickWinner,
  ];
  const arrays = [
    info.hand,
    info.bids,
    info.tricksWon,
    info.handSizes,
    info.trickCards,
    info.playedBy,
    info.playedInTrick,
    info.voidSuits,
    info.scores,
    info.lastRoundScores,
    info.exactBids,
    info.previousTrick,
  ];
  return scalars.join(',') + '|' + arrays.map((a) => a.join(',')).join('|');
}

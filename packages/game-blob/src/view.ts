import type { CardTableView } from '@az/core';
import { DECK_SIZE, NO_TRUMP, SUIT_LETTERS, formatCard } from './cards.js';
import type { BlobInformationState } from './information.js';
import { NONE, PHASE_BID, PHASE_PLAY } from './state.js';

/**
 * The card table for graphical front ends, built from one seat's information state only (so it
 * cannot show another seat's cards). `legal` lists the seat's legal actions when it is to act.
 */
export function blobTableView(info: BlobInformationState, legal: readonly { action: number; label: string }[]): CardTableView {
  const P = info.numPlayers;
  const trick: { seat: number; card: string }[] = [];
  if (info.phase === PHASE_PLAY) {
    for (let k = 0; k < P; k++) {
      const seat = (info.trickLeader + k) % P;
      const card = info.trickCards[seat];
      if (card !== NONE) trick.push({ seat, card: formatCard(card) });
    }
  }
  const lastTrick: { seat: number; card: string }[] = [];
  if (info.trickNumber > 0) {
    for (let c = 0; c < DECK_SIZE; c++) if (info.playedInTrick[c] === info.trickNumber - 1) lastTrick.push({ seat: info.playedBy[c], card: formatCard(c) });
    lastTrick.sort((a, b) => a.seat - b.seat);
  }
  return {
    kind: 'cards',
    seat: info.seat,
    numPlayers: P,
    phase: info.phase === PHASE_BID ? 'bid' : info.phase === PHASE_PLAY ? 'play' : 'over',
    toAct: info.toAct,
    round: info.round,
    cardsDealt: info.cardsDealt,
    dealer: info.dealer,
    hand: Array.from(info.hand, formatCard),
    trump: info.trumpSuit === NO_TRUMP ? null : SUIT_LETTERS[info.trumpSuit],
    turnedUp: info.turnedUp === NONE ? null : formatCard(info.turnedUp),
    bids: Array.from(info.bids, (b) => (b === NONE ? null : b)),
    tricksWon: Array.from(info.tricksWon),
    handSizes: Array.from(info.handSizes),
    trick,
    lastTrick,
    lastTrickWinner: info.lastTrickWinner === NONE ? null : info.lastTrickWinner,
    scores: Array.from(info.scores),
    lastRoundScores: Array.from(info.lastRoundScores),
    legal,
  };
}

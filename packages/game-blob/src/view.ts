import type { CardTableView } from '@az/core';
import { DECK_SIZE, NO_TRUMP, SUIT_LETTERS, formatCard } from './cards.js';
import type { BlobInformationState } from './information.js';
import { formatBlobAction } from './notation.js';
import { BID_ACTION_BASE, hookReason, hookedBid } from './rules.js';
import { NONE, PHASE_BID, PHASE_PLAY } from './state.js';

/**
 * The card table for graphical front ends, built from one seat's information state only (so it
 * cannot show another seat's cards). `legal` lists the seat's legal actions when it is to act, and
 * `refused` the bid the hook forbids the dealer. Until a trick of the round is done, the last trick
 * shown is the round before's (`lastTrickRound`): the deal would otherwise hide how that round ended.
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
  let lastTrickWinner = info.lastTrickWinner;
  let lastTrickRound: number | undefined;
  if (info.trickNumber > 0) {
    for (let c = 0; c < DECK_SIZE; c++) if (info.playedInTrick[c] === info.trickNumber - 1) lastTrick.push({ seat: info.playedBy[c], card: formatCard(c) });
    lastTrick.sort((a, b) => a.seat - b.seat);
  } else if (info.previousTrickWinner !== NONE) {
    // No trick done yet this round: the last one of the round before, which the deal took off the table.
    for (let seat = 0; seat < P; seat++) if (info.previousTrick[seat] !== NONE) lastTrick.push({ seat, card: formatCard(info.previousTrick[seat]) });
    lastTrickWinner = info.previousTrickWinner;
    lastTrickRound = info.round - 1;
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
    lastTrickWinner: lastTrickWinner === NONE ? null : lastTrickWinner,
    ...(lastTrickRound !== undefined ? { lastTrickRound } : {}),
    scores: Array.from(info.scores),
    lastRoundScores: Array.from(info.lastRoundScores),
    legal,
    ...(refusedBid(info)),
  };
}

/** The dealer's bid the hook forbids, when the viewing seat is the dealer about to bid: shown disabled, with why. */
function refusedBid(info: BlobInformationState): { refused?: { label: string; reason: string }[] } {
  const hooked = info.toAct === info.seat ? hookedBid(info) : NONE;
  if (hooked === NONE) return {};
  return { refused: [{ label: formatBlobAction(BID_ACTION_BASE + hooked), reason: hookReason(hooked, info.cardsDealt) }] };
}

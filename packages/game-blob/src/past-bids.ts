import type { PastDecision } from '@az/core';
import { DECK_SIZE } from './cards.js';
import { BID_ACTION_BASE } from './rules.js';
import { NONE, PHASE_BID, type BlobState } from './state.js';

/**
 * `Game.pastDecisions` for Blob: the bids of the seats other than `observer` in the current round,
 * each rebuilt in `world` as the state in which it was made (every card played this round back in
 * the hand that played it, the bids before it, nothing played yet). Bids are what a Blob player says
 * about its cards; inference over sampled worlds weighs each world by how likely the bidders' hands in
 * it make their bids.
 */
export function pastBids(world: BlobState, observer: number): PastDecision<BlobState>[] {
  const P = world.numPlayers;
  const out: PastDecision<BlobState>[] = [];
  const first = (world.dealer + 1) % P;
  if (world.bids[first] === NONE) return out;
  const dealt = world.clone();
  for (let c = 0; c < DECK_SIZE; c++) if (world.playedBy[c] !== NONE) dealt.owner[c] = world.playedBy[c];
  dealt.playedBy.fill(NONE);
  dealt.playedInTrick.fill(NONE);
  dealt.bids.fill(NONE);
  dealt.tricksWon.fill(0);
  dealt.handSizes.fill(world.cardsDealt);
  dealt.trickCards.fill(NONE);
  dealt.voidSuits.fill(0);
  dealt.phase = PHASE_BID;
  dealt.trickLeader = first;
  dealt.trickNumber = 0;
  dealt.trickSize = 0;
  dealt.ledSuit = NONE;
  dealt.lastTrickWinner = NONE;
  for (let k = 0; k < P; k++) {
    const seat = (first + k) % P;
    const bid = world.bids[seat];
    if (bid === NONE) break;
    if (seat !== observer) {
      const state = dealt.clone();
      state.toAct = seat;
      out.push({ state, seat, action: BID_ACTION_BASE + bid });
    }
    dealt.bids[seat] = bid;
  }
  return out;
}

import { Rng, type Agent } from '@az/core';
import { DECK_SIZE, NO_TRUMP, RANKS, cardRank, cardSuit } from './cards.js';
import type { BlobRules } from './config.js';
import { BlobDeterminizer } from './determinizer.js';
import { heuristicBid } from './heuristic.js';
import { BID_ACTION_BASE, actionSpaceSize, applyBlobAction, beats, fillLegalMask, hookedBid, roundScore, trickWinner } from './rules.js';
import { BlobState, NONE, PHASE_BID, PHASE_PLAY } from './state.js';

/** Sampled deals per bid decision of the `counting` bot. */
export const COUNTING_BID_SAMPLES = 24;

/**
 * Card counting from what `seat` has seen: `unseen[c]` is 1 for each card that is neither in the
 * seat's hand, nor played, nor the turned-up card (it may be in another hand or in the stock).
 */
function fillUnseen(state: BlobState, seat: number, unseen: Uint8Array): void {
  for (let c = 0; c < DECK_SIZE; c++) unseen[c] = state.owner[c] !== seat && state.playedBy[c] === NONE && c !== state.turnedUp ? 1 : 0;
}

/** Unseen cards of `suit` ranked above `rank`. */
function unseenAbove(unseen: Uint8Array, suit: number, rank: number): number {
  let n = 0;
  for (let r = rank + 1; r < RANKS; r++) n += unseen[suit * RANKS + r];
  return n;
}

function unseenOfSuit(unseen: Uint8Array, suit: number): number {
  return unseenAbove(unseen, suit, -1);
}

/** Ordering for "cheap" and "strong": any trump is worth more than any side card, then by rank. */
function strength(card: number, trump: number): number {
  return (cardSuit(card) === trump ? 100 : 0) + cardRank(card);
}

/**
 * Whether `card`, once on the trick (beating what is there), can still be beaten by a seat that plays
 * after it, by what the mover has seen: a higher unseen card of its suit, or (for a side card) an
 * unseen trump when a later seat has shown it cannot follow the suit led.
 */
function canBeOvertaken(state: BlobState, card: number, unseen: Uint8Array, laterSeats: readonly number[]): boolean {
  if (laterSeats.length === 0) return false;
  const suit = cardSuit(card);
  const trump = state.trumpSuit;
  if (unseenAbove(unseen, suit, cardRank(card)) > 0) return true;
  if (suit === trump || trump === NO_TRUMP || unseenOfSuit(unseen, trump) === 0) return false;
  for (const s of laterSeats) if (state.voidSuits[s] & (1 << suit)) return true;
  return false;
}

/**
 * The `counting` bot's play: the heuristic's aim (make the bid exactly) with exact counting of the
 * cards seen. While short of its bid it cashes sure winners (no unseen card can beat them), and when
 * following wins with the cheapest card nobody after it can overtake; once the bid is made it leads
 * the card with the most unseen cards above it, and when it must take a trick anyway (last to play)
 * it sheds its strongest card. Reads only the mover's hand and public play.
 */
export function countingPlay(state: BlobState, mask: Uint8Array, unseen: Uint8Array = new Uint8Array(DECK_SIZE)): number {
  const seat = state.toAct;
  const P = state.numPlayers;
  const trump = state.trumpSuit;
  const wantTricks = state.bids[seat] - state.tricksWon[seat] > 0;
  fillUnseen(state, seat, unseen);
  const laterSeats: number[] = [];
  for (let i = state.trickSize + 1; i < P; i++) laterSeats.push((state.trickLeader + i) % P);

  let winning = NONE;
  for (let i = 0; i < state.trickSize; i++) {
    const card = state.trickCards[(state.trickLeader + i) % P];
    if (winning === NONE || beats(card, winning, trump)) winning = card;
  }

  let cheapest = NONE;
  let strongest = NONE;
  let cheapestSafeWinner = NONE;
  let cheapestWinner = NONE;
  let strongestLoser = NONE;
  let safestLead = NONE;
  let safestLeadScore = -1;
  for (let c = 0; c < DECK_SIZE; c++) {
    if (!mask[c]) continue;
    const s = strength(c, trump);
    if (cheapest === NONE || s < strength(cheapest, trump)) cheapest = c;
    if (strongest === NONE || s > strength(strongest, trump)) strongest = c;
    const beatsTrick = winning === NONE || beats(c, winning, trump);
    if (beatsTrick) {
      if (!canBeOvertaken(state, c, unseen, laterSeats) && (cheapestSafeWinner === NONE || s < strength(cheapestSafeWinner, trump))) cheapestSafeWinner = c;
      if (winning !== NONE && (cheapestWinner === NONE || s < strength(cheapestWinner, trump))) cheapestWinner = c;
    } else if (strongestLoser === NONE || s > strength(strongestLoser, trump)) {
      strongestLoser = c;
    }
    if (winning === NONE) {
      // Ducking lead: the more unseen cards above it (and a side suit, which trumps can also beat), the safer.
      const score = unseenAbove(unseen, cardSuit(c), cardRank(c)) * 2 + (cardSuit(c) === trump ? 0 : 1);
      if (score > safestLeadScore || (score === safestLeadScore && s < strength(safestLead, trump))) {
        safestLead = c;
        safestLeadScore = score;
      }
    }
  }
  if (winning === NONE) {
    if (wantTricks) return cheapestSafeWinner !== NONE ? cheapestSafeWinner : strongest;
    return safestLead;
  }
  if (wantTricks) {
    if (cheapestSafeWinner !== NONE) return cheapestSafeWinner;
    return cheapestWinner !== NONE ? cheapestWinner : cheapest;
  }
  if (strongestLoser !== NONE) return strongestLoser;
  // Every card wins the trick so far: last to play, it is won anyway, so shed the strongest card.
  return laterSeats.length === 0 ? strongest : cheapest;
}

/**
 * The `counting` bot's bid: for each allowed bid, the expected round score over `samples` deals of the
 * unseen cards consistent with the seat's view (`BlobDeterminizer`), the later bidders bidding as the
 * heuristic does and every seat then playing `countingPlay`; the best bid wins (ties to the lower).
 * Only the seat's own cards and public facts go in; the sampled hands stand for what it cannot see.
 */
export class CountingBidder {
  private readonly determinizer = new BlobDeterminizer();
  private readonly mask: Uint8Array;
  private readonly unseen = new Uint8Array(DECK_SIZE);
  private readonly trick: Int16Array;
  private world: BlobState | undefined;
  private sim: BlobState | undefined;

  constructor(
    private readonly rules: BlobRules,
    private readonly rng: Rng,
    readonly samples = COUNTING_BID_SAMPLES,
  ) {
    this.mask = new Uint8Array(actionSpaceSize(rules));
    this.trick = new Int16Array(rules.players);
  }

  bid(state: BlobState): number {
    if (state.phase !== PHASE_BID) throw new Error('blob counting bot: not the bidding phase');
    const seat = state.toAct;
    const cards = state.cardsDealt;
    const hooked = hookedBid(state);
    const total = new Float64Array(cards + 1);
    for (let n = 0; n < this.samples; n++) {
      this.world = this.determinizer.sample(state, seat, this.rng, this.world);
      for (let b = 0; b <= cards; b++) {
        if (b === hooked) continue;
        total[b] += roundScore(this.rules, b, this.tricksWith(this.world, seat, b));
      }
    }
    let best = NONE;
    for (let b = 0; b <= cards; b++) if (b !== hooked && (best === NONE || total[b] > total[best])) best = b;
    return best;
  }

  /** Tricks `seat` takes in `world` after bidding `bid`, the rest of the round played out by the rules above. */
  private tricksWith(world: BlobState, seat: number, bid: number): number {
    const sim = (this.sim = this.sim ? this.sim.copyFrom(world) : world.clone());
    const { rules, mask, rng } = this;
    const P = sim.numPlayers;
    applyBlobAction(rules, sim, BID_ACTION_BASE + bid, rng);
    while (sim.phase === PHASE_BID) applyBlobAction(rules, sim, BID_ACTION_BASE + heuristicBid(sim), rng);
    const lastTrick = sim.cardsDealt - 1;
    for (;;) {
      fillLegalMask(rules, sim, mask, 0);
      const card = countingPlay(sim, mask, this.unseen);
      if (sim.trickNumber === lastTrick && sim.trickSize === P - 1) {
        // The round's last card: settle the trick here, before the rules score the round and deal the next.
        this.trick.set(sim.trickCards);
        this.trick[sim.toAct] = card;
        const winner = trickWinner(this.trick, sim.trickLeader, P, sim.trumpSuit);
        return sim.tricksWon[seat] + (winner === seat ? 1 : 0);
      }
      applyBlobAction(rules, sim, card, rng);
    }
  }
}

/**
 * The `counting` bot: bids by simulating its hand over sampled deals (`CountingBidder`), plays by
 * `countingPlay`. A stronger rule-based baseline than `heuristic`; deterministic for a given seed.
 */
export class CountingAgent implements Agent<BlobState> {
  readonly name = 'counting';
  private readonly mask: Uint8Array;
  private readonly unseen = new Uint8Array(DECK_SIZE);
  private readonly bidder: CountingBidder;

  constructor(
    private readonly rules: BlobRules,
    seed = 0,
    samples = COUNTING_BID_SAMPLES,
  ) {
    this.mask = new Uint8Array(actionSpaceSize(rules));
    this.bidder = new CountingBidder(rules, new Rng(`counting:${seed}`), samples);
  }

  async act(states: readonly BlobState[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) {
      const state = states[i];
      if (state.phase === PHASE_BID) out[i] = BID_ACTION_BASE + this.bidder.bid(state);
      else if (state.phase === PHASE_PLAY) {
        fillLegalMask(this.rules, state, this.mask, 0);
        out[i] = countingPlay(state, this.mask, this.unseen);
      } else throw new Error('blob counting bot: the game is over');
    }
    return out;
  }
}

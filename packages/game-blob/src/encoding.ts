import type { Encoder, Masker } from '@az/core';
import { DECK_SIZE, SUITS } from './cards.js';
import type { BlobRules } from './config.js';
import { actionSpaceSize, fillLegalMask } from './rules.js';
import { BlobState, NONE, PHASE_BID, PHASE_PLAY } from './state.js';
import { scoreRange, scoreToValue, type ScoreRange } from './value.js';

/**
 * Offsets of the planes of the flat encoding, for P players and maxHand M. "Relative seat j" is seat
 * (perspective + j) mod P, so the perspective seat is always j = 0 and one network serves every seat.
 * Every plane holds only what the perspective seat observes (the spec's "What each player observes").
 */
export interface BlobEncodingLayout {
  /** [52] 1 for each card in the perspective seat's hand. */
  readonly hand: number;
  /** [5] one-hot trump: spades, hearts, clubs, diamonds, no trump. */
  readonly trump: number;
  /** [52] one-hot turned-up card (all 0 in the rotation variant or when no card was left). */
  readonly turnedUp: number;
  /** [P x (M + 2)] per relative seat: index 0 = has not bid yet, 1 + b = bid b. */
  readonly bids: number;
  /** [P x 52] per relative seat: the card it played to the trick in progress. */
  readonly currentTrick: number;
  /** [P x 52] per relative seat: every card it has played this round (including the current trick). */
  readonly played: number;
  /** [P] tricks won this round / M. */
  readonly tricksWon: number;
  /** [P] (bid - tricks won) / M once the seat has bid, else 0: tricks still wanted (negative = over). */
  readonly tricksNeeded: number;
  /** [P x 4] 1 where a relative seat has shown a void (failed to follow that suit) this round. */
  readonly voids: number;
  /** [M] one-hot cards dealt this round (index c - 1). */
  readonly cardsDealt: number;
  /** [P] one-hot relative seat of the dealer. */
  readonly dealer: number;
  /** [P] one-hot relative seat to act (all 0 when the game is over). */
  readonly toAct: number;
  /** [P] one-hot relative seat that leads the trick in progress (play phase only). */
  readonly leader: number;
  /** [4] one-hot suit led to the trick in progress. */
  readonly ledSuit: number;
  /** [2] one-hot phase: bidding, playing. */
  readonly phase: number;
  /** [P] total score of each relative seat, scaled like the values (see value.ts). */
  readonly scores: number;
  /** [1] rounds finished / rounds in the game. */
  readonly progress: number;
  /**
   * [(P - 1) x 52] world encoding only (all 0 in the own view): relative seat j (1..P-1) holds the card,
   * at `(j - 1) * 52 + card`. Filled only from a full state a determinizer sampled.
   */
  readonly otherHands: number;
  /** [1] 1 in the world encoding, 0 in the own view: tells the network which of the two it reads. */
  readonly world: number;
  /** Total floats. */
  readonly size: number;
}

export function blobEncodingLayout(players: number, maxHand: number): BlobEncodingLayout {
  let at = 0;
  const take = (n: number): number => {
    const start = at;
    at += n;
    return start;
  };
  const P = players;
  const layout = {
    hand: take(DECK_SIZE),
    trump: take(SUITS + 1),
    turnedUp: take(DECK_SIZE),
    bids: take(P * (maxHand + 2)),
    currentTrick: take(P * DECK_SIZE),
    played: take(P * DECK_SIZE),
    tricksWon: take(P),
    tricksNeeded: take(P),
    voids: take(P * SUITS),
    cardsDealt: take(maxHand),
    dealer: take(P),
    toAct: take(P),
    leader: take(P),
    ledSuit: take(SUITS),
    phase: take(2),
    scores: take(P),
    progress: take(1),
    otherHands: take((P - 1) * DECK_SIZE),
    world: take(1),
    size: 0,
  };
  layout.size = at;
  return layout;
}

/**
 * Flat encoding, shape [size]; see `BlobEncodingLayout` for the planes. Two modes of one layout, so
 * one network reads both: the own view (`world = false`, `game.encoder`: what the seat observes, the
 * other hands all 0) and the world view (`world = true`, `game.worldEncoder`: the same planes plus
 * every other seat's hand and the world flag, for states sampled by the determinizer).
 */
export class BlobEncoder implements Encoder<BlobState> {
  readonly version = 'blob-v2';
  readonly shape: readonly number[];
  readonly size: number;
  readonly layout: BlobEncodingLayout;
  private readonly range: ScoreRange;

  constructor(
    private readonly rules: BlobRules,
    /** Encode the other seats' hands too (only for sampled worlds; see the class comment). */
    readonly world = false,
  ) {
    this.layout = blobEncodingLayout(rules.players, rules.maxHand);
    this.size = this.layout.size;
    this.shape = [this.size];
    this.range = scoreRange(rules);
  }

  encode(state: BlobState, perspective: number, out: Float32Array, offset: number): void {
    const P = this.rules.players;
    const M = this.rules.maxHand;
    if (!(Number.isInteger(perspective) && perspective >= 0 && perspective < P)) {
      throw new RangeError(`blob: perspective must be a seat 0..${P - 1}, got ${perspective}`);
    }
    const L = this.layout;
    const o = offset;
    out.fill(0, o, o + L.size);
    const rel = (seat: number): number => (seat - perspective + P) % P;

    // Own view: own hand only, other seats' cards are never read (information discipline).
    const world = this.world;
    for (let c = 0; c < DECK_SIZE; c++) {
      const owner = state.owner[c];
      if (owner === perspective) out[o + L.hand + c] = 1;
      else if (world && owner >= 0 && owner < P) out[o + L.otherHands + (rel(owner) - 1) * DECK_SIZE + c] = 1;
      const by = state.playedBy[c];
      if (by !== NONE) out[o + L.played + rel(by) * DECK_SIZE + c] = 1;
    }
    out[o + L.trump + state.trumpSuit] = 1;
    if (state.turnedUp !== NONE) out[o + L.turnedUp + state.turnedUp] = 1;

    for (let s = 0; s < P; s++) {
      const j = rel(s);
      const bid = state.bids[s];
      out[o + L.bids + j * (M + 2) + (bid === NONE ? 0 : 1 + bid)] = 1;
      const card = state.trickCards[s];
      if (card !== NONE) out[o + L.currentTrick + j * DECK_SIZE + card] = 1;
      out[o + L.tricksWon + j] = state.tricksWon[s] / M;
      if (bid !== NONE) out[o + L.tricksNeeded + j] = (bid - state.tricksWon[s]) / M;
      const voids = state.voidSuits[s];
      for (let k = 0; k < SUITS; k++) if (voids & (1 << k)) out[o + L.voids + j * SUITS + k] = 1;
      out[o + L.scores + j] = scoreToValue(state.scores[s], this.range);
    }
    if (state.cardsDealt >= 1) out[o + L.cardsDealt + state.cardsDealt - 1] = 1;
    out[o + L.dealer + rel(state.dealer)] = 1;
    if (state.phase === PHASE_BID || state.phase === PHASE_PLAY) {
      out[o + L.toAct + rel(state.toAct)] = 1;
      out[o + L.phase + state.phase] = 1;
    }
    if (state.phase === PHASE_PLAY) out[o + L.leader + rel(state.trickLeader)] = 1;
    if (state.ledSuit !== NONE) out[o + L.ledSuit + state.ledSuit] = 1;
    out[o + L.progress] = state.round / this.rules.schedule.length;
    if (world) out[o + L.world] = 1;
  }
}

export class BlobMasker implements Masker<BlobState> {
  readonly actionSize: number;

  constructor(private readonly rules: BlobRules) {
    this.actionSize = actionSpaceSize(rules);
  }

  fillMask(state: BlobState, out: Uint8Array, offset = 0): number {
    return fillLegalMask(this.rules, state, out, offset);
  }
}

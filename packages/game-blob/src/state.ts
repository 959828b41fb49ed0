import { DECK_SIZE, NO_TRUMP } from './cards.js';

/** Marks "nobody" / "not yet" in the arrays below. */
export const NONE = -1;

export const PHASE_BID = 0;
export const PHASE_PLAY = 1;
export const PHASE_OVER = 2;
export type BlobPhase = typeof PHASE_BID | typeof PHASE_PLAY | typeof PHASE_OVER;

/**
 * A Blob position. Every array is a view into one Int16Array (`data`), so `clone` is one buffer copy
 * plus a handful of scalars: search clones at every node.
 *
 * Card-indexed arrays cover the current round only: the deck is reshuffled every round, so earlier
 * rounds matter to the future only through `scores`.
 */
export class BlobState {
  readonly numPlayers: number;
  readonly data: Int16Array;
  /** [52] Seat holding each card, or NONE (undealt, the turned-up card, or already played). Hidden from others. */
  readonly owner: Int16Array;
  /** [52] Seat that played each card this round, or NONE. Public. */
  readonly playedBy: Int16Array;
  /** [52] Trick (0-based, this round) in which each card was played, or NONE. Public. */
  readonly playedInTrick: Int16Array;
  /** [P] Bid of each seat this round, NONE until it has bid. */
  readonly bids: Int16Array;
  /** [P] Tricks each seat has won this round. */
  readonly tricksWon: Int16Array;
  /** [P] Cards each seat still holds. Public (everyone sees how many cards a player holds). */
  readonly handSizes: Int16Array;
  /** [P] Card each seat has played to the trick in progress, or NONE. */
  readonly trickCards: Int16Array;
  /** [P] Bitmask of suits each seat has shown it lacks this round (it failed to follow them). */
  readonly voidSuits: Int16Array;
  /** [P] Total score over the finished rounds. */
  readonly scores: Int16Array;
  /** [P] Points scored in the last finished round (for display). */
  readonly lastRoundScores: Int16Array;
  /** [P] Finished rounds in which the seat took exactly its bid (for outcome metrics). */
  readonly exactBids: Int16Array;
  /**
   * [P] The card each seat played to the last trick of the round before, or NONE (first round). For
   * display only (the deal wipes the round's cards, so a page could never show that trick): the rules,
   * the encodings and `key` never read it. Public.
   */
  readonly previousTrick: Int16Array;

  /** Round index, 0-based. */
  round = 0;
  /** Cards dealt to each player this round. */
  cardsDealt = 0;
  dealer = 0;
  /** 0..3, or NO_TRUMP. */
  trumpSuit = NO_TRUMP;
  /** The turned-up card (trump variant 'turned-up'), or NONE. */
  turnedUp = NONE;
  phase: BlobPhase = PHASE_BID;
  /** Seat to act (bid or play). */
  toAct = 0;
  /** Seat that led (or will lead) the trick in progress. */
  trickLeader = 0;
  /** Trick in progress, 0-based within the round. */
  trickNumber = 0;
  /** Cards played to the trick in progress. */
  trickSize = 0;
  /** Suit led to the trick in progress, or NONE before the lead. */
  ledSuit = NONE;
  /** Winner of the last completed trick this round, or NONE. */
  lastTrickWinner = NONE;
  /** Actions applied since the start of the game. */
  moveCount = 0;
  /** Who took the last trick of the round before, or NONE; for display, as `previousTrick`. */
  previousTrickWinner = NONE;
  /** How many entries of `data` make the position (`key`); the display-only `previousTrick` follows them. */
  private readonly positionSize: number;

  constructor(numPlayers: number, data?: Int16Array) {
    this.numPlayers = numPlayers;
    const P = numPlayers;
    this.data = data ?? new Int16Array(3 * DECK_SIZE + 9 * P);
    let at = 0;
    const view = (n: number): Int16Array => {
      const v = this.data.subarray(at, at + n);
      at += n;
      return v;
    };
    this.owner = view(DECK_SIZE);
    this.playedBy = view(DECK_SIZE);
    this.playedInTrick = view(DECK_SIZE);
    this.bids = view(P);
    this.tricksWon = view(P);
    this.handSizes = view(P);
    this.trickCards = view(P);
    this.voidSuits = view(P);
    this.scores = view(P);
    this.lastRoundScores = view(P);
    this.exactBids = view(P);
    this.positionSize = at;
    this.previousTrick = view(P);
  }

  clone(): BlobState {
    const copy = new BlobState(this.numPlayers, this.data.slice());
    copy.copyScalarsFrom(this);
    return copy;
  }

  /** Makes this state equal to `source` (same number of players) without allocating. */
  copyFrom(source: BlobState): this {
    if (source.numPlayers !== this.numPlayers) throw new RangeError(`blob: cannot copy a ${source.numPlayers}-player state into a ${this.numPlayers}-player one`);
    this.data.set(source.data);
    this.copyScalarsFrom(source);
    return this;
  }

  private copyScalarsFrom(s: BlobState): void {
    this.round = s.round;
    this.cardsDealt = s.cardsDealt;
    this.dealer = s.dealer;
    this.trumpSuit = s.trumpSuit;
    this.turnedUp = s.turnedUp;
    this.phase = s.phase;
    this.toAct = s.toAct;
    this.trickLeader = s.trickLeader;
    this.trickNumber = s.trickNumber;
    this.trickSize = s.trickSize;
    this.ledSuit = s.ledSuit;
    this.lastTrickWinner = s.lastTrickWinner;
    this.moveCount = s.moveCount;
    this.previousTrickWinner = s.previousTrickWinner;
  }

  /** Every field of the position (all but the display-only previous trick), for hashing and equality. */
  key(): string {
    return (
      `${this.round},${this.cardsDealt},${this.dealer},${this.trumpSuit},${this.turnedUp},${this.phase},${this.toAct},` +
      `${this.trickLeader},${this.trickNumber},${this.trickSize},${this.ledSuit},${this.lastTrickWinner},${this.moveCount}|${this.data.subarray(0, this.positionSize).join(',')}`
    );
  }
}

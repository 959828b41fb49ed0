/**
 * Cards: index = suit * 13 + rank, suits in the order spades, hearts, clubs, diamonds, rank 0 = the 2
 * and 12 = the ace (see /work/shared/specs/blob-rules.md).
 */
export const DECK_SIZE = 52;
export const SUITS = 4;
export const RANKS = 13;

export const SPADES = 0;
export const HEARTS = 1;
export const CLUBS = 2;
export const DIAMONDS = 3;
/** The "trump suit" of a round played without trump. */
export const NO_TRUMP = 4;

export const SUIT_NAMES: readonly string[] = ['spades', 'hearts', 'clubs', 'diamonds'];
export const SUIT_LETTERS: readonly string[] = ['S', 'H', 'C', 'D'];
export const SUIT_SYMBOLS: readonly string[] = ['♠', '♥', '♣', '♦'];
export const RANK_NAMES: readonly string[] = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];

export function cardSuit(card: number): number {
  return (card / RANKS) | 0;
}

export function cardRank(card: number): number {
  return card % RANKS;
}

export function makeCard(suit: number, rank: number): number {
  return suit * RANKS + rank;
}

/** `QS`, `10H`, `2D`: rank then suit letter. */
export function formatCard(card: number): string {
  if (!(Number.isInteger(card) && card >= 0 && card < DECK_SIZE)) throw new RangeError(`not a card index: ${card}`);
  return RANK_NAMES[cardRank(card)] + SUIT_LETTERS[cardSuit(card)];
}

/** `Q♠`, for tables meant for people. */
export function formatCardSymbol(card: number): string {
  return RANK_NAMES[cardRank(card)] + SUIT_SYMBOLS[cardSuit(card)];
}

const SUIT_BY_CHAR: Readonly<Record<string, number>> = {
  s: SPADES,
  '♠': SPADES,
  '♤': SPADES,
  h: HEARTS,
  '♥': HEARTS,
  '♡': HEARTS,
  c: CLUBS,
  '♣': CLUBS,
  '♧': CLUBS,
  d: DIAMONDS,
  '♦': DIAMONDS,
  '♢': DIAMONDS,
};

const RANK_BY_TEXT: Readonly<Record<string, number>> = {
  ...Object.fromEntries(RANK_NAMES.map((name, rank) => [name.toLowerCase(), rank])),
  t: 8, // T for ten, as in most card notations
};

/**
 * Reads a card written rank-then-suit, case-insensitive, suit as a letter or symbol:
 * `QS`, `qs`, `10h`, `T♠`, `7♦`, `Q S`. Returns -1 if the text is not a card.
 */
export function parseCard(text: string): number {
  // U+FE0F (emoji presentation selector) often follows a pasted suit symbol; it carries no meaning.
  const m = /^(10|[2-9tjqka])\s*([shcd♠♤♥♡♣♧♦♢])$/iu.exec(text.trim().replace(/\uFE0F/gu, ''));
  if (!m) return -1;
  const rank = RANK_BY_TEXT[m[1].toLowerCase()];
  const suit = SUIT_BY_CHAR[m[2].toLowerCase()];
  return rank === undefined || suit === undefined ? -1 : makeCard(suit, rank);
}

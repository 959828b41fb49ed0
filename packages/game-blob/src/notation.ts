import type { ParsedAction } from '@az/core';
import { DECK_SIZE, NO_TRUMP, RANK_NAMES, SUITS, SUIT_NAMES, SUIT_SYMBOLS, cardRank, cardSuit, formatCard, formatCardSymbol, parseCard } from './cards.js';
import type { BlobRules } from './config.js';
import { BID_ACTION_BASE, bidAction, illegalReason, isBidAction } from './rules.js';
import { BlobState, NONE, PHASE_BID, PHASE_OVER, PHASE_PLAY } from './state.js';

/** Cards as `QS`, `10H`; bids as `bid 2`. */
export function formatBlobAction(action: number): string {
  if (isBidAction(action)) return `bid ${action - BID_ACTION_BASE}`;
  return formatCard(action);
}

/**
 * Reads a move typed by a person: a card (`QS`, `10h`, `7♦`, `qs`, `T♠`) or a bid (`2`, `bid 2`).
 * Legal notation that is illegal now is refused with the reason (follow suit, the hook, ...).
 */
export function parseBlobAction(rules: BlobRules, state: BlobState, text: string): ParsedAction {
  const trimmed = text.trim();
  if (state.phase === PHASE_OVER) return { ok: false, error: 'the game is over' };
  let action: number;
  const bidMatch = /^(?:bid\s*)?(\d+)$/i.exec(trimmed);
  if (bidMatch) {
    const bid = Number(bidMatch[1]);
    if (state.phase === PHASE_BID && bid > state.cardsDealt) {
      return { ok: false, error: `a bid must be 0..${state.cardsDealt} (${state.cardsDealt} cards this round)` };
    }
    if (bid > rules.maxHand) {
      return { ok: false, error: state.phase === PHASE_PLAY ? 'bidding is over: play a card' : `a bid must be 0..${rules.maxHand}` };
    }
    action = bidAction(bid);
  } else {
    const card = parseCard(trimmed);
    if (card < 0) {
      return { ok: false, error: `'${trimmed}' is not a move: enter a card like QS, 10h or 7♦, or a bid like 'bid 2'` };
    }
    action = card;
  }
  const reason = illegalReason(rules, state, action);
  return reason === null ? { ok: true, action } : { ok: false, error: reason };
}

function seatLabel(seat: number, perspective: number | undefined): string {
  return seat === perspective ? `seat ${seat} (you)` : `seat ${seat}`;
}

/** A hand sorted by suit (spades, hearts, clubs, diamonds), high to low: `♠ A Q 7  ♥ 10 4  ♦ K`. */
export function formatHand(cards: readonly number[]): string {
  const parts: string[] = [];
  for (let suit = 0; suit < SUITS; suit++) {
    const ranks = cards.filter((c) => cardSuit(c) === suit).map(cardRank).sort((a, b) => b - a);
    if (ranks.length) parts.push(`${SUIT_SYMBOLS[suit]} ${ranks.map((r) => RANK_NAMES[r]).join(' ')}`);
  }
  return parts.length ? parts.join('  ') : '(no cards)';
}

function handOf(state: BlobState, seat: number): number[] {
  const cards: number[] = [];
  for (let c = 0; c < DECK_SIZE; c++) if (state.owner[c] === seat) cards.push(c);
  return cards;
}

function trumpText(state: BlobState): string {
  const suit = state.trumpSuit === NO_TRUMP ? 'no trump' : SUIT_NAMES[state.trumpSuit];
  return state.turnedUp === NONE ? suit : `${suit} (turned up ${formatCardSymbol(state.turnedUp)})`;
}

/**
 * A table for people. With a perspective, only what that seat may see: its own hand, and for the
 * others only how many cards they hold. Without one, every hand (for debugging and spectators).
 */
export function renderBlob(rules: BlobRules, state: BlobState, perspective?: number): string {
  const P = state.numPlayers;
  const lines: string[] = [];
  const over = state.phase === PHASE_OVER;
  const roundNo = Math.min(state.round + 1, rules.schedule.length);
  lines.push(
    `Blob, round ${roundNo} of ${rules.schedule.length}: ${state.cardsDealt} card${state.cardsDealt === 1 ? '' : 's'} each, trump ${trumpText(state)}, dealer ${seatLabel(state.dealer, perspective)}` +
      (over ? ' (game over)' : ''),
  );
  lines.push('');
  const header = ['seat', 'bid', 'won', 'cards', 'trick', 'score', 'voids'];
  const rows: string[][] = [header];
  for (let s = 0; s < P; s++) {
    const marks = (s === state.dealer ? 'D' : '') + (!over && s === state.toAct ? '*' : '');
    const voids = SUIT_SYMBOLS.filter((_, k) => state.voidSuits[s] & (1 << k)).join('');
    rows.push([
      `${s}${s === perspective ? ' you' : ''}${marks ? ' ' + marks : ''}`,
      state.bids[s] === NONE ? '-' : String(state.bids[s]),
      String(state.tricksWon[s]),
      String(state.handSizes[s]),
      state.trickCards[s] === NONE ? '' : formatCardSymbol(state.trickCards[s]),
      String(state.scores[s]),
      voids,
    ]);
  }
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows) lines.push(row.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd());
  lines.push('(D = dealer, * = to act)');
  lines.push('');

  if (state.trickSize > 0) {
    const order: string[] = [];
    for (let i = 0; i < state.trickSize; i++) {
      const seat = (state.trickLeader + i) % P;
      order.push(`seat ${seat} ${formatCardSymbol(state.trickCards[seat])}`);
    }
    lines.push(`Trick ${state.trickNumber + 1}: ${order.join(', ')} (${SUIT_NAMES[state.ledSuit]} led)`);
  } else if (state.lastTrickWinner !== NONE && !over) {
    lines.push(`Trick ${state.trickNumber} went to ${seatLabel(state.lastTrickWinner, perspective)}`);
  }

  if (perspective !== undefined) {
    lines.push(`Your hand (seat ${perspective}): ${formatHand(handOf(state, perspective))}`);
  } else {
    for (let s = 0; s < P; s++) lines.push(`Hand of seat ${s}: ${formatHand(handOf(state, s))}`);
  }
  if (over) {
    lines.push(`Final scores: ${Array.from(state.scores, (v, s) => `seat ${s} ${v}`).join(', ')}`);
  } else {
    const doing = state.phase === PHASE_BID ? `to bid 0..${state.cardsDealt}` : state.trickSize === 0 ? 'to lead' : `to play (${SUIT_NAMES[state.ledSuit]} led)`;
    lines.push(`${seatLabel(state.toAct, perspective)} ${doing}`);
  }
  return lines.join('\n');
}

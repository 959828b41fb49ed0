/**
 * Human-facing text: the board picture, reading typed moves (SAN or UCI) with errors that say why a move
 * is refused, and SAN for display.
 */
import type { ParsedAction } from '@az/core';
import type { Color, PieceSymbol } from 'chess.js';
import { index0x88, indexOf0x88, squareIndex, squareName } from './action-encoding.js';
import { CASTLE_KINGSIDE, CASTLE_QUEENSIDE, internals, type InternalMove } from './internals.js';
import { isSquareAttacked } from './legal-moves.js';
import {
  castlingRights,
  isCheck,
  legalActionsOf,
  legalMovesOf,
  outcomeOf,
  sanOfLegalMove,
  type ChessState,
  type Outcome,
} from './state.js';

const GLYPHS: Readonly<Record<Color, Readonly<Record<PieceSymbol, string>>>> = {
  w: { k: '♔', q: '♕', r: '♖', b: '♗', n: '♘', p: '♙' },
  b: { k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' },
};
const PIECE_NAMES: Readonly<Record<PieceSymbol, string>> = { p: 'pawn', n: 'knight', b: 'bishop', r: 'rook', q: 'queen', k: 'king' };
const COLOUR_NAMES: Readonly<Record<Color, string>> = { w: 'white', b: 'black' };
const SYNTAX_HELP = 'type a move in SAN (Nf3, exd5, O-O, e8=Q) or UCI (g1f3, e7e8q)';

export function describeOutcome(outcome: Outcome): string {
  if (outcome.winner) return `${COLOUR_NAMES[outcome.winner]} wins by ${outcome.termination}`;
  return `draw by ${outcome.termination}`;
}

/**
 * The board with Unicode pieces, files and ranks labelled, and a status line. White is at the bottom
 * unless `perspective` is 1 (black), which flips the board.
 */
export function renderBoard(state: ChessState, perspective?: number): string {
  const board = internals(state.chess)._board;
  const flipped = perspective === 1;
  const files = flipped ? 'h g f e d c b a' : 'a b c d e f g h';
  const lines = [`    ${files}`];
  for (let row = 0; row < 8; row++) {
    const rank = flipped ? row : 7 - row; // 0-based rank, top line first
    let line = ` ${rank + 1}  `;
    for (let col = 0; col < 8; col++) {
      const file = flipped ? 7 - col : col;
      const piece = board[index0x88(rank * 8 + file)];
      line += (piece ? GLYPHS[piece.color][piece.type] : '·') + (col < 7 ? ' ' : '');
    }
    lines.push(`${line}  ${rank + 1}`);
  }
  lines.push(`    ${files}`);
  const outcome = outcomeOf(state);
  const moveNumber = internals(state.chess)._moveNumber;
  if (outcome) lines.push(`Game over: ${describeOutcome(outcome)} (ply ${state.plies})`);
  else {
    const check = isCheck(state) ? ', in check' : '';
    lines.push(`${state.turn === 'w' ? 'White' : 'Black'} to move${check} (move ${moveNumber}, ply ${state.plies} of ${state.maxPlies})`);
  }
  return lines.join('\n');
}

/** SAN of a legal action (with + or #); for anything else, a bracketed note rather than a throw (display code). */
export function formatMove(state: ChessState, action: number): string {
  const actions = legalActionsOf(state);
  for (let i = 0; i < actions.length; i++) if (actions[i] === action) return sanOfLegalMove(state, i);
  return `[action ${action}: not a legal move here]`;
}

/** SAN without check, mate, annotation and '=' decorations; castling with zeros or lower case becomes O-O. */
function plainSan(text: string): string {
  let s = text.replace(/[+#!?]+$/, '').replace('=', '');
  if (/^[0oO]-[0oO](-[0oO])?$/.test(s)) s = s.replace(/[0o]/g, 'O');
  // Promotion piece in lower case (e8=q, bxa1n): SAN writes it in upper case.
  if (/^[a-h](x[a-h])?[18][qrbn]$/.test(s)) s = s.slice(0, -1) + s.slice(-1).toUpperCase();
  return s;
}

function fail(error: string): ParsedAction {
  return { ok: false, error };
}

/** Reads SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`) or UCI (`g1f3`, `e7e8q`). Errors say why a move is refused. */
export function parseMove(state: ChessState, text: string): ParsedAction {
  const input = text.trim();
  if (input === '') return fail(`empty move: ${SYNTAX_HELP}`);
  const outcome = outcomeOf(state);
  if (outcome) return fail(`the game is over (${describeOutcome(outcome)}); no more moves`);
  const moves = legalMovesOf(state);
  const actions = legalActionsOf(state);

  const uci = /^([a-h][1-8])[-x]?([a-h][1-8])=?([qrbnQRBN])?$/.exec(input);
  if (uci) {
    const from = index0x88(squareIndex(uci[1]));
    const to = index0x88(squareIndex(uci[2]));
    const promotion = uci[3]?.toLowerCase();
    const candidates = moves.map((m, i) => i).filter((i) => moves[i].from === from && moves[i].to === to);
    if (candidates.length === 0) return fail(explainIllegalSquares(state, from, to, input));
    if (moves[candidates[0]].promotion === undefined) {
      if (promotion) return fail(`${input}: only a pawn reaching the last rank can promote`);
      return { ok: true, action: actions[candidates[0]] };
    }
    if (!promotion) return fail(`${input}: a pawn reaching the last rank must promote; add q, r, b or n (e.g. ${uci[1]}${uci[2]}q)`);
    const chosen = candidates.find((i) => moves[i].promotion === promotion);
    return chosen === undefined ? fail(`${input}: cannot promote to that piece`) : { ok: true, action: actions[chosen] };
  }

  const wanted = plainSan(input);
  for (let i = 0; i < moves.length; i++) {
    if (plainSan(sanOfLegalMove(state, i)) === wanted) return { ok: true, action: actions[i] };
  }
  // chess.js's permissive reader: over-disambiguated (Nge7), missing 'x', long algebraic with a piece (Ng1f3).
  // Never the null move '--', which is not a chess move.
  if (wanted !== '--' && /^[PNBRQK]?[a-h]?[1-8]?x?-?[a-h][1-8][QRBNqrbn]?$/.test(wanted)) {
    const found = internals(state.chess)._moveFromSan(wanted, false);
    if (found) {
      const index = moves.findIndex((m) => m.from === found.from && m.to === found.to && m.promotion === found.promotion);
      if (index >= 0) return { ok: true, action: actions[index] };
    }
  }
  return fail(explainIllegalSan(state, input, wanted));
}

function legalMoveList(state: ChessState): string {
  const moves = legalMovesOf(state);
  return moves.map((_, i) => sanOfLegalMove(state, i)).join(' ');
}

/** Why no legal move goes from `from` to `to` (0x88 squares). */
function explainIllegalSquares(state: ChessState, from: number, to: number, input: string): string {
  const c = internals(state.chess);
  const piece = c._board[from];
  const fromName = squareName(indexOf0x88(from));
  const toName = squareName(indexOf0x88(to));
  const us = c._turn;
  if (!piece) return `illegal move ${input}: there is no piece on ${fromName}`;
  if (piece.color !== us) return `illegal move ${input}: the ${PIECE_NAMES[piece.type]} on ${fromName} is ${COLOUR_NAMES[piece.color]}'s, and ${COLOUR_NAMES[us]} is to move`;
  if (piece.type === 'k' && Math.abs(to - from) === 2 && from === c._kings[us]) {
    return `illegal move ${input}: ${castlingProblem(state, to > from ? CASTLE_KINGSIDE : CASTLE_QUEENSIDE)}`;
  }
  const pseudo = c._moves({ legal: false }).find((m) => m.from === from && m.to === to);
  if (pseudo) return `illegal move ${input}: ${kingSafetyProblem(state)}`;
  return `illegal move ${input}: the ${PIECE_NAMES[piece.type]} on ${fromName} cannot move to ${toName}`;
}

function explainIllegalSan(state: ChessState, input: string, wanted: string): string {
  if (wanted === 'O-O' || wanted === 'O-O-O') {
    return `illegal move ${input}: ${castlingProblem(state, wanted === 'O-O' ? CASTLE_KINGSIDE : CASTLE_QUEENSIDE)}`;
  }
  if (!/^([NBRQK][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8][QRBN]?)$/.test(wanted)) {
    return `cannot read '${input}' as a move: ${SYNTAX_HELP}`;
  }
  // A pseudo-legal move with this SAN exists: it is refused because of the king.
  const c = internals(state.chess);
  const pseudo = c._moves({ legal: false });
  const match = pseudo.find((m: InternalMove) => plainSan(c._moveToSan(m, pseudo)) === wanted);
  if (match) return `illegal move ${input}: ${kingSafetyProblem(state)}`;
  return `${input} is not a legal move here; legal moves: ${legalMoveList(state)}`;
}

function kingSafetyProblem(state: ChessState): string {
  return isCheck(state) ? 'the king is in check and this move does not get it out of check' : 'it would leave the king in check';
}

function castlingProblem(state: ChessState, side: number): string {
  const c = internals(state.chess);
  const us = c._turn;
  const them: Color = us === 'w' ? 'b' : 'w';
  const name = side === CASTLE_KINGSIDE ? 'kingside' : 'queenside';
  if (!(castlingRights(state, us) & side)) return `${COLOUR_NAMES[us]} can no longer castle ${name}`;
  const king = c._kings[us];
  const between = side === CASTLE_KINGSIDE ? [king + 1, king + 2] : [king - 1, king - 2, king - 3];
  if (between.some((sq) => c._board[sq])) return `the squares between the king and the rook are not empty`;
  if (isCheck(state)) return 'cannot castle out of check';
  const crossed = side === CASTLE_KINGSIDE ? [king + 1, king + 2] : [king - 1, king - 2];
  if (crossed.some((sq) => isSquareAttacked(c._board, sq, them))) return 'the king would cross or land on an attacked square';
  return 'castling is not possible here';
}

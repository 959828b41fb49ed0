/**
 * Legal moves of a chess.js position, for the edges that work on chess.js objects (SAN, typed moves, the
 * greedy bot); search uses position.ts's generator, which produces the same list. chess.js's
 * pseudo-legal generator, filtered with pins and checks computed once per position.
 *
 * Why not `_moves({ legal: true })`: chess.js decides legality by making each pseudo-legal move,
 * scanning all 64 squares for attackers of the king and unmaking it (with BigInt hash updates both
 * ways) for every move (README "Performance" has the cost). Here the king's attackers and the
 * pinned pieces are found once by walking out from the king, so most moves are accepted or rejected with
 * a table lookup. Results are identical (the tests compare against chess.js on thousands of positions and
 * run perft); en passant, whose legality can hinge on a horizontal pin of two pawns, still goes through
 * chess.js's make/unmake.
 */
import type { Chess, Color } from 'chess.js';
import { FLAG_EP_CAPTURE, FLAG_KSIDE_CASTLE, FLAG_QSIDE_CASTLE, internals, NO_SQUARE, type BoardPiece, type InternalMove } from './internals.js';

const KNIGHT_OFFSETS = [-18, -33, -31, -14, 18, 33, 31, 14];
const KING_OFFSETS = [-17, -16, -15, 1, 17, 16, 15, -1];
/** Ray directions on the 0x88 board; the first four are diagonal. */
const RAY_OFFSETS = [-17, -15, 17, 15, -16, 1, 16, -1];

type Board = readonly (BoardPiece | undefined)[];

/**
 * Whether `square` is attacked by `by`. `ignore` is treated as empty: the king that is moving, so a
 * slider checking it along a line also covers the square behind it.
 */
export function isSquareAttacked(board: Board, square: number, by: Color, ignore: number = NO_SQUARE): boolean {
  // A white pawn on p attacks p-15 and p-17 (towards rank 8 = smaller 0x88 index); black the opposite.
  const pawnFrom = by === 'w' ? 15 : -17;
  let source = square + pawnFrom;
  let p: BoardPiece | undefined;
  if (!(source & 0x88) && (p = board[source]) !== undefined && p.type === 'p' && p.color === by) return true;
  source += 2;
  if (!(source & 0x88) && (p = board[source]) !== undefined && p.type === 'p' && p.color === by) return true;
  for (let i = 0; i < 8; i++) {
    source = square + KNIGHT_OFFSETS[i];
    if (!(source & 0x88) && (p = board[source]) !== undefined && p.type === 'n' && p.color === by) return true;
  }
  for (let i = 0; i < 8; i++) {
    source = square + KING_OFFSETS[i];
    if (!(source & 0x88) && (p = board[source]) !== undefined && p.type === 'k' && p.color === by) return true;
  }
  for (let d = 0; d < 8; d++) {
    const offset = RAY_OFFSETS[d];
    for (let x = square + offset; !(x & 0x88); x += offset) {
      p = board[x];
      if (p === undefined || x === ignore) continue;
      if (p.color === by && (p.type === 'q' || p.type === (d < 4 ? 'b' : 'r'))) return true;
      break;
    }
  }
  return false;
}

// Scratch space, reused across calls (all synchronous): squares that capture or block the single check
// are marked with the current stamp, so nothing needs clearing between positions.
const evasionStamp = new Int32Array(128);
let stamp = 0;
const pinnedSquares: number[] = [];
const pinOffsets: number[] = [];

/** Whether the side to move is in check (walks out from its king; cheaper than chess.js's full scan). */
export function inCheck(chess: Chess): boolean {
  const c = internals(chess);
  const us = c._turn;
  return isSquareAttacked(c._board, c._kings[us], us === 'w' ? 'b' : 'w');
}

/** The legal moves of the side to move, in chess.js's generation order. */
export function generateLegalMoves(chess: Chess): InternalMove[] {
  const c = internals(chess);
  const pseudo = c._moves({ legal: false });
  const board = c._board;
  const us = c._turn;
  const them: Color = us === 'w' ? 'b' : 'w';
  const king = c._kings[us];
  if (king === NO_SQUARE) return pseudo; // chess.js does the same; FEN validation guarantees kings anyway

  stamp = (stamp + 1) | 0;
  if (stamp === 0) {
    evasionStamp.fill(0);
    stamp = 1;
  }
  pinnedSquares.length = 0;
  pinOffsets.length = 0;
  let checkers = 0;

  // Pawn and knight checks: the only evasions besides king moves are capturing the checker.
  for (let source = king + (them === 'w' ? 15 : -17), i = 0; i < 2; i++, source += 2) {
    if (source & 0x88) continue;
    const p = board[source];
    if (p !== undefined && p.type === 'p' && p.color === them) {
      checkers++;
      evasionStamp[source] = stamp;
    }
  }
  for (let i = 0; i < 8; i++) {
    const source = king + KNIGHT_OFFSETS[i];
    if (source & 0x88) continue;
    const p = board[source];
    if (p !== undefined && p.type === 'n' && p.color === them) {
      checkers++;
      evasionStamp[source] = stamp;
    }
  }
  // Slider checks (evasions: capture or interpose on the ray) and pins (the pinned piece may only move along the ray).
  for (let d = 0; d < 8; d++) {
    const offset = RAY_OFFSETS[d];
    const slider = d < 4 ? 'b' : 'r';
    let shield = NO_SQUARE;
    for (let x = king + offset; !(x & 0x88); x += offset) {
      const p = board[x];
      if (p === undefined) continue;
      if (p.color === us) {
        if (shield !== NO_SQUARE) break;
        shield = x;
        continue;
      }
      if (p.type === slider || p.type === 'q') {
        if (shield === NO_SQUARE) {
          checkers++;
          for (let y = king + offset; y !== x + offset; y += offset) evasionStamp[y] = stamp;
        } else {
          pinnedSquares.push(shield);
          pinOffsets.push(offset);
        }
      }
      break;
    }
  }

  const legal: InternalMove[] = [];
  for (let i = 0, n = pseudo.length; i < n; i++) {
    const move = pseudo[i];
    if (move.flags & FLAG_EP_CAPTURE) {
      // Rare and subtle (the captured pawn leaves the rank too): let chess.js make it and look.
      c._makeMove(move);
      const safe = !isSquareAttacked(c._board, king, them);
      c._undoMove();
      if (safe) legal.push(move);
      continue;
    }
    if (move.piece === 'k') {
      // chess.js only generates castling when the king, the square it crosses and its target are safe.
      if (move.flags & (FLAG_KSIDE_CASTLE | FLAG_QSIDE_CASTLE) || !isSquareAttacked(board, move.to, them, king)) legal.push(move);
      continue;
    }
    if (checkers > 1) continue; // double check: only the king may move
    if (checkers === 1 && evasionStamp[move.to] !== stamp) continue;
    const pin = pinnedSquares.indexOf(move.from);
    if (pin >= 0 && !onRay(king, pinOffsets[pin], move.to)) continue;
    legal.push(move);
  }
  return legal;
}

function onRay(origin: number, offset: number, square: number): boolean {
  for (let x = origin + offset; !(x & 0x88); x += offset) if (x === square) return true;
  return false;
}

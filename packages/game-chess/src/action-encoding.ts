/**
 * The AlphaZero 8x8x73 move encoding: action = fromSquare * 73 + plane, 4,672 actions.
 *
 * Squares are numbered from the side to move's point of view: square = relativeRank * 8 + file, where
 * file 0..7 = a..h and relativeRank 0 is the mover's own back rank. For white that is the usual
 * a1 = 0 ... h8 = 63; for black the board is flipped vertically (a8 = 0, h1 = 63, files unchanged), so
 * black's moves use the same planes as white's. "Forward" below is towards the opponent.
 *
 * Planes (directions as (file delta, rank delta) in the mover's frame):
 *   0..55   queen-like moves: plane = direction * 7 + (distance - 1), distance 1..7, directions
 *           0 N (0,+1)  1 NE (+1,+1)  2 E (+1,0)  3 SE (+1,-1)  4 S (0,-1)  5 SW (-1,-1)  6 W (-1,0)  7 NW (-1,+1).
 *           Rook, bishop, queen, king (castling is the king moving two squares E or W) and pawn moves,
 *           including promotions to a queen.
 *   56..63  knight moves: plane = 56 + k, k = 0 (+1,+2)  1 (+2,+1)  2 (+2,-1)  3 (+1,-2)
 *           4 (-1,-2)  5 (-2,-1)  6 (-2,+1)  7 (-1,+2).
 *   64..72  underpromotions: plane = 64 + piece * 3 + (fileDelta + 1), piece 0 knight, 1 bishop, 2 rook;
 *           fileDelta -1 capture towards the a-file, 0 straight, +1 capture towards the h-file.
 */
import type { Color, PieceSymbol, Square } from 'chess.js';
import type { InternalMove } from './internals.js';

export const PLANES_PER_SQUARE = 73;
export const ACTION_SIZE = 64 * PLANES_PER_SQUARE; // 4,672
export const FIRST_KNIGHT_PLANE = 56;
export const FIRST_UNDERPROMOTION_PLANE = 64;

/** (file delta, rank delta) of the eight queen directions, in plane order. */
export const QUEEN_DIRECTIONS: readonly (readonly [number, number])[] = [
  [0, 1],
  [1, 1],
  [1, 0],
  [1, -1],
  [0, -1],
  [-1, -1],
  [-1, 0],
  [-1, 1],
];

/** (file delta, rank delta) of the eight knight jumps, in plane order. */
export const KNIGHT_JUMPS: readonly (readonly [number, number])[] = [
  [1, 2],
  [2, 1],
  [2, -1],
  [1, -2],
  [-1, -2],
  [-2, -1],
  [-2, 1],
  [-1, 2],
];

/** Underpromotion pieces in plane order. */
export const UNDERPROMOTION_PIECES: readonly PieceSymbol[] = ['n', 'b', 'r'];

/** A move as geometry: squares in algebraic notation, plus the underpromotion piece if any. */
export interface DecodedMove {
  readonly from: Square;
  readonly to: Square;
  /** Set for underpromotions only; a pawn reaching the last rank through a queen plane promotes to a queen. */
  readonly underpromotion?: 'n' | 'b' | 'r';
}

const FILES = 'abcdefgh';

/** Absolute square index (a1 = 0, h8 = 63) of an algebraic square, or -1. */
export function squareIndex(square: string): number {
  if (square.length !== 2) return -1;
  const file = FILES.indexOf(square[0]);
  const rank = square.charCodeAt(1) - 49; // '1' -> 0
  return file < 0 || rank < 0 || rank > 7 ? -1 : rank * 8 + file;
}

export function squareName(index: number): Square {
  return (FILES[index & 7] + String((index >> 3) + 1)) as Square;
}

/** chess.js 0x88 square (a8 = 0, h1 = 119) -> absolute index (a1 = 0, h8 = 63). */
export function indexOf0x88(square: number): number {
  return ((7 - (square >> 4)) << 3) | (square & 7);
}

/** Absolute index -> chess.js 0x88 square. */
export function index0x88(index: number): number {
  return ((7 - (index >> 3)) << 4) | (index & 7);
}

/** Queen or knight plane for a relative (from, to) pair, -1 if no such plane: indexed from * 64 + to. */
const PLANE_OF_RELATIVE_MOVE = new Int8Array(64 * 64).fill(-1);
/** For each action: the relative destination square (or -1 if it leaves the board). */
const RELATIVE_TARGET = new Int8Array(ACTION_SIZE).fill(-1);

for (let from = 0; from < 64; from++) {
  const file = from & 7;
  const rank = from >> 3;
  const set = (plane: number, df: number, dr: number): void => {
    const f = file + df;
    const r = rank + dr;
    if (f < 0 || f > 7 || r < 0 || r > 7) return;
    const to = r * 8 + f;
    RELATIVE_TARGET[from * PLANES_PER_SQUARE + plane] = to;
    if (plane < FIRST_UNDERPROMOTION_PLANE) PLANE_OF_RELATIVE_MOVE[from * 64 + to] = plane;
  };
  QUEEN_DIRECTIONS.forEach(([df, dr], d) => {
    for (let distance = 1; distance <= 7; distance++) set(d * 7 + distance - 1, df * distance, dr * distance);
  });
  KNIGHT_JUMPS.forEach(([df, dr], k) => set(FIRST_KNIGHT_PLANE + k, df, dr));
  // Underpromotions only make sense from the 7th rank, but the geometry is defined everywhere.
  for (let piece = 0; piece < 3; piece++) {
    for (let df = -1; df <= 1; df++) set(FIRST_UNDERPROMOTION_PLANE + piece * 3 + df + 1, df, 1);
  }
}

/** Flips an absolute square into the mover's frame (and back): vertical mirror for black. */
function relative(index: number, turn: Color): number {
  return turn === 'w' ? index : index ^ 56;
}

/**
 * The action for a move given by absolute square indices (a1 = 0). `promotion` is the promotion piece if
 * any ('q' uses the queen planes). Returns -1 if the geometry fits no plane (not a chess move).
 */
export function actionOfSquares(fromIndex: number, toIndex: number, promotion: PieceSymbol | undefined, turn: Color): number {
  const from = relative(fromIndex, turn);
  const to = relative(toIndex, turn);
  if (promotion !== undefined && promotion !== 'q') {
    const piece = UNDERPROMOTION_PIECES.indexOf(promotion);
    const df = (to & 7) - (from & 7);
    if (piece < 0 || to - from !== 8 + df || df < -1 || df > 1) return -1;
    return from * PLANES_PER_SQUARE + FIRST_UNDERPROMOTION_PLANE + piece * 3 + df + 1;
  }
  const plane = PLANE_OF_RELATIVE_MOVE[from * 64 + to];
  return plane < 0 ? -1 : from * PLANES_PER_SQUARE + plane;
}

/**
 * The action of a packed move of `position.ts` (bits 0-6 from, 7-13 to as 0x88 squares, 14-16 promotion
 * type 2 knight .. 5 queen) for the side `black` (0 white, 1 black): the search's hot path.
 */
export function actionOfPackedMove(move: number, black: number): number {
  const flip = black ? 56 : 0;
  const fromSquare = move & 127;
  const toSquare = (move >> 7) & 127;
  const from = (((7 - (fromSquare >> 4)) << 3) | (fromSquare & 7)) ^ flip;
  const to = (((7 - (toSquare >> 4)) << 3) | (toSquare & 7)) ^ flip;
  const promotion = (move >> 14) & 7;
  if (promotion !== 0 && promotion !== 5) {
    // Knight 2, bishop 3, rook 4 -> underpromotion piece 0, 1, 2.
    return from * PLANES_PER_SQUARE + FIRST_UNDERPROMOTION_PLANE + (promotion - 2) * 3 + (to & 7) - (from & 7) + 1;
  }
  return from * PLANES_PER_SQUARE + PLANE_OF_RELATIVE_MOVE[from * 64 + to];
}

/**
 * The squares of an action for the side `black` (0 white, 1 black), packed as `position.ts` packs moves
 * (from and to as 0x88 squares, the underpromotion type in bits 14-16) but without flags; -1 if the
 * action leaves the board. `completeMove` in position.ts adds the flags from the board.
 */
export function packedSquaresOfAction(action: number, black: number): number {
  const target = RELATIVE_TARGET[action];
  if (target < 0) return -1;
  const fromRelative = (action / PLANES_PER_SQUARE) | 0;
  const plane = action - fromRelative * PLANES_PER_SQUARE;
  const flip = black ? 56 : 0;
  const from = fromRelative ^ flip;
  const to = target ^ flip;
  // Underpromotion planes: knight 2, bishop 3, rook 4 (position.ts's type codes).
  const promotion = plane >= FIRST_UNDERPROMOTION_PLANE ? 2 + (((plane - FIRST_UNDERPROMOTION_PLANE) / 3) | 0) : 0;
  return (((7 - (from >> 3)) << 4) | (from & 7)) | ((((7 - (to >> 3)) << 4) | (to & 7)) << 7) | (promotion << 14);
}

/** The action of one of chess.js's internal moves. */
export function actionOfInternalMove(move: InternalMove): number {
  return actionOfSquares(indexOf0x88(move.from), indexOf0x88(move.to), move.promotion, move.color);
}

/**
 * The action index of a move for the side `turn` (seat 0 = white 'w', seat 1 = black 'b').
 * Throws if the squares are not a queen, knight or underpromotion move.
 */
export function encodeMove(move: { readonly from: string; readonly to: string; readonly promotion?: string }, turn: Color): number {
  const from = squareIndex(move.from);
  const to = squareIndex(move.to);
  const promotion = move.promotion === undefined || move.promotion === '' ? undefined : (move.promotion.toLowerCase() as PieceSymbol);
  if (promotion !== undefined && !'qrbn'.includes(promotion)) throw new Error(`encodeMove: bad promotion piece '${move.promotion}'`);
  const action = from < 0 || to < 0 ? -1 : actionOfSquares(from, to, promotion, turn);
  if (action < 0) throw new Error(`encodeMove: ${move.from}${move.to}${move.promotion ?? ''} is not a move any piece can make`);
  return action;
}

/**
 * The geometry of an action for the side `turn`, or null if it leads off the board (such actions are never
 * legal). A queen-plane action that brings a pawn to the last rank is a queen promotion; see `legalMoveOf`
 * in state.ts for the move in a given position.
 */
export function decodeMove(action: number, turn: Color): DecodedMove | null {
  if (!Number.isInteger(action) || action < 0 || action >= ACTION_SIZE) return null;
  const target = RELATIVE_TARGET[action];
  if (target < 0) return null;
  const fromRelative = Math.floor(action / PLANES_PER_SQUARE);
  const plane = action % PLANES_PER_SQUARE;
  const from = squareName(relative(fromRelative, turn));
  const to = squareName(relative(target, turn));
  if (plane < FIRST_UNDERPROMOTION_PLANE) return { from, to };
  const underpromotion = UNDERPROMOTION_PIECES[Math.floor((plane - FIRST_UNDERPROMOTION_PLANE) / 3)] as 'n' | 'b' | 'r';
  return { from, to, underpromotion };
}

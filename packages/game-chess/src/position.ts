/**
 * The position the search works on: the board packed into eight integer fields plus a few numbers, with
 * its own legal-move generator, make-move and incremental Zobrist key. No objects per piece or per move,
 * no BigInt, not even an array for the board, so a copy is one small object and a legal-move list is an
 * `Int32Array` of packed moves.
 *
 * chess.js stays the rules' source of truth at the edges (FEN parsing and validation, SAN, rendering):
 * `positionFromChess` and `chessFromPosition` convert both ways. The generator reproduces chess.js 1.4's
 * legal moves in chess.js's own order (squares a8..h1, pawn pushes before captures, promotions N, B, R,
 * Q, castling last), so index i of a chess.js legal-move list and of ours is the same move; the tests
 * hold it to that on the perft suite and on tens of thousands of random positions.
 *
 * Squares are chess.js's 0x88 squares: square = (7 - rank) * 16 + file, so a8 = 0 and h1 = 119; moves,
 * the en passant square and the kings use them. The board is stored by cell, (7 - rank) * 8 + file
 * (`cellOf`), four bits a piece code, one rank per int32 field (`r0` rank 8 .. `r7` rank 1, the file's
 * code at bits 4 * file): search copies a position for every node it visits, and an array for the board
 * (even a 64-byte typed array, on the V8 heap) tripled the objects and bytes of a copy and the garbage
 * collector's work. `pieceAt` and `setPiece` read and write one cell; the move generator and attack
 * tests run on a 0x88 scratch board unpacked once per call (`loadBoard`), so their off-board test stays
 * one `& 0x88`; `readCells` unpacks the 64 cells. Piece codes: 0 empty, 1..6 white pawn, knight,
 * bishop, rook, queen, king, 7..12 black ones (`PIECE_CODES` in state.ts).
 */
import { Chess, type Color, type PieceSymbol } from 'chess.js';
import { CASTLE_KINGSIDE, CASTLE_QUEENSIDE, internals, type BoardPiece } from './internals.js';

export const PAWN = 1;
export const KNIGHT = 2;
export const BISHOP = 3;
export const ROOK = 4;
export const QUEEN = 5;
export const KING = 6;
/** Added to a white piece's code for the black piece of the same type. */
export const BLACK = 6;

/** Castling-right bits of `Position.castling`. */
export const WHITE_KINGSIDE = 1;
export const WHITE_QUEENSIDE = 2;
export const BLACK_KINGSIDE = 4;
export const BLACK_QUEENSIDE = 8;

/**
 * A move packed in an int: bits 0-6 from, 7-13 to (0x88 squares), 14-16 promotion piece type (0 none),
 * then the flags below.
 */
export const MOVE_CAPTURE = 1 << 17;
export const MOVE_BIG_PAWN = 1 << 18;
export const MOVE_EN_PASSANT = 1 << 19;
export const MOVE_KINGSIDE_CASTLE = 1 << 20;
export const MOVE_QUEENSIDE_CASTLE = 1 << 21;

export const moveFrom = (move: number): number => move & 127;
export const moveTo = (move: number): number => (move >> 7) & 127;
/** Promotion piece type (KNIGHT..QUEEN), 0 for none. */
export const movePromotion = (move: number): number => (move >> 14) & 7;

/** No square: no en passant square. */
export const NONE = -1;
/** More than the most legal moves any chess position has (218). */
export const MAX_MOVES = 256;

/** The board cell (0..63, a8 = 0, h1 = 63) of an on-board 0x88 square. */
export const cellOf = (square: number): number => (square + (square & 7)) >> 1;

/**
 * The 0x88 scratch board the generator and attack tests read (all calls are synchronous). Off-board
 * cells are never written, so they stay 0.
 */
const scratchBoard = new Int8Array(128);
/** `readCells`'s output. */
const scratchCells = new Int8Array(64);

/** Unpacks a position's board into the 0x88 scratch board and returns it (valid until the next call). */
function loadBoard(p: Position): Int8Array {
  return unpackBoard(p, scratchBoard, 16);
}

/** The position's 64 cells (a8 = 0, h1 = 63), unpacked into a scratch array valid until the next call. */
export function readCells(p: Position): Int8Array {
  return unpackBoard(p, scratchCells, 8);
}

/** Writes the eight packed rows into `out`, row k starting at k * rowStride (16: 0x88, 8: plain cells). */
function unpackBoard(p: Position, out: Int8Array, rowStride: number): Int8Array {
  unpackRow(out, 0, p.r0);
  unpackRow(out, rowStride, p.r1);
  unpackRow(out, 2 * rowStride, p.r2);
  unpackRow(out, 3 * rowStride, p.r3);
  unpackRow(out, 4 * rowStride, p.r4);
  unpackRow(out, 5 * rowStride, p.r5);
  unpackRow(out, 6 * rowStride, p.r6);
  unpackRow(out, 7 * rowStride, p.r7);
  return out;
}

function unpackRow(out: Int8Array, at: number, row: number): void {
  out[at] = row & 15;
  out[at + 1] = (row >> 4) & 15;
  out[at + 2] = (row >> 8) & 15;
  out[at + 3] = (row >> 12) & 15;
  out[at + 4] = (row >> 16) & 15;
  out[at + 5] = (row >> 20) & 15;
  out[at + 6] = (row >> 24) & 15;
  out[at + 7] = (row >> 28) & 15;
}

/** The row field (rank 8 - `row`) of the board. */
function rowOf(p: Position, row: number): number {
  switch (row) {
    case 0:
      return p.r0;
    case 1:
      return p.r1;
    case 2:
      return p.r2;
    case 3:
      return p.r3;
    case 4:
      return p.r4;
    case 5:
      return p.r5;
    case 6:
      return p.r6;
    default:
      return p.r7;
  }
}

function setRow(p: Position, row: number, value: number): void {
  switch (row) {
    case 0:
      p.r0 = value;
      break;
    case 1:
      p.r1 = value;
      break;
    case 2:
      p.r2 = value;
      break;
    case 3:
      p.r3 = value;
      break;
    case 4:
      p.r4 = value;
      break;
    case 5:
      p.r5 = value;
      break;
    case 6:
      p.r6 = value;
      break;
    default:
      p.r7 = value;
  }
}

/** The piece code on a cell (`cellOf`). */
export function pieceAt(p: Position, cell: number): number {
  return (rowOf(p, cell >> 3) >> ((cell & 7) << 2)) & 15;
}

/** Puts a piece code (0 to empty it) on a cell. */
export function setPiece(p: Position, cell: number, code: number): void {
  const row = cell >> 3;
  const shift = (cell & 7) << 2;
  setRow(p, row, (rowOf(p, row) & ~(15 << shift)) | (code << shift));
}

export class Position {
  /** The board, one rank per field (r0 rank 8 .. r7 rank 1), four bits a file: see the module comment. */
  r0 = 0;
  r1 = 0;
  r2 = 0;
  r3 = 0;
  r4 = 0;
  r5 = 0;
  r6 = 0;
  r7 = 0;

  constructor(
    /** 0 white to move, 1 black. */
    public turn: number,
    /** `WHITE_KINGSIDE | ...` bits. */
    public castling: number,
    /** En passant target square, set (as chess.js does) only when an enemy pawn stands beside the pushed pawn; else NONE. */
    public ep: number,
    public halfMoves: number,
    public moveNumber: number,
    public whiteKing: number,
    public blackKing: number,
    /** The Zobrist key in two 32-bit halves, updated move by move. */
    public keyHigh: number,
    public keyLow: number,
  ) {}

  clone(): Position {
    const copy = new Position(this.turn, this.castling, this.ep, this.halfMoves, this.moveNumber, this.whiteKing, this.blackKing, this.keyHigh, this.keyLow);
    copy.r0 = this.r0;
    copy.r1 = this.r1;
    copy.r2 = this.r2;
    copy.r3 = this.r3;
    copy.r4 = this.r4;
    copy.r5 = this.r5;
    copy.r6 = this.r6;
    copy.r7 = this.r7;
    return copy;
  }

  /** The Zobrist key as one exact number (53 bits: the low half and 21 bits of the high one). */
  get key(): number {
    return (this.keyHigh & 0x1fffff) * 4294967296 + (this.keyLow >>> 0);
  }
}

// ---- Zobrist keys ----------------------------------------------------------------------------------

/** Fixed pseudo-random keys (xorshift32 from a constant seed): the same in every process. */
const PIECE_KEY_HIGH = new Int32Array(13 * 128);
const PIECE_KEY_LOW = new Int32Array(13 * 128);
const CASTLING_KEY_HIGH = new Int32Array(16);
const CASTLING_KEY_LOW = new Int32Array(16);
const EP_KEY_HIGH = new Int32Array(8);
const EP_KEY_LOW = new Int32Array(8);
let SIDE_KEY_HIGH = 0;
let SIDE_KEY_LOW = 0;
{
  let x = 0x9e3779b9 | 0;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x | 0;
  };
  for (let i = 0; i < PIECE_KEY_HIGH.length; i++) {
    PIECE_KEY_HIGH[i] = next();
    PIECE_KEY_LOW[i] = next();
  }
  // Castling keys per rights combination, so a change is two lookups.
  const single = [next(), next(), next(), next(), next(), next(), next(), next()];
  for (let rights = 0; rights < 16; rights++) {
    for (let bit = 0; bit < 4; bit++) {
      if (rights & (1 << bit)) {
        CASTLING_KEY_HIGH[rights] ^= single[2 * bit];
        CASTLING_KEY_LOW[rights] ^= single[2 * bit + 1];
      }
    }
  }
  for (let f = 0; f < 8; f++) {
    EP_KEY_HIGH[f] = next();
    EP_KEY_LOW[f] = next();
  }
  SIDE_KEY_HIGH = next();
  SIDE_KEY_LOW = next();
}

function computeKey(p: Position): void {
  let high = 0;
  let low = 0;
  const cells = readCells(p);
  for (let i = 0; i < 64; i++) {
    const code = cells[i];
    if (code === 0) continue;
    const sq = i + (i & 56);
    high ^= PIECE_KEY_HIGH[code * 128 + sq];
    low ^= PIECE_KEY_LOW[code * 128 + sq];
  }
  high ^= CASTLING_KEY_HIGH[p.castling];
  low ^= CASTLING_KEY_LOW[p.castling];
  if (p.ep !== NONE) {
    high ^= EP_KEY_HIGH[p.ep & 7];
    low ^= EP_KEY_LOW[p.ep & 7];
  }
  if (p.turn === 1) {
    high ^= SIDE_KEY_HIGH;
    low ^= SIDE_KEY_LOW;
  }
  p.keyHigh = high;
  p.keyLow = low;
}

/** The key recomputed from scratch (the tests compare it with the incremental one). */
export function freshKey(p: Position): number {
  const copy = p.clone();
  computeKey(copy);
  return copy.key;
}

// ---- conversions to and from chess.js -------------------------------------------------------------

const TYPE_CODES: Readonly<Record<PieceSymbol, number>> = { p: PAWN, n: KNIGHT, b: BISHOP, r: ROOK, q: QUEEN, k: KING };
const TYPE_SYMBOLS: readonly PieceSymbol[] = ['p', 'p', 'n', 'b', 'r', 'q', 'k'];
/** chess.js piece objects by code, shared (chess.js never mutates them). */
const BOARD_PIECES: readonly (BoardPiece | undefined)[] = [
  undefined,
  ...(['w', 'b'] as const).flatMap((color) => (['p', 'n', 'b', 'r', 'q', 'k'] as const).map((type): BoardPiece => ({ type, color }))),
];

/** Our position of a chess.js one (which should be normalized: see `loadChess` in state.ts). */
export function positionFromChess(chess: Chess): Position {
  const c = internals(chess);

  const rights = (color: Color, kingside: number, queenside: number): number =>
    (c._castling[color] & CASTLE_KINGSIDE ? kingside : 0) | (c._castling[color] & CASTLE_QUEENSIDE ? queenside : 0);
  const p = new Position(
    c._turn === 'w' ? 0 : 1,
    rights('w', WHITE_KINGSIDE, WHITE_QUEENSIDE) | rights('b', BLACK_KINGSIDE, BLACK_QUEENSIDE),
    c._epSquare,
    c._halfMoves,
    c._moveNumber,
    c._kings.w,
    c._kings.b,
    0,
    0,
  );
  for (let sq = 0; sq < 120; sq++) {
    const piece = sq & 0x88 ? undefined : c._board[sq];
    if (piece) setPiece(p, cellOf(sq), TYPE_CODES[piece.type] + (piece.color === 'b' ? BLACK : 0));
  }
  computeKey(p);
  return p;
}

const TEMPLATE = new Chess();

/**
 * A chess.js object for the position, built field by field (no FEN parsing), in chess.js's field order
 * so it gets the same hidden class as a constructed one. Its repetition table is empty: only the
 * state's records know the game's past.
 */
export function chessFromPosition(p: Position): Chess {
  const from = internals(TEMPLATE);
  const copy = Object.create(Chess.prototype) as typeof from;
  const board = new Array<BoardPiece | undefined>(128);
  const cells = loadBoard(p);
  for (let sq = 0; sq < 128; sq++) board[sq] = BOARD_PIECES[cells[sq]];
  copy._board = board;
  copy._turn = p.turn === 0 ? 'w' : 'b';
  copy._header = from._header;
  copy._kings = { w: p.whiteKing, b: p.blackKing };
  copy._epSquare = p.ep;
  copy._halfMoves = p.halfMoves;
  copy._moveNumber = p.moveNumber;
  copy._history = [];
  copy._comments = from._comments;
  copy._castling = {
    w: (p.castling & WHITE_KINGSIDE ? CASTLE_KINGSIDE : 0) | (p.castling & WHITE_QUEENSIDE ? CASTLE_QUEENSIDE : 0),
    b: (p.castling & BLACK_KINGSIDE ? CASTLE_KINGSIDE : 0) | (p.castling & BLACK_QUEENSIDE ? CASTLE_QUEENSIDE : 0),
  };
  copy._hash = 0n;
  copy._positionCount = new Map();
  copy._hash = copy._computeHash();
  return copy as unknown as Chess;
}

// ---- attacks ----------------------------------------------------------------------------------------

const KNIGHT_OFFSETS = [-18, -33, -31, -14, 18, 33, 31, 14];
const KING_OFFSETS = [-17, -16, -15, 1, 17, 16, 15, -1];
/** Ray directions; the first four are diagonal. */
const RAY_OFFSETS = [-17, -15, 17, 15, -16, 1, 16, -1];
const BISHOP_OFFSETS = [-17, -15, 17, 15];
const ROOK_OFFSETS = [-16, 1, 16, -1];
/** Piece offsets by type code, in chess.js's order. */
const OFFSETS: readonly (readonly number[])[] = [[], [], KNIGHT_OFFSETS, BISHOP_OFFSETS, ROOK_OFFSETS, KING_OFFSETS, KING_OFFSETS];

/**
 * Whether `square` is attacked by the side `byBlack` (0 white, 1 black) on a 0x88 `board` (the scratch
 * board). `ignore` counts as empty: the king that is moving, so a slider checking it along a line also
 * covers the square behind it.
 */
export function isAttacked(board: Int8Array, square: number, byBlack: number, ignore: number = NONE): boolean {
  const base = byBlack ? BLACK : 0;
  // A white pawn attacks towards smaller indices (rank 8 is 0), so it stands at square + 15 or + 17.
  let source = byBlack ? square - 17 : square + 15;
  if (!(source & 0x88) && board[source] === base + PAWN) return true;
  source += 2;
  if (!(source & 0x88) && board[source] === base + PAWN) return true;
  const knight = base + KNIGHT;
  for (let i = 0; i < 8; i++) {
    source = square + KNIGHT_OFFSETS[i];
    if (!(source & 0x88) && board[source] === knight) return true;
  }
  const king = base + KING;
  for (let i = 0; i < 8; i++) {
    source = square + KING_OFFSETS[i];
    if (!(source & 0x88) && board[source] === king) return true;
  }
  const queen = base + QUEEN;
  for (let d = 0; d < 8; d++) {
    const offset = RAY_OFFSETS[d];
    const slider = base + (d < 4 ? BISHOP : ROOK);
    for (let x = square + offset; !(x & 0x88); x += offset) {
      const code = board[x];
      if (code === 0 || x === ignore) continue;
      if (code === slider || code === queen) return true;
      break;
    }
  }
  return false;
}

/** Whether the side to move is in check. */
export function inCheck(p: Position): boolean {
  return isAttacked(loadBoard(p), p.turn ? p.blackKing : p.whiteKing, p.turn ^ 1);
}

// ---- legal moves ------------------------------------------------------------------------------------

// Scratch (all calls are synchronous): squares that capture or block a single check, and pinned pieces
// with their pin direction, are marked with the current stamp, so nothing needs clearing between calls.
const evasionStamp = new Int32Array(128);
const pinStamp = new Int32Array(128);
const pinOffset = new Int32Array(128);
let stamp = 0;

/**
 * Writes the legal moves of the side to move into `out` (at least `MAX_MOVES` long), packed, in
 * chess.js's order; returns how many. Ignores whether the game has ended by a draw rule.
 */
export function generateLegalMoves(p: Position, out: Int32Array): number {
  const board = loadBoard(p);
  const us = p.turn;
  const them = us ^ 1;
  const own = us ? BLACK : 0; // code = own + type
  const king = us ? p.blackKing : p.whiteKing;
  stamp = (stamp + 1) | 0;
  if (stamp === 0) {
    evasionStamp.fill(0);
    pinStamp.fill(0);
    stamp = 1;
  }
  const s = stamp;
  let checkers = 0;
  const enemy = them ? BLACK : 0;
  // Pawn and knight checks: besides king moves, only capturing the checker helps.
  for (let source = them ? king - 17 : king + 15, i = 0; i < 2; i++, source += 2) {
    if (!(source & 0x88) && board[source] === enemy + PAWN) {
      checkers++;
      evasionStamp[source] = s;
    }
  }
  for (let i = 0; i < 8; i++) {
    const source = king + KNIGHT_OFFSETS[i];
    if (!(source & 0x88) && board[source] === enemy + KNIGHT) {
      checkers++;
      evasionStamp[source] = s;
    }
  }
  // Slider checks (capture or interpose on the ray) and pins (the pinned piece may only move along the ray).
  for (let d = 0; d < 8; d++) {
    const offset = RAY_OFFSETS[d];
    const slider = enemy + (d < 4 ? BISHOP : ROOK);
    let shield = NONE;
    for (let x = king + offset; !(x & 0x88); x += offset) {
      const code = board[x];
      if (code === 0) continue;
      if (code > own && code <= own + KING) {
        if (shield !== NONE) break;
        shield = x;
        continue;
      }
      if (code === slider || code === enemy + QUEEN) {
        if (shield === NONE) {
          checkers++;
          for (let y = king + offset; y !== x + offset; y += offset) evasionStamp[y] = s;
        } else {
          pinStamp[shield] = s;
          pinOffset[shield] = offset;
        }
      }
      break;
    }
  }

  let n = 0;
  const pawnPush = us ? 16 : -16;
  const pawnStartRank = us ? 1 : 6; // chess.js rank index (0 = rank 8)
  const captureLeft = us ? 17 : -17; // chess.js's order: PAWN_OFFSETS[us][2], then [3]
  const captureRight = us ? 15 : -15;
  for (let from = 0; from < 120; from++) {
    if (from & 0x88) {
      from += 7;
      continue;
    }
    const code = board[from];
    if (code <= own || code > own + KING) continue;
    const type = code - own;
    if (type === KING) {
      for (let i = 0; i < 8; i++) {
        const to = from + KING_OFFSETS[i];
        if (to & 0x88) continue;
        const target = board[to];
        if (target !== 0 && target > own && target <= own + KING) continue;
        if (isAttacked(board, to, them, king)) continue;
        out[n++] = from | (to << 7) | (target !== 0 ? MOVE_CAPTURE : 0);
      }
      continue;
    }
    if (checkers > 1) continue; // double check: only the king may move
    const pinned = pinStamp[from] === s;
    const pin = pinned ? pinOffset[from] : 0;
    // Most pieces, most of the time: no check, no pin, every pseudo-legal move is legal.
    const free = checkers === 0 && !pinned;
    if (type === PAWN) {
      let to = from + pawnPush;
      if (board[to] === 0) {
        if (allowed(checkers, s, pinned, king, pin, to)) n = addPawnMove(out, n, from, to, 0);
        to += pawnPush;
        if (from >> 4 === pawnStartRank && board[to] === 0 && allowed(checkers, s, pinned, king, pin, to)) out[n++] = from | (to << 7) | MOVE_BIG_PAWN;
      }
      for (let j = 0; j < 2; j++) {
        to = from + (j === 0 ? captureLeft : captureRight);
        if (to & 0x88) continue;
        const target = board[to];
        if (target !== 0 && (target <= own || target > own + KING)) {
          if (allowed(checkers, s, pinned, king, pin, to)) n = addPawnMove(out, n, from, to, MOVE_CAPTURE);
        } else if (to === p.ep && enPassantIsSafe(board, us, from, to, king)) {
          out[n++] = from | (to << 7) | MOVE_EN_PASSANT | MOVE_CAPTURE;
        }
      }
      continue;
    }
    const offsets = OFFSETS[type];
    const slides = type !== KNIGHT;
    for (let j = 0, len = offsets.length; j < len; j++) {
      const offset = offsets[j];
      for (let to = from + offset; !(to & 0x88); to += offset) {
        const target = board[to];
        if (target === 0) {
          if (free || allowed(checkers, s, pinned, king, pin, to)) out[n++] = from | (to << 7);
        } else {
          if ((target <= own || target > own + KING) && (free || allowed(checkers, s, pinned, king, pin, to))) out[n++] = from | (to << 7) | MOVE_CAPTURE;
          break;
        }
        if (!slides) break;
      }
    }
  }
  // Castling, as chess.js generates it: rights, empty squares between, king not in check and not crossing
  // or landing on an attacked square.
  const kingside = us ? BLACK_KINGSIDE : WHITE_KINGSIDE;
  const queenside = us ? BLACK_QUEENSIDE : WHITE_QUEENSIDE;
  if (p.castling & kingside && checkers === 0) {
    if (board[king + 1] === 0 && board[king + 2] === 0 && !isAttacked(board, king + 1, them) && !isAttacked(board, king + 2, them)) {
      out[n++] = king | ((king + 2) << 7) | MOVE_KINGSIDE_CASTLE;
    }
  }
  if (p.castling & queenside && checkers === 0) {
    if (board[king - 1] === 0 && board[king - 2] === 0 && board[king - 3] === 0 && !isAttacked(board, king - 1, them) && !isAttacked(board, king - 2, them)) {
      out[n++] = king | ((king - 2) << 7) | MOVE_QUEENSIDE_CASTLE;
    }
  }
  return n;
}

/** Whether a non-king move to `to` keeps the king safe: it answers the single check if any, and stays on its pin line. */
function allowed(checkers: number, s: number, pinned: boolean, king: number, pin: number, to: number): boolean {
  if (checkers === 1 && evasionStamp[to] !== s) return false;
  if (!pinned) return true;
  for (let x = king + pin; !(x & 0x88); x += pin) if (x === to) return true;
  return false;
}

/** Pawn move to `to`, as the four promotions (chess.js's order N, B, R, Q) when it reaches the last rank. */
function addPawnMove(out: Int32Array, n: number, from: number, to: number, flags: number): number {
  const rank = to >> 4;
  if (rank === 0 || rank === 7) {
    for (let type = KNIGHT; type <= QUEEN; type++) out[n++] = from | (to << 7) | (type << 14) | flags;
  } else {
    out[n++] = from | (to << 7) | flags;
  }
  return n;
}

/** En passant is rare and subtle (two pawns leave the rank at once): play it on the (scratch) board and look. */
function enPassantIsSafe(board: Int8Array, us: number, from: number, to: number, king: number): boolean {
  const captured = us ? to - 16 : to + 16;
  const pawn = board[from];
  const victim = board[captured];
  board[to] = pawn;
  board[from] = 0;
  board[captured] = 0;
  const safe = !isAttacked(board, king, us ^ 1);
  board[from] = pawn;
  board[to] = 0;
  board[captured] = victim;
  return safe;
}

/**
 * The full packed move for packed squares of a legal move (see `packedSquaresOfAction`): flags read off
 * the board, and a pawn reaching the last rank without an underpromotion promotes to a queen.
 */
export function completeMove(p: Position, squares: number): number {
  const from = squares & 127;
  const to = (squares >> 7) & 127;
  const piece = pieceAt(p, cellOf(from));
  const target = pieceAt(p, cellOf(to));
  const type = piece > BLACK ? piece - BLACK : piece;
  let move = squares;
  if (target !== 0) move |= MOVE_CAPTURE;
  if (type === PAWN) {
    const distance = to - from;
    if (distance === 32 || distance === -32) move |= MOVE_BIG_PAWN;
    else if (to === p.ep && target === 0 && (distance & 15) !== 0) move |= MOVE_EN_PASSANT | MOVE_CAPTURE;
    const rank = to >> 4;
    if ((rank === 0 || rank === 7) && ((move >> 14) & 7) === 0) move |= QUEEN << 14;
  } else if (type === KING) {
    if (to - from === 2) move |= MOVE_KINGSIDE_CASTLE;
    else if (to - from === -2) move |= MOVE_QUEENSIDE_CASTLE;
  }
  return move;
}

// ---- making moves -----------------------------------------------------------------------------------

/** Castling rights that survive a move from or to each square (a rook or king leaving home, a rook captured there). */
const CASTLING_KEPT = new Int8Array(128).fill(15);
CASTLING_KEPT[0] = 15 & ~BLACK_QUEENSIDE; // a8
CASTLING_KEPT[7] = 15 & ~BLACK_KINGSIDE; // h8
CASTLING_KEPT[4] = 15 & ~(BLACK_KINGSIDE | BLACK_QUEENSIDE); // e8
CASTLING_KEPT[112] = 15 & ~WHITE_QUEENSIDE; // a1
CASTLING_KEPT[119] = 15 & ~WHITE_KINGSIDE; // h1
CASTLING_KEPT[116] = 15 & ~(WHITE_KINGSIDE | WHITE_QUEENSIDE); // e1

/** Plays a legal move (from `generateLegalMoves`) in place, as chess.js's `_makeMove` does. */
export function makeMove(p: Position, move: number): void {
  const from = move & 127;
  const to = (move >> 7) & 127;
  const fromCell = cellOf(from);
  const toCell = cellOf(to);
  const us = p.turn;
  const piece = pieceAt(p, fromCell);
  const captured = pieceAt(p, toCell);
  let high = p.keyHigh;
  let low = p.keyLow;
  if (p.ep !== NONE) {
    high ^= EP_KEY_HIGH[p.ep & 7];
    low ^= EP_KEY_LOW[p.ep & 7];
  }
  high ^= CASTLING_KEY_HIGH[p.castling];
  low ^= CASTLING_KEY_LOW[p.castling];
  if (captured !== 0) {
    high ^= PIECE_KEY_HIGH[captured * 128 + to];
    low ^= PIECE_KEY_LOW[captured * 128 + to];
  }
  high ^= PIECE_KEY_HIGH[piece * 128 + from] ^ PIECE_KEY_HIGH[piece * 128 + to];
  low ^= PIECE_KEY_LOW[piece * 128 + from] ^ PIECE_KEY_LOW[piece * 128 + to];
  setPiece(p, toCell, piece);
  setPiece(p, fromCell, 0);
  if (move & MOVE_EN_PASSANT) {
    const square = us ? to - 16 : to + 16;
    const victim = pieceAt(p, cellOf(square));
    high ^= PIECE_KEY_HIGH[victim * 128 + square];
    low ^= PIECE_KEY_LOW[victim * 128 + square];
    setPiece(p, cellOf(square), 0);
  }
  const promotion = (move >> 14) & 7;
  if (promotion !== 0) {
    const promoted = promotion + (us ? BLACK : 0);
    high ^= PIECE_KEY_HIGH[piece * 128 + to] ^ PIECE_KEY_HIGH[promoted * 128 + to];
    low ^= PIECE_KEY_LOW[piece * 128 + to] ^ PIECE_KEY_LOW[promoted * 128 + to];
    setPiece(p, toCell, promoted);
  }
  const type = us ? piece - BLACK : piece;
  if (type === KING) {
    if (us) p.blackKing = to;
    else p.whiteKing = to;
    if (move & (MOVE_KINGSIDE_CASTLE | MOVE_QUEENSIDE_CASTLE)) {
      const rookFrom = move & MOVE_KINGSIDE_CASTLE ? to + 1 : to - 2;
      const rookTo = move & MOVE_KINGSIDE_CASTLE ? to - 1 : to + 1;
      const rook = pieceAt(p, cellOf(rookFrom));
      high ^= PIECE_KEY_HIGH[rook * 128 + rookFrom] ^ PIECE_KEY_HIGH[rook * 128 + rookTo];
      low ^= PIECE_KEY_LOW[rook * 128 + rookFrom] ^ PIECE_KEY_LOW[rook * 128 + rookTo];
      setPiece(p, cellOf(rookTo), rook);
      setPiece(p, cellOf(rookFrom), 0);
    }
  }
  const castling = p.castling & CASTLING_KEPT[from] & CASTLING_KEPT[to];
  p.castling = castling;
  high ^= CASTLING_KEY_HIGH[castling];
  low ^= CASTLING_KEY_LOW[castling];
  p.ep = NONE;
  if (move & MOVE_BIG_PAWN) {
    const enemyPawn = us ? PAWN : BLACK + PAWN;
    if ((!((to - 1) & 0x88) && pieceAt(p, toCell - 1) === enemyPawn) || (!((to + 1) & 0x88) && pieceAt(p, toCell + 1) === enemyPawn)) {
      p.ep = us ? to - 16 : to + 16;
      high ^= EP_KEY_HIGH[p.ep & 7];
      low ^= EP_KEY_LOW[p.ep & 7];
    }
  }
  p.halfMoves = type === PAWN || move & MOVE_CAPTURE ? 0 : p.halfMoves + 1;
  if (us) p.moveNumber++;
  p.turn = us ^ 1;
  p.keyHigh = high ^ SIDE_KEY_HIGH;
  p.keyLow = low ^ SIDE_KEY_LOW;
}

// ---- material ---------------------------------------------------------------------------------------

/**
 * chess.js's `isInsufficientMaterial`: K v K, K + one minor v K, or kings and any number of bishops all on
 * squares of one colour.
 */
export function isInsufficientMaterial(p: Position): boolean {
  const board = readCells(p);
  let pieces = 0;
  let bishops = 0;
  let knights = 0;
  let lightBishops = 0;
  for (let i = 0; i < 64; i++) {
    const code = board[i];
    if (code === 0) continue;
    pieces++;
    const type = code > BLACK ? code - BLACK : code;
    if (type === BISHOP) {
      bishops++;
      lightBishops += ((i >> 3) + i) & 1; // (rank + file) & 1, as chess.js computes it on 0x88 squares
    } else if (type === KNIGHT) knights++;
    // Four pieces, not all of them kings and bishops: none of the cases below can hold any more.
    if (pieces > 3 && pieces > bishops + 2) return false;
  }
  if (pieces === 2) return true;
  if (pieces === 3 && (bishops === 1 || knights === 1)) return true;
  return pieces === bishops + 2 && (lightBishops === 0 || lightBishops === bishops);
}

/** Material values by type code (pawn 1, knight and bishop 3, rook 5, queen 9, king 0). */
const MATERIAL = [0, 1, 3, 3, 5, 9, 0];

/** White's material minus black's, in pawns. */
export function materialBalance(p: Position): number {
  let balance = 0;
  const cells = readCells(p);
  for (let i = 0; i < 64; i++) {
    const code = cells[i];
    if (code === 0) continue;
    balance += code > BLACK ? -MATERIAL[code - BLACK] : MATERIAL[code];
  }
  return balance;
}

/**
 * A typed view of the chess.js 1.4 internals this package relies on, and the one place that touches them.
 *
 * Why internals: chess.js's public API is built for UIs, not search. `moves({ verbose: true })` builds a
 * `Move` per legal move, each computing its SAN (which regenerates all legal moves) and two FENs;
 * `new Chess(fen)` re-parses and re-validates a FEN, and `move()` goes through SAN parsing (README
 * "Performance" has the costs). Search does not use chess.js at all (see position.ts); the
 * edges that do (SAN, typed moves, the greedy bot, building a chess.js object for a position without a
 * FEN) use its 0x88 board, pseudo-legal generator, make/unmake and Zobrist key directly.
 *
 * `checkChessJsInternals` verifies, once, that the installed chess.js still has this shape, so an
 * upgrade that changes it fails loudly at game creation instead of playing wrong moves.
 */
import { Chess, type Color, type PieceSymbol } from 'chess.js';

/** chess.js's internal move record. `from`/`to` are 0x88 squares (a8 = 0, h1 = 119). */
export interface InternalMove {
  readonly color: Color;
  readonly from: number;
  readonly to: number;
  readonly piece: PieceSymbol;
  readonly captured?: PieceSymbol;
  readonly promotion?: PieceSymbol;
  readonly flags: number;
}

/** A piece on chess.js's board. chess.js never mutates these objects (it replaces them), so clones share them. */
export interface BoardPiece {
  readonly type: PieceSymbol;
  readonly color: Color;
}

/** The private fields and methods of `Chess` we use, in the order chess.js declares its fields. */
export interface ChessInternals {
  _board: (BoardPiece | undefined)[];
  _turn: Color;
  _header: Record<string, string | null>;
  _kings: Record<Color, number>;
  _epSquare: number;
  _halfMoves: number;
  _moveNumber: number;
  _history: unknown[];
  _comments: Record<string, string>;
  _castling: Record<Color, number>;
  _hash: bigint;
  _positionCount: Map<bigint, number>;
  _moves(options: { legal?: boolean; piece?: PieceSymbol }): InternalMove[];
  _makeMove(move: InternalMove): void;
  _undoMove(): InternalMove | null;
  _moveToSan(move: InternalMove, moves: InternalMove[]): string;
  _moveFromSan(move: string, strict?: boolean): InternalMove | null;
  _computeHash(): bigint;
  _updateCastlingRights(): void;
  _isKingAttacked(color: Color): boolean;
}

/** chess.js move flag bits (its private `BITS` table). */
export const FLAG_CAPTURE = 2;
export const FLAG_BIG_PAWN = 4;
export const FLAG_EP_CAPTURE = 8;
export const FLAG_PROMOTION = 16;
export const FLAG_KSIDE_CASTLE = 32;
export const FLAG_QSIDE_CASTLE = 64;
/** chess.js castling-rights bits in `_castling[color]` are the same as the castle move flags. */
export const CASTLE_KINGSIDE = FLAG_KSIDE_CASTLE;
export const CASTLE_QUEENSIDE = FLAG_QSIDE_CASTLE;

/** No square (chess.js's `EMPTY`), used for "no en passant square" and "no king". */
export const NO_SQUARE = -1;

export function internals(chess: Chess): ChessInternals {
  return chess as unknown as ChessInternals;
}

const FIELD_ORDER = [
  '_board',
  '_turn',
  '_header',
  '_kings',
  '_epSquare',
  '_halfMoves',
  '_moveNumber',
  '_history',
  '_comments',
  '_castling',
  '_hash',
  '_positionCount',
] as const;

/**
 * Copies a game position without re-parsing a FEN: a shallow copy of the 128-slot board (pieces are
 * immutable and shared) and fresh copies of the small mutable records. Fields are assigned in chess.js's
 * declaration order so the copy gets the same hidden class as a constructed `Chess` (keeps chess.js's
 * own methods monomorphic). Undo history is not copied: we never undo past the current position.
 */
export function cloneChess(source: Chess): Chess {
  const from = internals(source);
  const copy = Object.create(Chess.prototype) as ChessInternals;
  copy._board = from._board.slice();
  copy._turn = from._turn;
  copy._header = from._header; // PGN headers: never written by the operations we use
  copy._kings = { w: from._kings.w, b: from._kings.b };
  copy._epSquare = from._epSquare;
  copy._halfMoves = from._halfMoves;
  copy._moveNumber = from._moveNumber;
  copy._history = [];
  copy._comments = from._comments; // PGN comments: never written by the operations we use
  copy._castling = { w: from._castling.w, b: from._castling.b };
  copy._hash = from._hash;
  copy._positionCount = SHARED_POSITION_COUNT; // chess.js's repetition table: we keep our own (see state.ts)
  return copy as unknown as Chess;
}

/**
 * chess.js only updates `_positionCount` in `move()`, `undo()` and `load()`, none of which run on our
 * clones; repetitions are tracked by `PositionRecord`s instead, so every clone can share one empty map.
 */
const SHARED_POSITION_COUNT = new Map<bigint, number>();


let checked = false;

/**
 * Fails fast if the installed chess.js does not have the internals above (checked once per process).
 * Exercises the flags we decode (capture, double push, en passant, promotion, both castles).
 */
export function checkChessJsInternals(): void {
  if (checked) return;
  const fail = (what: string): never => {
    throw new Error(
      `@az/game-chess: the installed chess.js does not match the 1.4 internals this package uses (${what}); pin chess.js to 1.4.x or update src/internals.ts`,
    );
  };
  const probe = new Chess('r3k2r/pppppppp/8/8/4Pp2/8/PPPP1PpP/R3K2R b KQkq e3 0 1');
  const keys = Object.keys(probe);
  if (keys.join(',') !== FIELD_ORDER.join(',')) fail(`fields are ${keys.join(', ')}`);
  const c = internals(probe);
  for (const method of ['_moves', '_makeMove', '_undoMove', '_moveToSan', '_moveFromSan', '_computeHash', '_updateCastlingRights', '_isKingAttacked'] as const) {
    if (typeof c[method] !== 'function') fail(`no method ${method}`);
  }
  if (typeof c._hash !== 'bigint' || c._board.length !== 128) fail('board or hash representation changed');
  const moves = c._moves({ legal: true });
  const find = (from: number, to: number, promotion?: PieceSymbol): InternalMove =>
    moves.find((m) => m.from === from && m.to === to && m.promotion === promotion) ?? fail(`missing move ${from}->${to}`);
  // 0x88: a8 = 0 ... h1 = 119; e8 = 4, f4 = 69, e3 = 84, g2 = 102, h1 = 119, f1 = 117.
  if (!(find(69, 84).flags & FLAG_EP_CAPTURE)) fail('en passant flag');
  if (!(find(4, 6).flags & FLAG_KSIDE_CASTLE)) fail('kingside castle flag');
  if (!(find(4, 2).flags & FLAG_QSIDE_CASTLE)) fail('queenside castle flag');
  const promo = find(102, 119, 'n');
  if (!(promo.flags & FLAG_PROMOTION) || !(promo.flags & FLAG_CAPTURE) || promo.captured !== 'r') fail('promotion/capture flags');
  if (!(find(17, 49).flags & FLAG_BIG_PAWN)) fail('double pawn push flag');
  if (c._castling.b !== (CASTLE_KINGSIDE | CASTLE_QUEENSIDE)) fail('castling rights bits');
  const copy = internals(cloneChess(probe));
  if (Object.keys(copy).join(',') !== FIELD_ORDER.join(',')) fail('clone field order');
  const before = c._hash;
  c._makeMove(find(69, 84));
  if (c._hash === before || c._epSquare !== NO_SQUARE) fail('make move');
  c._undoMove();
  if (c._hash !== before) fail('undo move');
  checked = true;
}

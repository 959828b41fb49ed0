/**
 * Chess states: a chess.js position plus what chess.js does not keep cheaply (repetition counts, the
 * recent positions the network sees, the ply count for the game-length cap) and lazily computed caches.
 *
 * Cost model (see README "Performance"): cloning copies a 128-slot array and a few numbers and shares
 * everything immutable (the position history, the legal-move cache); applying a move is chess.js's
 * make-move plus one new `PositionRecord`; legal moves are generated once per state, on first need.
 */
import { Chess, validateFen, type Color, type PieceSymbol, type Square } from 'chess.js';
import { actionOfInternalMove, indexOf0x88, squareName } from './action-encoding.js';
import { cloneChess, internals, makeMove, NO_SQUARE, type InternalMove } from './internals.js';
import { generateLegalMoves, inCheck } from './legal-moves.js';

/** Piece codes in `PositionRecord.pieces`: 0 empty, 1..6 white P N B R Q K, 7..12 black P N B R Q K. */
export const PIECE_CODES: Readonly<Record<PieceSymbol, number>> = { p: 1, n: 2, b: 3, r: 4, q: 5, k: 6 };
export const BLACK_PIECE_OFFSET = 6;

/**
 * One position of the game, immutable once created and shared by every state (and clone) that has it in
 * its past: a persistent linked list, so cloning a state never copies its history.
 */
export interface PositionRecord {
  /** chess.js's 64-bit Zobrist key (pieces, side to move, castling rights, en passant file). */
  readonly key: bigint;
  /** How many earlier positions of this game had the same key (2 means this is the third occurrence). */
  readonly repetitions: number;
  /** The position before this one, or null at the start of the game. */
  readonly previous: PositionRecord | null;
  /** Pieces by absolute square (a1 = 0), see `PIECE_CODES`; filled on first use (most leaves never need it). */
  pieces: Int8Array | null;
}

/** Why a game ended. 'material adjudication': the ply cap with `adjudicateLead` set (see `ChessState`). */
export type Termination =
  | 'checkmate'
  | 'stalemate'
  | 'fifty-move rule'
  | 'threefold repetition'
  | 'insufficient material'
  | 'move limit'
  | 'material adjudication';

/** Material values in pawns: the greedy bot's and the optional adjudication at the ply cap. */
export const PIECE_VALUES: Readonly<Record<PieceSymbol, number>> = { p: 1, n: 3, b: 3, r: 5, q: 9, k: 0 };

export interface Outcome {
  /** 'w' or 'b', or null for a draw. */
  readonly winner: Color | null;
  readonly termination: Termination;
}

// Cached status codes (a small int keeps the state object's shape stable).
const STATUS_UNKNOWN = -1;
const STATUS_ONGOING = 0;
const STATUS_CHECKMATE = 1;
const STATUS_STALEMATE = 2;
const STATUS_FIFTY_MOVES = 3;
const STATUS_THREEFOLD = 4;
const STATUS_INSUFFICIENT = 5;
const STATUS_MOVE_LIMIT = 6;
const STATUS_ADJUDICATED_WHITE = 7;
const STATUS_ADJUDICATED_BLACK = 8;
const TERMINATIONS: readonly (Termination | null)[] = [
  null,
  'checkmate',
  'stalemate',
  'fifty-move rule',
  'threefold repetition',
  'insufficient material',
  'move limit',
  'material adjudication',
  'material adjudication',
];

/** The default game-length cap (plies), after which a game is adjudicated a draw. */
export const DEFAULT_MAX_PLIES = 512;

/**
 * A chess game in progress. Treat as opaque: read it through the exported functions (or the `Game`);
 * the fields are public only so the package's modules can share them.
 */
export class ChessState {
  /** @internal The position; mutated in place by `applyMove`. */
  chess: Chess;
  /** @internal The current position and, through `previous`, the game so far. */
  position: PositionRecord;
  /** Plies played since the initial state of this game (not since the FEN's move 1). */
  plies: number;
  /** The game-length cap this state was created with. */
  readonly maxPlies: number;
  /**
   * Material lead (pawns) that wins a game reaching `maxPlies`; 0: such a game is a draw (standard).
   * A training device for short CPU runs, off by default (see the README, "Training").
   */
  readonly adjudicateLead: number;
  /** @internal Legal moves and their actions (same order), or null until first needed. Never mutated: clones share them. */
  legalMoves: InternalMove[] | null;
  /** @internal See `legalMoves`. */
  legalActions: Int32Array | null;
  /** @internal A STATUS_* code, or STATUS_UNKNOWN until first needed. */
  status: number;
  /**
   * @internal Whether material may have changed since the last position that was known not to be a dead
   * draw: true at the start and after captures and promotions. Other moves cannot create insufficient
   * material, which saves chess.js's board scan (~3 µs) on most moves.
   */
  materialChanged: boolean;

  constructor(chess: Chess, position: PositionRecord, plies: number, maxPlies: number, adjudicateLead = 0) {
    this.chess = chess;
    this.position = position;
    this.plies = plies;
    this.maxPlies = maxPlies;
    this.adjudicateLead = adjudicateLead;
    this.legalMoves = null;
    this.legalActions = null;
    this.status = STATUS_UNKNOWN;
    this.materialChanged = true;
  }

  /** The side to move: 'w' or 'b'. */
  get turn(): Color {
    return internals(this.chess)._turn;
  }
}

/** Appends the missing trailing FEN fields ("- - 0 1"), as chess.js's `load` does. */
export function completeFen(fen: string): string {
  const tokens = fen.trim().split(/\s+/);
  if (tokens.length >= 2 && tokens.length < 6) return tokens.concat(['-', '-', '0', '1'].slice(tokens.length - 2)).join(' ');
  return tokens.join(' ');
}

/**
 * Why a FEN cannot start a game, or null if it can: chess.js's validation plus the checks it leaves out
 * (the side not to move must not be in check; the en passant square must follow a double pawn push).
 */
export function fenProblem(fen: string): string | null {
  const full = completeFen(fen);
  const { ok, error } = validateFen(full);
  if (!ok) return error ?? 'Invalid FEN';
  const chess = new Chess(full);
  const c = internals(chess);
  const them: Color = c._turn === 'w' ? 'b' : 'w';
  if (c._isKingAttacked(them)) return `Invalid FEN: the side not to move (${them === 'w' ? 'white' : 'black'}) is in check`;
  if (c._epSquare !== NO_SQUARE) {
    // The pawn that just moved two squares stands in front of the en passant square; the square it left is empty.
    const forward = c._turn === 'w' ? 16 : -16; // from the ep square towards the pushed pawn, in 0x88
    const pawn = c._board[c._epSquare + forward];
    if (pawn?.type !== 'p' || pawn.color !== them || c._board[c._epSquare] || c._board[c._epSquare - forward]) {
      return 'Invalid FEN: the en passant square does not follow a double pawn push';
    }
  }
  return null;
}

/**
 * A chess.js position from a (validated) FEN, normalized so its Zobrist key equals the key of the same
 * position reached by play: castling rights without the king and rook at home are dropped, and an en
 * passant square no pawn could capture on is cleared (chess.js only sets one when a capture is possible).
 */
export function loadChess(fen: string): Chess {
  const problem = fenProblem(fen);
  if (problem) throw new Error(`${problem}: '${fen}'`);
  const chess = new Chess(completeFen(fen));
  const c = internals(chess);
  c._updateCastlingRights();
  if (c._epSquare !== NO_SQUARE) {
    const pushed = c._epSquare + (c._turn === 'w' ? 16 : -16);
    const canCapture = [pushed - 1, pushed + 1].some((sq) => !(sq & 0x88) && c._board[sq]?.type === 'p' && c._board[sq]?.color === c._turn);
    if (!canCapture) c._epSquare = NO_SQUARE;
  }
  c._hash = c._computeHash();
  c._positionCount = new Map();
  return chess;
}

/** A new game from a chess.js position (not copied: the state takes it over). */
export function stateFromChess(chess: Chess, maxPlies: number = DEFAULT_MAX_PLIES, adjudicateLead = 0): ChessState {
  const position: PositionRecord = { key: internals(chess)._hash, repetitions: 0, previous: null, pieces: null };
  return new ChessState(chess, position, 0, maxPlies, adjudicateLead);
}

/** A new game starting from `fen` (any of chess.js's accepted forms, trailing fields optional). Throws on an invalid FEN. */
export function stateFromFen(fen: string, options: { readonly maxPlies?: number; readonly adjudicateLead?: number } = {}): ChessState {
  return stateFromChess(loadChess(fen), options.maxPlies ?? DEFAULT_MAX_PLIES, options.adjudicateLead ?? 0);
}

/** The FEN of the current position (chess.js's, so the en passant square is shown only when a capture is legal). */
export function toFen(state: ChessState): string {
  return state.chess.fen();
}

/** An independent copy. Immutable parts (history records, legal-move cache) are shared. */
export function cloneState(state: ChessState): ChessState {
  const copy = new ChessState(cloneChess(state.chess), state.position, state.plies, state.maxPlies, state.adjudicateLead);
  copy.legalMoves = state.legalMoves;
  copy.legalActions = state.legalActions;
  copy.status = state.status;
  copy.materialChanged = state.materialChanged;
  return copy;
}

function ensureLegalMoves(state: ChessState): void {
  if (state.legalMoves !== null) return;
  const moves = generateLegalMoves(state.chess);
  const actions = new Int32Array(moves.length);
  for (let i = 0; i < moves.length; i++) actions[i] = actionOfInternalMove(moves[i]);
  state.legalMoves = moves;
  state.legalActions = actions;
}

/** The legal moves of the side to move (ignores whether the game has ended by a draw rule). Do not mutate. */
export function legalMovesOf(state: ChessState): readonly InternalMove[] {
  ensureLegalMoves(state);
  return state.legalMoves as InternalMove[];
}

/** The actions of `legalMovesOf`, index for index. Do not mutate. */
export function legalActionsOf(state: ChessState): Int32Array {
  ensureLegalMoves(state);
  return state.legalActions as Int32Array;
}

/** Where an action appears in `legalMovesOf(state)`, or -1 if it is not a legal move here. */
export function legalMoveIndex(state: ChessState, action: number): number {
  const actions = legalActionsOf(state);
  for (let i = 0; i < actions.length; i++) if (actions[i] === action) return i;
  return -1;
}

function computeStatus(state: ChessState): number {
  const c = internals(state.chess);
  // A mate delivered on the hundredth half-move still wins (FIDE 9.3), so mate and stalemate come first.
  if (legalMovesOf(state).length === 0) return inCheck(state.chess) ? STATUS_CHECKMATE : STATUS_STALEMATE;
  if (state.position.repetitions >= 2) return STATUS_THREEFOLD;
  if (c._halfMoves >= 100) return STATUS_FIFTY_MOVES;
  if (state.materialChanged && state.chess.isInsufficientMaterial()) return STATUS_INSUFFICIENT;
  if (state.plies >= state.maxPlies) {
    if (state.adjudicateLead > 0) {
      const lead = materialBalance(state);
      if (lead >= state.adjudicateLead) return STATUS_ADJUDICATED_WHITE;
      if (-lead >= state.adjudicateLead) return STATUS_ADJUDICATED_BLACK;
    }
    return STATUS_MOVE_LIMIT;
  }
  return STATUS_ONGOING;
}

/** White's material minus black's, in pawns (`PIECE_VALUES`). */
export function materialBalance(state: ChessState): number {
  const board = internals(state.chess)._board;
  let balance = 0;
  for (let sq = 0; sq < 128; sq++) {
    const piece = sq & 0x88 ? undefined : board[sq];
    if (piece) balance += piece.color === 'w' ? PIECE_VALUES[piece.type] : -PIECE_VALUES[piece.type];
  }
  return balance;
}

function statusOf(state: ChessState): number {
  if (state.status === STATUS_UNKNOWN) state.status = computeStatus(state);
  return state.status;
}

export function isGameOver(state: ChessState): boolean {
  return statusOf(state) !== STATUS_ONGOING;
}

/** How the game ended, or null while it goes on. */
export function outcomeOf(state: ChessState): Outcome | null {
  const status = statusOf(state);
  const termination = TERMINATIONS[status];
  if (termination === null) return null;
  // After checkmate the side to move is the one that was mated.
  const winner: Color | null =
    status === STATUS_CHECKMATE ? (state.turn === 'w' ? 'b' : 'w') : status === STATUS_ADJUDICATED_WHITE ? 'w' : status === STATUS_ADJUDICATED_BLACK ? 'b' : null;
  return { winner, termination };
}

/** Whether the side to move is in check. */
export function isCheck(state: ChessState): boolean {
  return inCheck(state.chess);
}

/** The half-move clock of the fifty-move rule. */
export function halfMoveClock(state: ChessState): number {
  return internals(state.chess)._halfMoves;
}

/** Castling rights bits (chess.js's: 32 kingside, 64 queenside) of `color`. */
export function castlingRights(state: ChessState, color: Color): number {
  return internals(state.chess)._castling[color];
}

/**
 * The squares of the move that led to this position (the king's for castling), read off the pieces
 * before and after it; null at the start of the game.
 */
export function lastMoveSquares(state: ChessState): { from: Square; to: Square } | null {
  const before = state.position.previous?.pieces;
  if (!before) return null;
  const now = piecesOf(state.position, state.chess);
  const moverIsWhite = state.chess.turn() === 'b';
  const isMover = (code: number): boolean => code !== 0 && code <= BLACK_PIECE_OFFSET === moverIsWhite;
  const isKing = (code: number): boolean => code === PIECE_CODES.k || code === PIECE_CODES.k + BLACK_PIECE_OFFSET;
  let from = -1;
  let to = -1;
  for (let sq = 0; sq < 64; sq++) {
    if (before[sq] === now[sq]) continue;
    if (isMover(before[sq]) && now[sq] === 0 && (from < 0 || isKing(before[sq]))) from = sq;
    if (isMover(now[sq]) && (to < 0 || isKing(now[sq]))) to = sq;
  }
  return from < 0 || to < 0 ? null : { from: squareName(from), to: squareName(to) };
}

/** Pieces of a record by absolute square, computing them from `chess` (which must be at that position) if needed. */
export function piecesOf(record: PositionRecord, chess: Chess): Int8Array {
  if (record.pieces === null) record.pieces = snapshotPieces(chess);
  return record.pieces;
}

function snapshotPieces(chess: Chess): Int8Array {
  const board = internals(chess)._board;
  const pieces = new Int8Array(64);
  for (let index = 0; index < 64; index++) {
    const p = board[((7 - (index >> 3)) << 4) | (index & 7)];
    if (p !== undefined) pieces[index] = PIECE_CODES[p.type] + (p.color === 'b' ? BLACK_PIECE_OFFSET : 0);
  }
  return pieces;
}

/**
 * Plays the legal move at `index` of `legalMovesOf(state)`, in place. The caller has checked that the
 * game is not over.
 */
export function applyLegalMove(state: ChessState, index: number): void {
  const move = (state.legalMoves as InternalMove[])[index];
  // The record of the position we leave becomes history for the encoder: capture its pieces now,
  // while the board still shows them (no-op if already captured).
  piecesOf(state.position, state.chess);
  makeMove(state.chess, move);
  const c = internals(state.chess);
  const key = c._hash;
  // A position can only recur while nothing irreversible happened (the half-move clock counts those plies),
  // and only with the same side to move: look back two plies at a time.
  let repetitions = 0;
  let back: PositionRecord | null = state.position.previous;
  for (let ply = 2; back !== null && ply <= c._halfMoves; ply += 2) {
    if (back.key === key) {
      repetitions = back.repetitions + 1;
      break;
    }
    back = back.previous?.previous ?? null;
  }
  state.position = { key, repetitions, previous: state.position, pieces: null };
  state.plies++;
  state.legalMoves = null;
  state.legalActions = null;
  state.status = STATUS_UNKNOWN;
  // Moves are only played in positions that were not over, so without a capture or promotion the
  // material is still sufficient.
  state.materialChanged = move.captured !== undefined || move.promotion !== undefined;
}

/** A legal move of the position in display form. */
export interface LegalMove {
  readonly from: Square;
  readonly to: Square;
  readonly piece: PieceSymbol;
  readonly promotion?: PieceSymbol;
  readonly captured?: PieceSymbol;
  readonly san: string;
  readonly uci: string;
}

/** SAN of the legal move at `index` of `legalMovesOf(state)` (with + or # suffix). */
export function sanOfLegalMove(state: ChessState, index: number): string {
  const moves = legalMovesOf(state);
  return internals(state.chess)._moveToSan(moves[index], moves as InternalMove[]);
}

/** The legal move an action stands for in this position, or null if it is not legal here. */
export function legalMoveOf(state: ChessState, action: number): LegalMove | null {
  const index = legalMoveIndex(state, action);
  if (index < 0) return null;
  const move = legalMovesOf(state)[index];
  const from = squareName(indexOf0x88(move.from));
  const to = squareName(indexOf0x88(move.to));
  return {
    from,
    to,
    piece: move.piece,
    ...(move.promotion ? { promotion: move.promotion } : {}),
    ...(move.captured ? { captured: move.captured } : {}),
    san: sanOfLegalMove(state, index),
    uci: from + to + (move.promotion ?? ''),
  };
}

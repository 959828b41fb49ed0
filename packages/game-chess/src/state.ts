/**
 * Chess states: a typed-array `Position` (position.ts) plus what the game needs around it (repetition
 * counts, the recent positions the network sees, the ply count for the game-length cap) and lazily
 * computed caches. A chess.js object for the same position is built only when something asks for it
 * (SAN, FEN, rendering, the bots): search never does.
 *
 * Cost model (see README "Performance"): cloning copies two small objects (the state and its position,
 * whose board is eight integer fields) and shares everything immutable (the position history, the
 * legal-move cache); applying a move is `makeMove` on the position plus one new `PositionRecord`; legal
 * moves are generated once per state, on first need.
 */
import { Chess, validateFen, type Color, type PieceSymbol, type Square } from 'chess.js';
import { actionOfInternalMove, actionOfPackedMove, indexOf0x88, packedSquaresOfAction, squareName } from './action-encoding.js';
import { CASTLE_KINGSIDE, CASTLE_QUEENSIDE, internals, NO_SQUARE, type InternalMove } from './internals.js';
import { generateLegalMoves as generateChessJsLegalMoves } from './legal-moves.js';
import {
  BLACK_KINGSIDE,
  BLACK_QUEENSIDE,
  chessFromPosition,
  completeMove,
  generateLegalMoves,
  inCheck,
  isInsufficientMaterial,
  makeMove,
  materialBalance as positionMaterialBalance,
  MAX_MOVES,
  MOVE_CAPTURE,
  moveFrom,
  movePromotion,
  moveTo,
  positionFromChess,
  readCells,
  WHITE_KINGSIDE,
  WHITE_QUEENSIDE,
  type Position,
} from './position.js';

/** Piece codes in `PositionRecord.pieces`: 0 empty, 1..6 white P N B R Q K, 7..12 black P N B R Q K. */
export const PIECE_CODES: Readonly<Record<PieceSymbol, number>> = { p: 1, n: 2, b: 3, r: 4, q: 5, k: 6 };
export const BLACK_PIECE_OFFSET = 6;

/**
 * One position of the game, immutable once created and shared by every state (and clone) that has it in
 * its past: a persistent linked list, so cloning a state never copies its history.
 */
export interface PositionRecord {
  /** The position's Zobrist key (pieces, side to move, castling rights, en passant file), 53 bits. */
  readonly key: number;
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

/** `ChessState.lastMove` at the start of a game. */
const NO_MOVE = -1;

/** The default game-length cap (plies), after which a game is adjudicated a draw. */
export const DEFAULT_MAX_PLIES = 512;

/**
 * A chess game in progress. Treat as opaque: read it through the exported functions (or the `Game`);
 * the fields are public only so the package's modules can share them.
 */
export class ChessState {
  /** @internal The position; mutated in place by `applyLegalMove`. */
  pos: Position;
  /** @internal A chess.js object for `pos`, built on first use; never mutated, so clones share it. */
  chessCache: Chess | null;
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
  /**
   * @internal The actions of the legal moves, or null until first needed. Never mutated: clones share them.
   * A plain array of small integers: allocated on the V8 heap, where an `Int32Array` of more than 16
   * moves needs its own backing store (several times the cost, once per searched position).
   */
  legalActions: readonly number[] | null;
  /** @internal The same legal moves as chess.js moves (same order), for notation; null until first needed. */
  legalMoves: InternalMove[] | null;
  /** @internal A STATUS_* code, or STATUS_UNKNOWN until first needed. */
  status: number;
  /**
   * @internal Whether material may have changed since the last position that was known not to be a dead
   * draw: true at the start and after captures and promotions. Other moves cannot create insufficient
   * material, which saves chess.js's board scan on most moves.
   */
  materialChanged: boolean;
  /**
   * @internal Whether each move keeps the pieces of the position it leaves (`PositionRecord.pieces`), for
   * input planes with history. Games whose encoder shows no history turn it off: a 64-byte copy per move saved.
   */
  keepsHistory: boolean;
  /** @internal The packed move (position.ts) that led here, or NO_MOVE at the start. */
  lastMove: number;

  constructor(pos: Position, chess: Chess | null, position: PositionRecord, plies: number, maxPlies: number, adjudicateLead = 0) {
    this.pos = pos;
    this.chessCache = chess;
    this.position = position;
    this.plies = plies;
    this.maxPlies = maxPlies;
    this.adjudicateLead = adjudicateLead;
    this.legalActions = null;
    this.legalMoves = null;
    this.status = STATUS_UNKNOWN;
    this.materialChanged = true;
    this.keepsHistory = true;
    this.lastMove = NO_MOVE;
  }

  /** @internal The position as a chess.js object (built on first use). Do not mutate it. */
  get chess(): Chess {
    if (this.chessCache === null) this.chessCache = chessFromPosition(this.pos);
    return this.chessCache;
  }

  /** The side to move: 'w' or 'b'. */
  get turn(): Color {
    return this.pos.turn === 0 ? 'w' : 'b';
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

/** A new game from a chess.js position (not copied: the state keeps it, and nothing may mutate it afterwards). */
export function stateFromChess(chess: Chess, maxPlies: number = DEFAULT_MAX_PLIES, adjudicateLead = 0): ChessState {
  return stateFromPosition(positionFromChess(chess), maxPlies, adjudicateLead, chess);
}

/** A new game from a position (taken over, not copied). */
export function stateFromPosition(pos: Position, maxPlies: number = DEFAULT_MAX_PLIES, adjudicateLead = 0, chess: Chess | null = null): ChessState {
  const position: PositionRecord = { key: pos.key, repetitions: 0, previous: null, pieces: null };
  return new ChessState(pos, chess, position, 0, maxPlies, adjudicateLead);
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
  const copy = new ChessState(state.pos.clone(), state.chessCache, state.position, state.plies, state.maxPlies, state.adjudicateLead);
  copy.legalActions = state.legalActions;
  copy.legalMoves = state.legalMoves;
  copy.status = state.status;
  copy.materialChanged = state.materialChanged;
  copy.keepsHistory = state.keepsHistory;
  copy.lastMove = state.lastMove;
  return copy;
}

/** Generator output and its actions, copied out at their length (all calls are synchronous). */
const scratchMoves = new Int32Array(MAX_MOVES);
const scratchActions: number[] = new Array<number>(MAX_MOVES).fill(0);

function ensureLegalActions(state: ChessState): void {
  if (state.legalActions !== null) return;
  const count = generateLegalMoves(state.pos, scratchMoves);
  const black = state.pos.turn;
  for (let i = 0; i < count; i++) scratchActions[i] = actionOfPackedMove(scratchMoves[i], black);
  state.legalActions = scratchActions.slice(0, count);
}

/**
 * The legal moves of the side to move as chess.js moves (ignores whether the game has ended by a draw
 * rule), in the order of `legalActionsOf`. Builds the chess.js position: for notation, not for search.
 * Do not mutate.
 */
export function legalMovesOf(state: ChessState): readonly InternalMove[] {
  if (state.legalMoves === null) {
    const moves = generateChessJsLegalMoves(state.chess);
    const actions = legalActionsOf(state);
    // The two generators must agree move for move (the tests check it widely); a disagreement here is a bug, not bad input.
    if (moves.length !== actions.length || moves.some((move, i) => actionOfInternalMove(move) !== actions[i])) {
      throw new Error(`@az/game-chess: internal error: the move generator disagrees with chess.js in ${state.chess.fen()}`);
    }
    state.legalMoves = moves;
  }
  return state.legalMoves;
}

/** The actions of the legal moves of the side to move. Do not mutate. */
export function legalActionsOf(state: ChessState): readonly number[] {
  ensureLegalActions(state);
  return state.legalActions as readonly number[];
}

/** Where an action appears in `legalMovesOf(state)`, or -1 if it is not a legal move here. */
export function legalMoveIndex(state: ChessState, action: number): number {
  const actions = legalActionsOf(state);
  for (let i = 0; i < actions.length; i++) if (actions[i] === action) return i;
  return -1;
}

function computeStatus(state: ChessState): number {
  // A mate delivered on the hundredth half-move still wins (FIDE 9.3), so mate and stalemate come first.
  if (legalActionsOf(state).length === 0) return inCheck(state.pos) ? STATUS_CHECKMATE : STATUS_STALEMATE;
  if (state.position.repetitions >= 2) return STATUS_THREEFOLD;
  if (state.pos.halfMoves >= 100) return STATUS_FIFTY_MOVES;
  if (state.materialChanged && isInsufficientMaterial(state.pos)) return STATUS_INSUFFICIENT;
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
  return positionMaterialBalance(state.pos);
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
  return inCheck(state.pos);
}

/** Castling rights bits (chess.js's: 32 kingside, 64 queenside) of `color`. */
export function castlingRights(state: ChessState, color: Color): number {
  const rights = state.pos.castling;
  const [kingside, queenside] = color === 'w' ? [WHITE_KINGSIDE, WHITE_QUEENSIDE] : [BLACK_KINGSIDE, BLACK_QUEENSIDE];
  return (rights & kingside ? CASTLE_KINGSIDE : 0) | (rights & queenside ? CASTLE_QUEENSIDE : 0);
}

/**
 * The squares of the move that led to this position (the king's for castling), read off the pieces
 * before and after it; null at the start of the game.
 */
export function lastMoveSquares(state: ChessState): { from: Square; to: Square } | null {
  if (state.lastMove === NO_MOVE) return null;
  return { from: squareName(indexOf0x88(moveFrom(state.lastMove))), to: squareName(indexOf0x88(moveTo(state.lastMove))) };
}

/**
 * Pieces of a record by absolute square, computing them from `pos` if needed: `pos` must be at that
 * position, so only the current record may lack them (earlier ones get theirs when their move is played,
 * if the state keeps history).
 */
export function piecesOf(record: PositionRecord, pos: Position): Int8Array {
  if (record.pieces === null) record.pieces = snapshotPieces(pos);
  return record.pieces;
}

/** The board's 64 cells by absolute index (a1 = 0: cell ^ 56); the piece codes are the same. */
function snapshotPieces(pos: Position): Int8Array {
  const board = readCells(pos);
  const pieces = new Int8Array(64);
  for (let cell = 0; cell < 64; cell++) pieces[cell ^ 56] = board[cell];
  return pieces;
}

/**
 * Plays the legal move at `index` of `legalActionsOf(state)` (the same index in `legalMovesOf`), in
 * place. The caller has checked that the game is not over.
 */
export function applyLegalMove(state: ChessState, index: number): void {
  const pos = state.pos;
  // Only the squares are stored per legal move; the flags come back from the board.
  const move = completeMove(pos, packedSquaresOfAction(legalActionsOf(state)[index], pos.turn));
  // The record of the position we leave becomes history for the encoder: capture its pieces now,
  // while the board still shows them (no-op if already captured).
  if (state.keepsHistory) piecesOf(state.position, pos);
  makeMove(pos, move);
  state.lastMove = move;
  const key = pos.key;
  // A position can only recur while nothing irreversible happened (the half-move clock counts those plies),
  // and only with the same side to move: look back two plies at a time.
  let repetitions = 0;
  let back: PositionRecord | null = state.position.previous;
  for (let ply = 2; back !== null && ply <= pos.halfMoves; ply += 2) {
    if (back.key === key) {
      repetitions = back.repetitions + 1;
      break;
    }
    back = back.previous?.previous ?? null;
  }
  state.position = { key, repetitions, previous: state.position, pieces: null };
  state.plies++;
  state.chessCache = null;
  state.legalActions = null;
  state.legalMoves = null;
  state.status = STATUS_UNKNOWN;
  // Moves are only played in positions that were not over, so without a capture or promotion the
  // material is still sufficient.
  state.materialChanged = (move & MOVE_CAPTURE) !== 0 || movePromotion(move) !== 0;
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

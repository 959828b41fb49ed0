/**
 * The chess `Game`: seats 0 = white, 1 = black.
 */
import type { ChessView, Game, GameTraits, Masker, ParsedAction, ResolvedConfig, Rng } from '@az/core';
import { DEFAULT_POSITION } from 'chess.js';
import { ACTION_SIZE, decodeMove } from './action-encoding.js';
import { ChessEncoder } from './encoding.js';
import { checkChessJsInternals } from './internals.js';
import { positionFromChess, type Position } from './position.js';
import { describeOutcome, formatMove, parseMove, renderBoard } from './notation.js';
import {
  applyLegalMove,
  cloneState,
  DEFAULT_MAX_PLIES,
  isCheck,
  isGameOver,
  lastMoveSquares,
  legalActionsOf,
  legalMoveOf,
  legalMoveIndex,
  loadChess,
  materialBalance,
  outcomeOf,
  stateFromPosition,
  toFen,
  type ChessState,
} from './state.js';

export const DEFAULT_HISTORY = 2;
/** Material lead (pawns) at which `estimateReturns` reaches tanh(1) = 0.76: about a rook. */
const MATERIAL_ESTIMATE_SCALE = 5;

export const CHESS_TRAITS: GameTraits = {
  id: 'chess',
  name: 'Chess',
  description: 'Standard chess (rules from chess.js); games longer than maxPlies are drawn (or, if configured, adjudicated on material)',
  minPlayers: 2,
  maxPlayers: 2,
  information: 'perfect',
  chance: false,
  rewards: 'zero-sum',
  maxGameLength: DEFAULT_MAX_PLIES,
};

/** Seat of a colour: white 0, black 1. */
export function seatOf(color: 'w' | 'b'): number {
  return color === 'w' ? 0 : 1;
}

class ChessMasker implements Masker<ChessState> {
  readonly actionSize = ACTION_SIZE;

  /** Legal moves of a game in progress; none once the game is over (including draws by rule). */
  fillMask(state: ChessState, out: Uint8Array, offset = 0): number {
    out.fill(0, offset, offset + ACTION_SIZE);
    if (isGameOver(state)) return 0;
    const actions = legalActionsOf(state);
    for (let i = 0; i < actions.length; i++) out[offset + actions[i]] = 1;
    return actions.length;
  }

  /** The cached legal actions (shared by clones of this position); none once the game is over. */
  legalActions(state: ChessState): ArrayLike<number> {
    return isGameOver(state) ? NO_ACTIONS : legalActionsOf(state);
  }
}

const NO_ACTIONS: readonly number[] = [];

export class ChessGame implements Game<ChessState> {
  readonly traits = CHESS_TRAITS;
  readonly numPlayers = 2;
  readonly maxGameLength: number;
  readonly encoder: ChessEncoder;
  readonly masker: Masker<ChessState> = new ChessMasker();
  readonly maxPlies: number;
  /** Material lead that wins at the ply cap; 0 (default): a draw. */
  readonly adjudicateLead: number;
  readonly history: number;
  /** The starting position, parsed once; every new game is a cheap copy of it. */
  private readonly start: Position;

  constructor(readonly config: ResolvedConfig) {
    checkChessJsInternals();
    this.maxPlies = typeof config.maxPlies === 'number' ? config.maxPlies : DEFAULT_MAX_PLIES;
    this.history = typeof config.history === 'number' ? config.history : DEFAULT_HISTORY;
    this.adjudicateLead = typeof config.adjudicateLead === 'number' ? config.adjudicateLead : 0;
    const fen = typeof config.fen === 'string' && config.fen.trim() !== '' ? config.fen : DEFAULT_POSITION;
    this.start = positionFromChess(loadChess(fen));
    this.maxGameLength = this.maxPlies;
    this.encoder = new ChessEncoder(this.history);
  }

  initialState(_rng?: Rng): ChessState {
    const state = stateFromPosition(this.start.clone(), this.maxPlies, this.adjudicateLead);
    state.keepsHistory = this.history > 0;
    return state;
  }

  currentPlayer(state: ChessState): number {
    return seatOf(state.turn);
  }

  applyAction(state: ChessState, action: number, _rng?: Rng): void {
    const outcome = outcomeOf(state);
    if (outcome) throw new Error(`chess: the game is over (${describeOutcome(outcome)}); action ${action} cannot be played`);
    const index = legalMoveIndex(state, action);
    if (index < 0) {
      const move = decodeMove(action, state.turn);
      const what = move ? `${move.from}${move.to}${move.underpromotion ?? ''}` : 'off the board';
      throw new Error(`chess: action ${action} (${what}) is not a legal move in ${state.chess.fen()}`);
    }
    applyLegalMove(state, index);
  }

  isTerminal(state: ChessState): boolean {
    return isGameOver(state);
  }

  returns(state: ChessState): Float32Array {
    const outcome = outcomeOf(state);
    const values = new Float32Array(2);
    if (outcome?.winner) {
      values[0] = outcome.winner === 'w' ? 1 : -1;
      values[1] = -values[0];
    }
    return values;
  }

  /**
   * Material as a provisional result, for value shaping in training (never used by search):
   * tanh(lead / 5) for the side ahead, so a pawn is worth about 0.2, a minor piece 0.54, a queen 0.95.
   * Finished games give their result.
   */
  estimateReturns(state: ChessState): Float32Array {
    if (isGameOver(state)) return this.returns(state);
    const white = Math.tanh(materialBalance(state) / MATERIAL_ESTIMATE_SCALE);
    return Float32Array.of(white, 0 - white);
  }

  clone(state: ChessState): ChessState {
    return cloneState(state);
  }

  /**
   * Equal for states the encoder cannot tell apart: the Zobrist keys and repetition counts of the encoded
   * positions, the half-move clock and the ply count.
   */
  hash(state: ChessState): string {
    let text = `${state.plies}:${state.pos.halfMoves}`;
    let record: ChessState['position'] | null = state.position;
    for (let t = 0; t <= this.history && record !== null; t++, record = record.previous) text += `:${record.key}.${record.repetitions}`;
    return text;
  }

  render(state: ChessState, perspective?: number): string {
    return renderBoard(state, perspective);
  }

  formatAction(state: ChessState, action: number): string {
    return formatMove(state, action);
  }

  parseAction(state: ChessState, text: string): ParsedAction {
    return parseMove(state, text);
  }

  /** The FEN of the position (`az play` prints it for `fen`/`position`; `--fen` takes it back). */
  positionText(state: ChessState): string {
    return toFen(state);
  }

  /** The position and every legal move (squares, SAN) for a board component (`az serve`). */
  view(state: ChessState): ChessView {
    const moves: ChessView['moves'][number][] = [];
    if (!isGameOver(state)) {
      for (const action of legalActionsOf(state)) {
        const move = legalMoveOf(state, action);
        if (move) moves.push({ action, from: move.from, to: move.to, ...(move.promotion ? { promotion: move.promotion } : {}), san: move.san });
      }
    }
    const last = lastMoveSquares(state);
    return { kind: 'chess', seatNames: ['White', 'Black'], fen: toFen(state), moves, check: isCheck(state), ...(last ? { lastMove: [last.from, last.to] as const } : {}) };
  }
}

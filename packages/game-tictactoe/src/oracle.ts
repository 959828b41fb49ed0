import { Rng, type Agent } from '@az/core';
import {
  CELLS,
  EMPTY,
  NO_WINNER,
  POW3,
  applyMove,
  boardKey,
  cloneState,
  completesLine,
  isTerminalState,
  newState,
  type TicTacToeState,
} from './rules.js';

/**
 * Exact minimax (negamax) solver. Values are game-theoretic outcomes under perfect play, in {-1, 0, 1},
 * **from the point of view of the player to move** (`state.toMove`): 1 = the mover wins, 0 = draw,
 * -1 = the mover loses. A terminal state is valued for `state.toMove` too, so a won position reads -1
 * (the winner has just moved) and a full board without a line reads 0. The value for seat s is
 * `s === state.toMove ? v : -v`.
 *
 * Results are memoised per (board, player to move) in a 39,366-entry table shared by all callers, so
 * after the first call from the empty board every query is a table look-up plus at most 9 children.
 */

const UNKNOWN = 2;
/** memo[boardKey * 2 + toMove] = value for the mover, or UNKNOWN. */
const memo = new Int8Array(POW3[CELLS - 1] * 3 * 2).fill(UNKNOWN);
/** Scratch board so queries never touch the caller's state. */
const scratch = new Int8Array(CELLS);

function solve(board: Int8Array, toMove: number, moveCount: number, winner: number, key: number): number {
  if (winner !== NO_WINNER) return winner === toMove ? 1 : -1;
  if (moveCount === CELLS) return 0;
  const slot = key * 2 + toMove;
  const cached = memo[slot];
  if (cached !== UNKNOWN) return cached;
  const mark = toMove + 1;
  let best = -2;
  for (let c = 0; c < CELLS && best < 1; c++) {
    if (board[c] !== EMPTY) continue;
    board[c] = mark;
    const w = completesLine(board, c) ? toMove : NO_WINNER;
    const v = 0 - solve(board, 1 - toMove, moveCount + 1, w, key + mark * POW3[c]);
    board[c] = EMPTY;
    if (v > best) best = v;
  }
  memo[slot] = best;
  return best;
}

/** Value of `state` under perfect play for the player to move (see above): -1, 0 or 1. */
export function minimaxValue(state: TicTacToeState): number {
  scratch.set(state.board);
  return solve(scratch, state.toMove, state.moveCount, state.winner, boardKey(scratch));
}

// Negation is written `0 - x` so a draw is always +0, never -0 (values are compared with Object.is in tests).

/** Value of the position after the mover plays `action` (assumed legal), for the mover. */
function actionValue(state: TicTacToeState, action: number): number {
  scratch.set(state.board);
  const mover = state.toMove;
  const mark = mover + 1;
  scratch[action] = mark;
  const w = completesLine(scratch, action) ? mover : NO_WINNER;
  return 0 - solve(scratch, 1 - mover, state.moveCount + 1, w, boardKey(scratch));
}

/** Every legal action that achieves the minimax value, ascending; empty for a terminal state. */
export function optimalActions(state: TicTacToeState): number[] {
  if (isTerminalState(state)) return [];
  const target = minimaxValue(state);
  const out: number[] = [];
  for (let a = 0; a < CELLS; a++) {
    if (state.board[a] === EMPTY && actionValue(state, a) === target) out.push(a);
  }
  return out;
}

/**
 * Every distinct position reachable from the empty board by legal play (play stops at a win):
 * 5,478 positions, 958 of them terminal. Ordered by move count, then by discovery order. Each call
 * returns fresh states the caller may mutate.
 */
export function reachablePositions(): TicTacToeState[] {
  const seen = new Uint8Array(memo.length);
  const out: TicTacToeState[] = [];
  let layer: TicTacToeState[] = [newState()];
  seen[0] = 1;
  while (layer.length > 0) {
    const next: TicTacToeState[] = [];
    for (const s of layer) {
      out.push(s);
      if (isTerminalState(s)) continue;
      for (let a = 0; a < CELLS; a++) {
        if (s.board[a] !== EMPTY) continue;
        const child = cloneState(s);
        applyMove(child, a);
        const slot = boardKey(child.board) * 2 + child.toMove;
        if (seen[slot]) continue;
        seen[slot] = 1;
        next.push(child);
      }
    }
    layer = next;
  }
  return out;
}

/** Plays a uniformly random optimal move (seeded). The perfect baseline: it never loses. */
export class MinimaxAgent implements Agent<TicTacToeState> {
  readonly name = 'minimax';
  private readonly rng: Rng;

  constructor(seed = 0) {
    this.rng = new Rng(seed);
  }

  /** The move for one state; throws on a terminal state. */
  pick(state: TicTacToeState): number {
    const options = optimalActions(state);
    if (options.length === 0) throw new Error('tictactoe minimax: no move in a terminal state');
    return options.length === 1 ? options[0] : options[this.rng.int(options.length)];
  }

  async act(states: readonly TicTacToeState[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) out[i] = this.pick(states[i]);
    return out;
  }
}

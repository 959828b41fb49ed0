/**
 * Tic-tac-toe rules on a flat typed-array state. Everything here is allocation-free except `newState`
 * and `cloneState`; the `Game` wrapper, the notation and the oracle are built on these functions.
 *
 * Cells are numbered 0..8 row-major from the top-left:
 *
 *   0 1 2
 *   3 4 5
 *   6 7 8
 *
 * Seat 0 is X and moves first; seat 1 is O. On the board, 0 = empty, 1 = X (seat 0), 2 = O (seat 1),
 * i.e. a seat's mark is `seat + 1`.
 */

export const EMPTY = 0;
export const X_MARK = 1;
export const O_MARK = 2;
/** Number of cells, which is also the action-space size and the longest possible game. */
export const CELLS = 9;
/** `TicTacToeState.winner` while nobody has three in a row (game still on, or drawn). */
export const NO_WINNER = -1;

/** A position. Owned and mutated in place by the game; `clone` copies the board. */
export interface TicTacToeState {
  /** 9 cells, row-major from the top-left: 0 empty, 1 X (seat 0), 2 O (seat 1). */
  readonly board: Int8Array;
  /** Seat to move next (0 = X, 1 = O). After the final move it is the seat that would have moved. */
  toMove: number;
  /** Marks on the board (0..9). */
  moveCount: number;
  /** Seat with three in a row, or -1 (`NO_WINNER`). Cached by `applyMove`. */
  winner: number;
}

/** The eight winning lines. */
export const LINES: readonly (readonly [number, number, number])[] = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
];

/** For each cell, the other two cells of every line through it, flattened as pairs. */
const PARTNERS: readonly Int8Array[] = Array.from({ length: CELLS }, (_, cell) => {
  const pairs: number[] = [];
  for (const line of LINES) {
    if (line.includes(cell)) for (const other of line) if (other !== cell) pairs.push(other);
  }
  return Int8Array.from(pairs);
});

/** 3^cell, for base-3 board keys. */
export const POW3: Int32Array = Int32Array.from({ length: CELLS }, (_, i) => 3 ** i);

export function newState(): TicTacToeState {
  return { board: new Int8Array(CELLS), toMove: 0, moveCount: 0, winner: NO_WINNER };
}

export function cloneState(state: TicTacToeState): TicTacToeState {
  return { board: state.board.slice(), toMove: state.toMove, moveCount: state.moveCount, winner: state.winner };
}

export function isTerminalState(state: TicTacToeState): boolean {
  return state.winner !== NO_WINNER || state.moveCount === CELLS;
}

/** True when the mark on `cell` completes a line through `cell`. */
export function completesLine(board: Int8Array, cell: number): boolean {
  const mark = board[cell];
  if (mark === EMPTY) return false;
  const p = PARTNERS[cell];
  for (let i = 0; i < p.length; i += 2) {
    if (board[p[i]] === mark && board[p[i + 1]] === mark) return true;
  }
  return false;
}

/** Why `action` is illegal in `state`, or null when it is legal. */
export function illegalReason(state: TicTacToeState, action: number): string | null {
  if (!Number.isInteger(action) || action < 0 || action >= CELLS) {
    return `action ${String(action)} is out of range (actions are cells 0..8)`;
  }
  if (state.winner !== NO_WINNER) return `the game is over (${markChar(state.winner + 1)} won)`;
  if (state.moveCount === CELLS) return 'the game is over (draw)';
  const mark = state.board[action];
  if (mark !== EMPTY) return `cell ${cellName(action)} (${action + 1}) is already taken by ${markChar(mark)}`;
  return null;
}

/** Places the mover's mark on `action`; throws an Error naming the reason if the move is illegal. */
export function applyMove(state: TicTacToeState, action: number): void {
  // Fast path: a legal move is an in-range integer on an empty cell of a live game.
  if (
    !(action >= 0 && action < CELLS && (action | 0) === action) ||
    state.board[action] !== EMPTY ||
    state.winner !== NO_WINNER ||
    state.moveCount === CELLS
  ) {
    throw new Error(`tictactoe: illegal action ${String(action)}: ${illegalReason(state, action) ?? 'unknown reason'}`);
  }
  const seat = state.toMove;
  state.board[action] = seat + 1;
  state.moveCount++;
  if (completesLine(state.board, action)) state.winner = seat;
  state.toMove = 1 - seat;
}

/** '.', 'X' or 'O' for a board value. */
export function markChar(mark: number): string {
  return mark === X_MARK ? 'X' : mark === O_MARK ? 'O' : '.';
}

/** Column letter + row number, top row is 1: cell 0 = a1, 2 = c1, 4 = b2, 8 = c3. */
export function cellName(cell: number): string {
  return 'abc'[cell % 3] + String(Math.floor(cell / 3) + 1);
}

/** Base-3 value of the board (cell i contributes board[i] * 3^i): 0..19682. */
export function boardKey(board: Int8Array): number {
  let k = 0;
  for (let i = 0; i < CELLS; i++) k += board[i] * POW3[i];
  return k;
}

/**
 * Connect Four rules on a flat typed-array board. Plain state and functions, no az types: the `Game`
 * in game.ts adapts them to the contract.
 *
 * The board has `rows` x `cols` cells (6 x 7 by default), stored row-major with row 0 at the TOP, so
 * that the network's planes (encoding.ts) look like the board as printed. A disc dropped in a column
 * falls to the lowest empty cell. Seat 0 ('X') moves first; a seat's disc is `seat + 1`.
 */

export const EMPTY = 0;
export const NO_WINNER = -1;

export interface Connect4Rules {
  readonly rows: number;
  readonly cols: number;
  /** Discs in a line needed to win. */
  readonly connect: number;
}

export const STANDARD_RULES: Connect4Rules = { rows: 6, cols: 7, connect: 4 };

export interface Connect4State {
  /** rows * cols cells, row-major from the top-left: 0 empty, 1 X (seat 0), 2 O (seat 1). */
  readonly board: Int8Array;
  /** Discs in each column. */
  readonly heights: Int8Array;
  toMove: number;
  moves: number;
  /** Seat that connected, or -1. */
  winner: number;
}

export function newState(rules: Connect4Rules): Connect4State {
  return { board: new Int8Array(rules.rows * rules.cols), heights: new Int8Array(rules.cols), toMove: 0, moves: 0, winner: NO_WINNER };
}

export function cloneState(s: Connect4State): Connect4State {
  return { board: s.board.slice(), heights: s.heights.slice(), toMove: s.toMove, moves: s.moves, winner: s.winner };
}

export function isOver(rules: Connect4Rules, s: Connect4State): boolean {
  return s.winner !== NO_WINNER || s.moves === rules.rows * rules.cols;
}

/** Why dropping in `col` is illegal, or null. */
export function illegalReason(rules: Connect4Rules, s: Connect4State, col: number): string | null {
  if (s.winner !== NO_WINNER) return 'the game is over';
  if (s.moves === rules.rows * rules.cols) return 'the game is over (the board is full)';
  if (!Number.isInteger(col) || col < 0 || col >= rules.cols) return `there is no column ${col + 1} (columns are 1-${rules.cols})`;
  if (s.heights[col] >= rules.rows) return `column ${col + 1} is full`;
  return null;
}

/** Number of `seat`'s discs in a line through (row, col) along (dr, dc), counting the cell itself. */
function lineLength(rules: Connect4Rules, board: Int8Array, row: number, col: number, dr: number, dc: number): number {
  const mark = board[row * rules.cols + col];
  let n = 1;
  for (const sign of [1, -1]) {
    let r = row + sign * dr;
    let c = col + sign * dc;
    while (r >= 0 && r < rules.rows && c >= 0 && c < rules.cols && board[r * rules.cols + c] === mark) {
      n++;
      r += sign * dr;
      c += sign * dc;
    }
  }
  return n;
}

/** True when the disc at (row, col) completes a line. */
export function connects(rules: Connect4Rules, board: Int8Array, row: number, col: number): boolean {
  return (
    lineLength(rules, board, row, col, 0, 1) >= rules.connect ||
    lineLength(rules, board, row, col, 1, 0) >= rules.connect ||
    lineLength(rules, board, row, col, 1, 1) >= rules.connect ||
    lineLength(rules, board, row, col, 1, -1) >= rules.connect
  );
}

/** The row a disc dropped in `col` lands on (row 0 is the top). */
export function landingRow(rules: Connect4Rules, s: Connect4State, col: number): number {
  return rules.rows - 1 - s.heights[col];
}

/** Drops the mover's disc in `col`; throws when that is illegal. */
export function drop(rules: Connect4Rules, s: Connect4State, col: number): void {
  const why = illegalReason(rules, s, col);
  if (why) throw new Error(`connect4: cannot drop in column ${col + 1}: ${why}`);
  const row = landingRow(rules, s, col);
  s.board[row * rules.cols + col] = s.toMove + 1;
  s.heights[col]++;
  s.moves++;
  if (connects(rules, s.board, row, col)) s.winner = s.toMove;
  s.toMove = 1 - s.toMove;
}

/** Whether dropping `seat`'s disc in `col` would connect (the column must have room). */
export function wouldConnect(rules: Connect4Rules, s: Connect4State, col: number, seat: number): boolean {
  const row = landingRow(rules, s, col);
  const i = row * rules.cols + col;
  s.board[i] = seat + 1;
  const win = connects(rules, s.board, row, col);
  s.board[i] = EMPTY;
  return win;
}

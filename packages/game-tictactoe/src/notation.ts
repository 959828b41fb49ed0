import type { ParsedAction } from '@az/core';
import { CELLS, EMPTY, NO_WINNER, cellName, isTerminalState, markChar, type TicTacToeState } from './rules.js';

/**
 * Human notation. A cell is typed either as its number 1..9 (row-major from the top-left, like a
 * phone keypad) or as column letter + row number, a1..c3, with columns a b c left to right and
 * rows 1 2 3 top to bottom. So a1 = 1 (top-left), b2 = 5 (centre), c3 = 9 (bottom-right).
 * `formatAction` writes the column+row form.
 */

const MOVE_HELP = 'type a cell number 1-9 or column a-c + row 1-3 (e.g. b2 = 5, the centre)';

export function formatCell(action: number): string {
  if (!Number.isInteger(action) || action < 0 || action >= CELLS) {
    throw new RangeError(`tictactoe: action ${String(action)} is out of range (0..8)`);
  }
  return cellName(action);
}

/** The legal moves as "a1 (1), c1 (3), ...", or "none" when the game is over. */
export function describeLegalMoves(state: TicTacToeState): string {
  if (isTerminalState(state)) return 'none';
  const parts: string[] = [];
  for (let i = 0; i < CELLS; i++) if (state.board[i] === EMPTY) parts.push(`${cellName(i)} (${i + 1})`);
  return parts.join(', ');
}

export function parseMove(state: TicTacToeState, text: string): ParsedAction {
  const t = text.trim().toLowerCase();
  let action = -1;
  if (/^[1-9]$/.test(t)) {
    action = Number(t) - 1;
  } else {
    const m = /^([a-c])([1-3])$/.exec(t);
    if (m) action = (Number(m[2]) - 1) * 3 + (m[1].charCodeAt(0) - 97);
  }
  if (action < 0) {
    return { ok: false, error: `'${text.trim()}' is not a cell: ${MOVE_HELP}; legal moves: ${describeLegalMoves(state)}` };
  }
  if (state.winner !== NO_WINNER) return { ok: false, error: `the game is over: ${markChar(state.winner + 1)} has won` };
  if (state.moveCount === CELLS) return { ok: false, error: 'the game is over: it is a draw' };
  const mark = state.board[action];
  if (mark !== EMPTY) {
    return {
      ok: false,
      error: `${cellName(action)} (${action + 1}) is already taken by ${markChar(mark)}; legal moves: ${describeLegalMoves(state)}`,
    };
  }
  return { ok: true, action };
}

/**
 * The board with coordinates, a keypad of cell numbers beside it, and a status line, e.g.
 *
 *      a b c
 *   1  X . O     1 2 3
 *   2  . X .     4 5 6
 *   3  . . .     7 8 9
 *   O to move (move 4): type 1-9 or a1-c3, e.g. b2 = 5.
 */
export function renderBoard(state: TicTacToeState): string {
  const b = state.board;
  const lines = ['   a b c'];
  for (let r = 0; r < 3; r++) {
    const row = [markChar(b[r * 3]), markChar(b[r * 3 + 1]), markChar(b[r * 3 + 2])].join(' ');
    const keys = [r * 3 + 1, r * 3 + 2, r * 3 + 3].join(' ');
    lines.push(`${r + 1}  ${row}     ${keys}`);
  }
  if (state.winner !== NO_WINNER) lines.push(`${markChar(state.winner + 1)} wins.`);
  else if (state.moveCount === CELLS) lines.push('Draw.');
  else lines.push(`${markChar(state.toMove + 1)} to move (move ${state.moveCount + 1}): type 1-9 or a1-c3, e.g. b2 = 5.`);
  return lines.join('\n');
}

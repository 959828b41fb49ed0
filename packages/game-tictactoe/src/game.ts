import type { Game, GameTraits, GridView, ParsedAction, ResolvedConfig, Symmetry } from '@az/core';
import { TicTacToeEncoder, TicTacToeMasker } from './encoding.js';
import { formatCell, parseMove, renderBoard } from './notation.js';
import { ticTacToeSymmetries } from './symmetry.js';
import { CELLS, LINES, NO_WINNER, applyMove, cloneState, isTerminalState, markChar, newState, type TicTacToeState } from './rules.js';

export const TICTACTOE_TRAITS: GameTraits = {
  id: 'tictactoe',
  name: 'Tic-tac-toe',
  description: 'Three in a row on a 3x3 board. X (seat 0) moves first; a draw with perfect play.',
  minPlayers: 2,
  maxPlayers: 2,
  information: 'perfect',
  chance: false,
  rewards: 'zero-sum',
  maxGameLength: CELLS,
};

/** The `Game` for tic-tac-toe. The config has no fields; `rng` arguments are ignored (no chance). */
export class TicTacToeGame implements Game<TicTacToeState> {
  readonly traits = TICTACTOE_TRAITS;
  readonly numPlayers = 2;
  readonly maxGameLength = CELLS;
  readonly encoder = new TicTacToeEncoder();
  readonly masker = new TicTacToeMasker();
  readonly symmetries: readonly Symmetry[] = ticTacToeSymmetries();

  constructor(readonly config: ResolvedConfig = {}) {}

  initialState(): TicTacToeState {
    return newState();
  }

  currentPlayer(state: TicTacToeState): number {
    return state.toMove;
  }

  applyAction(state: TicTacToeState, action: number): void {
    applyMove(state, action);
  }

  isTerminal(state: TicTacToeState): boolean {
    return isTerminalState(state);
  }

  /** [1, -1] when X has won, [-1, 1] when O has won, [0, 0] for a draw or a game still on. */
  returns(state: TicTacToeState): Float32Array {
    const r = new Float32Array(2);
    if (state.winner !== NO_WINNER) {
      r[state.winner] = 1;
      r[1 - state.winner] = -1;
    }
    return r;
  }

  clone(state: TicTacToeState): TicTacToeState {
    return cloneState(state);
  }

  /** Nine characters of '.', 'X', 'O' (row-major) then the mover, e.g. "X...O....|X". */
  hash(state: TicTacToeState): string {
    let s = '';
    for (let i = 0; i < CELLS; i++) s += markChar(state.board[i]);
    return `${s}|${markChar(state.toMove + 1)}`;
  }

  render(state: TicTacToeState): string {
    return renderBoard(state);
  }

  /** Column + row, e.g. 'b2' for action 4; `parseAction` reads it back. */
  formatAction(_state: TicTacToeState, action: number): string {
    return formatCell(action);
  }

  /** Accepts '1'..'9' and 'a1'..'c3' (case-insensitive, trimmed). */
  parseAction(state: TicTacToeState, text: string): ParsedAction {
    return parseMove(state, text);
  }

  /** The 3x3 grid for graphical front ends: marks, the empty cells to click, the winning line, the seats' marks as names. */
  view(state: TicTacToeState): GridView {
    const cells: GridView['cells'] = Array.from(state.board, (mark) => (mark === 0 ? null : { seat: mark - 1, label: markChar(mark) }));
    const targets: { action: number; cell: number }[] = [];
    if (!isTerminalState(state)) for (let i = 0; i < CELLS; i++) if (state.board[i] === 0) targets.push({ action: i, cell: i });
    const line = state.winner === NO_WINNER ? undefined : LINES.find((l) => l.every((i) => state.board[i] === state.winner + 1));
    // Coordinates as the notation names cells (a1 top-left, c3 bottom-right), so the board reads as `formatAction` writes.
    return { kind: 'grid', rows: 3, cols: 3, cells, targets, ...(line ? { highlight: [...line] } : {}), seatNames: ['X', 'O'], columnLabels: ['a', 'b', 'c'], rowLabels: ['1', '2', '3'] };
  }
}

import type { Game, GameTraits, GridView, ParsedAction, ResolvedConfig, Symmetry } from '@az/core';
import { Connect4Encoder, Connect4Masker, PLANES } from './encoding.js';
import { NO_WINNER, STANDARD_RULES, cloneState, drop, illegalReason, isOver, landingRow, newState, type Connect4Rules, type Connect4State } from './rules.js';

export const CONNECT4_TRAITS: GameTraits = {
  id: 'connect4',
  name: 'Connect Four',
  description: 'Drop discs into a 6x7 grid; four in a row (across, down or diagonal) wins. The first player wins with perfect play.',
  minPlayers: 2,
  maxPlayers: 2,
  information: 'perfect',
  chance: false,
  rewards: 'zero-sum',
  maxGameLength: STANDARD_RULES.rows * STANDARD_RULES.cols,
};

export function rulesOf(config: ResolvedConfig): Connect4Rules {
  return {
    rows: Number(config.rows ?? STANDARD_RULES.rows),
    cols: Number(config.cols ?? STANDARD_RULES.cols),
    connect: Number(config.connect ?? STANDARD_RULES.connect),
  };
}

const MARKS = ['.', 'X', 'O'];

/**
 * The left-right mirror, the game's one symmetry: column c becomes cols-1-c, in the actions and in
 * every plane. The trainer uses it to double its training data.
 */
export function mirrorSymmetry(rules: Connect4Rules): Symmetry {
  const { rows, cols } = rules;
  const actionMap = Int32Array.from({ length: cols }, (_, c) => cols - 1 - c);
  const inputMap = new Int32Array(rows * cols * PLANES);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      for (let p = 0; p < PLANES; p++) inputMap[(r * cols + c) * PLANES + p] = (r * cols + (cols - 1 - c)) * PLANES + p;
    }
  }
  return { inputMap, actionMap };
}

export class Connect4Game implements Game<Connect4State> {
  readonly traits = CONNECT4_TRAITS;
  readonly numPlayers = 2;
  readonly rules: Connect4Rules;
  readonly maxGameLength: number;
  readonly encoder: Connect4Encoder;
  readonly masker: Connect4Masker;
  readonly symmetries: readonly Symmetry[];

  constructor(readonly config: ResolvedConfig) {
    this.rules = rulesOf(config);
    this.maxGameLength = this.rules.rows * this.rules.cols;
    this.encoder = new Connect4Encoder(this.rules);
    this.masker = new Connect4Masker(this.rules);
    this.symmetries = [mirrorSymmetry(this.rules)];
  }

  initialState(): Connect4State {
    return newState(this.rules);
  }

  currentPlayer(state: Connect4State): number {
    return state.toMove;
  }

  applyAction(state: Connect4State, action: number): void {
    drop(this.rules, state, action);
  }

  isTerminal(state: Connect4State): boolean {
    return isOver(this.rules, state);
  }

  returns(state: Connect4State): Float32Array {
    const r = new Float32Array(2);
    if (state.winner !== NO_WINNER) {
      r[state.winner] = 1;
      r[1 - state.winner] = -1;
    }
    return r;
  }

  clone(state: Connect4State): Connect4State {
    return cloneState(state);
  }

  hash(state: Connect4State): string {
    let s = '';
    for (let i = 0; i < state.board.length; i++) s += MARKS[state.board[i]];
    return `${s}|${MARKS[state.toMove + 1]}`;
  }

  render(state: Connect4State): string {
    const { rows, cols } = this.rules;
    const lines: string[] = [];
    for (let r = 0; r < rows; r++) {
      let line = ' ';
      for (let c = 0; c < cols; c++) line += ` ${MARKS[state.board[r * cols + c]]}`;
      lines.push(line);
    }
    lines.push(' ' + Array.from({ length: cols }, (_, c) => ` ${c + 1}`).join(''));
    if (state.winner !== NO_WINNER) lines.push(`${MARKS[state.winner + 1]} has connected ${this.rules.connect} and wins`);
    else if (isOver(this.rules, state)) lines.push('the board is full: a draw');
    else lines.push(`${MARKS[state.toMove + 1]} to move: type a column 1-${cols}`);
    return lines.join('\n');
  }

  /** The column, 1-based: '4' is the centre of the standard board. */
  formatAction(_state: Connect4State, action: number): string {
    return String(action + 1);
  }

  /** Reads a column as a number 1..cols or a letter a.. (left to right). */
  parseAction(state: Connect4State, text: string): ParsedAction {
    const t = text.trim().toLowerCase();
    let col = -1;
    if (/^\d+$/.test(t)) col = Number(t) - 1;
    else if (/^[a-z]$/.test(t)) col = t.charCodeAt(0) - 97;
    else return { ok: false, error: `'${text.trim()}' is not a column: type 1-${this.rules.cols}` };
    const why = illegalReason(this.rules, state, col);
    return why ? { ok: false, error: why } : { ok: true, action: col };
  }

  /** The grid for graphical front ends; a click anywhere in a column drops there (the target is the landing cell). */
  view(state: Connect4State): GridView {
    const { cols } = this.rules;
    const cells: GridView['cells'] = Array.from(state.board, (mark) => (mark === 0 ? null : { seat: mark - 1, label: '' }));
    const targets: { action: number; cell: number }[] = [];
    if (!isOver(this.rules, state)) {
      for (let c = 0; c < cols; c++) if (illegalReason(this.rules, state, c) === null) targets.push({ action: c, cell: landingRow(this.rules, state, c) * cols + c });
    }
    // Connect Four names a move by its column alone (1 = leftmost, as `formatAction` writes): no row labels.
    const columnLabels = Array.from({ length: cols }, (_, c) => String(c + 1));
    return { kind: 'grid', rows: this.rules.rows, cols, cells, targets, seatNames: ['Red', 'Blue'], columnLabels };
  }
}

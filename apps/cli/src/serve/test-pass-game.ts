// Test helper: a small grid game with a pass, the kind of plugin the built-in games are not, for the
// az serve tests of views a plugin fills in. Two seats (Black, White) claim cells of a 2 x 3 board or
// pass; the game ends when the board is full or both pass in a row, and more cells wins. The `view`
// setting picks how it shows itself: a grid, its own kind carrying a grid, or its own kind as text.
import { GAME_CONTRACT_VERSION, type ConfigSchema, type Game, type GamePlugin, type GameView, type GridView, type ResolvedConfig } from '@az/core';

const ROWS = 2;
const COLS = 3;
const CELLS = ROWS * COLS;
/** The action that passes; 0..CELLS-1 claim that cell. */
export const PASS = CELLS;

export interface ClaimState {
  readonly board: number[];
  toMove: number;
  passes: number;
}

const schema: ConfigSchema = {
  view: { type: 'enum', values: ['grid', 'custom-grid', 'custom-text'], default: 'grid', description: 'how the view is shown' },
};

function isOver(s: ClaimState): boolean {
  return s.passes >= 2 || s.board.every((c) => c !== 0);
}

function viewOf(s: ClaimState, shape: string): GameView {
  const cells: GridView['cells'] = s.board.map((c) => (c === 0 ? null : { seat: c - 1, label: c === 1 ? 'B' : 'W' }));
  const targets = isOver(s) ? [] : s.board.flatMap((c, cell) => (c === 0 ? [{ action: cell, cell }] : []));
  const actions = isOver(s) ? [] : [{ action: PASS, label: 'Pass' }];
  const seatNames = ['Black', 'White'];
  const board = { rows: ROWS, cols: COLS, cells, targets, columnLabels: ['a', 'b', 'c'], rowLabels: ['2', '1'] };
  if (shape === 'custom-grid') return { kind: 'custom:claim', ...board, actions, seatNames, data: { passes: s.passes } };
  if (shape === 'custom-text') return { kind: 'custom:claim', lines: [`claimed: ${s.board.filter((c) => c !== 0).length} of ${CELLS}`, `passes in a row: ${s.passes}`], actions, seatNames };
  return { kind: 'grid', ...board, actions, seatNames };
}

function createClaim(config: ResolvedConfig): Game<ClaimState> {
  const shape = String(config.view);
  const cellName = (cell: number): string => 'abc'[cell % COLS] + String(ROWS - Math.floor(cell / COLS));
  return {
    traits: claimPlugin.traits,
    config,
    numPlayers: 2,
    maxGameLength: 2 * CELLS + 1,
    encoder: {
      version: 'claim-1',
      shape: [CELLS + 1],
      size: CELLS + 1,
      encode(s, perspective, out, offset) {
        for (let i = 0; i < CELLS; i++) out[offset + i] = s.board[i] === 0 ? 0 : s.board[i] - 1 === perspective ? 1 : -1;
        out[offset + CELLS] = s.passes;
      },
    },
    masker: {
      actionSize: CELLS + 1,
      fillMask(s, out, offset = 0) {
        let n = 0;
        for (let a = 0; a <= CELLS; a++) n += out[offset + a] = !isOver(s) && (a === PASS || s.board[a] === 0) ? 1 : 0;
        return n;
      },
    },
    initialState: () => ({ board: new Array<number>(CELLS).fill(0), toMove: 0, passes: 0 }),
    currentPlayer: (s) => s.toMove,
    applyAction(s, action) {
      if (isOver(s) || !(action === PASS || (Number.isInteger(action) && action >= 0 && action < CELLS && s.board[action] === 0))) throw new Error(`claim: illegal action ${action}`);
      if (action === PASS) s.passes++;
      else {
        s.board[action] = s.toMove + 1;
        s.passes = 0;
      }
      s.toMove = 1 - s.toMove;
    },
    isTerminal: isOver,
    returns(s) {
      const r = new Float32Array(2);
      if (!isOver(s)) return r;
      const black = s.board.filter((c) => c === 1).length;
      const white = s.board.filter((c) => c === 2).length;
      r[0] = Math.sign(black - white);
      r[1] = -r[0];
      return r;
    },
    clone: (s) => ({ board: [...s.board], toMove: s.toMove, passes: s.passes }),
    hash: (s) => `${s.board.join('')}|${s.toMove}|${s.passes}`,
    render: (s) => `${s.board.map((c) => '.BW'[c]).join('')} (${s.passes} passes)`,
    formatAction: (_s, action) => (action === PASS ? 'pass' : cellName(action)),
    parseAction(s, text) {
      const t = text.trim().toLowerCase();
      const action = t === 'pass' ? PASS : Array.from({ length: CELLS }, (_, c) => cellName(c)).indexOf(t);
      if (action < 0 || (action !== PASS && s.board[action] !== 0) || isOver(s)) return { ok: false, error: `'${text}' is not a free cell (a1..c2) or pass` };
      return { ok: true, action };
    },
    view: (s) => viewOf(s, shape),
  };
}

export const claimPlugin: GamePlugin<ClaimState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: { id: 'claim', name: 'Claim', description: 'claim cells of a 2 x 3 board or pass; more cells wins', minPlayers: 2, maxPlayers: 2, information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: 2 * CELLS + 1 },
  configSchema: schema,
  create: createClaim,
};

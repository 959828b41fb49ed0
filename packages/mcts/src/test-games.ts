// Small games for the search's own tests (not part of the build): a compact tic-tac-toe and a
// three-seat game whose answer depends on each seat maximising its own value.
import type { Encoder, Game, GameTraits, Masker, ParsedAction, ResolvedConfig } from '@az/core';
import type { TreeArrays } from './gumbel.js';

export interface TttState {
  board: Int8Array; // 0 empty, 1 seat 0, 2 seat 1
  toMove: number;
  winner: number; // -1 none, 0/1 seat, 2 draw
}

const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6],
];

function traits(id: string, players: number, maxLen: number): GameTraits {
  return { id, name: id, description: id, minPlayers: players, maxPlayers: players, information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: maxLen };
}

export function tttFromString(s: string, toMove: number): TttState {
  const board = new Int8Array(9);
  for (let i = 0; i < 9; i++) board[i] = s[i] === 'X' ? 1 : s[i] === 'O' ? 2 : 0;
  const st: TttState = { board, toMove, winner: -1 };
  st.winner = tttWinner(board);
  return st;
}

function tttWinner(b: Int8Array): number {
  for (const [x, y, z] of LINES) if (b[x] && b[x] === b[y] && b[x] === b[z]) return b[x] - 1;
  return b.every((c) => c !== 0) ? 2 : -1;
}

export function makeTestTicTacToe(): Game<TttState> {
  const encoder: Encoder<TttState> = {
    version: 'test', shape: [18], size: 18,
    encode(s, p, out, off) {
      for (let i = 0; i < 9; i++) {
        out[off + i] = s.board[i] === p + 1 ? 1 : 0;
        out[off + 9 + i] = s.board[i] === 2 - p ? 1 : 0;
      }
    },
  };
  const masker: Masker<TttState> = {
    actionSize: 9,
    fillMask(s, out, off = 0) {
      let n = 0;
      for (let i = 0; i < 9; i++) {
        const legal = s.winner < 0 && s.board[i] === 0 ? 1 : 0;
        out[off + i] = legal;
        n += legal;
      }
      return n;
    },
  };
  return {
    traits: traits('test-ttt', 2, 9), config: {} as ResolvedConfig, numPlayers: 2, maxGameLength: 9, encoder, masker,
    initialState: () => tttFromString('.........', 0),
    currentPlayer: (s) => s.toMove,
    applyAction(s, a) {
      if (s.winner >= 0 || s.board[a] !== 0) throw new Error(`illegal ${a}`);
      s.board[a] = s.toMove + 1;
      s.toMove = 1 - s.toMove;
      s.winner = tttWinner(s.board);
    },
    isTerminal: (s) => s.winner >= 0,
    returns: (s) => Float32Array.from(s.winner === 0 ? [1, -1] : s.winner === 1 ? [-1, 1] : [0, 0]),
    clone: (s) => ({ board: s.board.slice(), toMove: s.toMove, winner: s.winner }),
    hash: (s) => `${s.board.join('')}${s.toMove}`,
    render: (s) => s.board.join(''),
    formatAction: (_s, a) => String(a),
    parseAction: (_s, t): ParsedAction => ({ ok: true, action: Number(t) }),
  };
}

/**
 * Three seats. Seat 0 picks a in {0,1}, then seat 1 picks b in {0,1}; seat 2 never moves.
 * Returns: (0,0) [1,-1,0]; (0,1) [-1,1,0]; (1,0) [0.5,0,-1]; (1,1) [0.2,-0.5,0].
 * Seat 1 answers a=0 with b=1 and a=1 with b=0, so seat 0's best is a=1, worth [0.5, 0, -1].
 */
export interface ThreeSeatState { moves: number[] }
export const THREE_SEAT_RETURNS: Record<string, number[]> = { '0,0': [1, -1, 0], '0,1': [-1, 1, 0], '1,0': [0.5, 0, -1], '1,1': [0.2, -0.5, 0] };

export function makeThreeSeatGame(): Game<ThreeSeatState> {
  return {
    traits: traits('test-three', 3, 2), config: {} as ResolvedConfig, numPlayers: 3, maxGameLength: 2,
    encoder: { version: 'test', shape: [2], size: 2, encode(s, _p, out, off) { out[off] = s.moves[0] ?? -1; out[off + 1] = s.moves.length; } },
    masker: { actionSize: 2, fillMask(s, out, off = 0) { const n = s.moves.length < 2 ? 1 : 0; out[off] = n; out[off + 1] = n; return 2 * n; } },
    initialState: () => ({ moves: [] }),
    currentPlayer: (s) => s.moves.length,
    applyAction(s, a) { s.moves.push(a); },
    isTerminal: (s) => s.moves.length === 2,
    returns: (s) => Float32Array.from(THREE_SEAT_RETURNS[s.moves.join(',')] ?? [0, 0, 0]),
    clone: (s) => ({ moves: s.moves.slice() }),
    hash: (s) => s.moves.join(','),
    render: (s) => s.moves.join(','),
    formatAction: (_s, a) => String(a),
    parseAction: (_s, t): ParsedAction => ({ ok: true, action: Number(t) }),
  };
}

/**
 * The tree arrays of a root (node 0, seat 0 to move) with one expanded level of leaf children (nodes
 * 1..k, seat 1 to move), for unit tests of root rules (Gumbel, forced playouts) without a search.
 */
export function rootWithChildren(P: number, actions: readonly number[], visits: Int32Array, priors: readonly number[], valueSum: Float32Array): TreeArrays {
  const n = actions.length + 1;
  return {
    P,
    actionOf: Int32Array.from([-1, ...actions]),
    firstChild: Int32Array.from({ length: n }, (_, i) => (i === 0 ? 1 : -1)),
    childCount: Int32Array.from({ length: n }, (_, i) => (i === 0 ? actions.length : 0)),
    visits,
    pendingVisits: new Int32Array(n),
    prior: Float32Array.from([0, ...priors]),
    toPlay: Int8Array.from({ length: n }, (_, i) => (i === 0 ? 0 : 1)),
    flags: new Uint8Array(n),
    valueSum,
    terminalValue: new Float32Array(n * P),
    solvedFlag: 8,
    virtualLoss: 1,
  };
}

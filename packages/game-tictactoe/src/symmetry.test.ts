import { describe, expect, it } from 'vitest';
import { Rng } from '@az/core';
import { TicTacToeGame } from './game.js';
import { minimaxValue, reachablePositions } from './oracle.js';
import { applyMove, cloneState } from './rules.js';

const game = new TicTacToeGame({});

describe('tic-tac-toe symmetries', () => {
  it('are 7 distinct permutations that map encodings of positions to encodings of transformed positions', () => {
    const syms = game.symmetries;
    expect(syms).toHaveLength(7);
    const keys = new Set(syms.map((s) => Array.from(s.actionMap).join(',')));
    expect(keys.size).toBe(7);
    for (const s of syms) expect([...s.actionMap].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const positions = reachablePositions();
    const rng = new Rng(1);
    const a = new Float32Array(27);
    const b = new Float32Array(27);
    for (let k = 0; k < 200; k++) {
      const s = positions[rng.int(positions.length)];
      for (const sym of syms) {
        // Build the transformed position by replaying marks on mapped cells.
        const t = cloneState(s);
        t.board.fill(0);
        for (let c = 0; c < 9; c++) t.board[sym.actionMap[c]] = s.board[c];
        game.encoder.encode(s, s.toMove, a, 0);
        game.encoder.encode(t, t.toMove, b, 0);
        const mapped = new Float32Array(27);
        for (let i = 0; i < 27; i++) mapped[sym.inputMap[i]] = a[i];
        expect(Array.from(mapped)).toEqual(Array.from(b));
        // The game value is invariant.
        expect(minimaxValue(t)).toBe(minimaxValue(s));
      }
    }
  });
});

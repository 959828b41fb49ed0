import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { ticTacToePlugin } from './plugin.js';

const game = ticTacToePlugin.create({});
const rng = new Rng(3);

describe('tictactoe notation', () => {
  it('formats column+row and parses it back, and numbers 1-9 agree', () => {
    const s = game.initialState(rng);
    const names = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];
    for (let a = 0; a < 9; a++) {
      const text = game.formatAction(s, a);
      expect(text).toBe(names[a]);
      expect(game.parseAction(s, text)).toEqual({ ok: true, action: a });
      expect(game.parseAction(s, String(a + 1))).toEqual({ ok: true, action: a });
      expect(game.parseAction(s, `  ${text.toUpperCase()}\n`)).toEqual({ ok: true, action: a });
    }
  });

  it("the view's coordinates name each cell as formatAction writes it, and its seats by their marks", () => {
    const s = game.initialState(rng);
    const view = game.view!(s, 0);
    if (view.kind !== 'grid') throw new Error(`a grid view, not ${view.kind}`);
    for (let cell = 0; cell < 9; cell++) {
      expect(`${view.columnLabels?.[cell % view.cols]}${view.rowLabels?.[Math.floor(cell / view.cols)]}`).toBe(game.formatAction(s, cell));
    }
    expect(view.seatNames).toEqual(['X', 'O']);
  });

  it('rejects garbage, explaining the notation and listing legal moves', () => {
    const s = game.initialState(rng);
    game.applyAction(s, 4, rng);
    for (const bad of ['', '0', '10', 'd1', 'a4', 'b 2', '2b', 'x', '5.0', 'center']) {
      const r = game.parseAction(s, bad);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(/not a cell: type a cell number 1-9 or column a-c \+ row 1-3/);
        expect(r.error).toMatch(/legal moves: a1 \(1\), b1 \(2\)/);
        expect(r.error).not.toMatch(/b2 \(5\),/);
      }
    }
  });

  it('rejects occupied cells, saying who holds them', () => {
    const s = game.initialState(rng);
    game.applyAction(s, 4, rng);
    game.applyAction(s, 0, rng);
    for (const text of ['b2', '5']) {
      const r = game.parseAction(s, text);
      expect(r).toEqual({
        ok: false,
        error: 'b2 (5) is already taken by X; legal moves: b1 (2), c1 (3), a2 (4), c2 (6), a3 (7), b3 (8), c3 (9)',
      });
    }
    expect(game.parseAction(s, 'A1')).toMatchObject({ ok: false, error: expect.stringMatching(/a1 \(1\) is already taken by O/) });
  });

  it('rejects moves once the game is over', () => {
    const s = game.initialState(rng);
    for (const a of [0, 3, 1, 4, 2]) game.applyAction(s, a, rng);
    expect(game.parseAction(s, 'c3')).toEqual({ ok: false, error: 'the game is over: X has won' });
  });

  it('renders a labelled grid with a keypad and a status line', () => {
    const s = game.initialState(rng);
    game.applyAction(s, 0, rng);
    game.applyAction(s, 4, rng);
    expect(game.render(s)).toBe(
      ['   a b c', '1  X . .     1 2 3', '2  . O .     4 5 6', '3  . . .     7 8 9', 'X to move (move 3): type 1-9 or a1-c3, e.g. b2 = 5.'].join('\n'),
    );
    for (const a of [1, 3, 2]) game.applyAction(s, a, rng);
    expect(game.render(s).split('\n')[4]).toBe('X wins.');
  });

  it('formatAction refuses out-of-range actions', () => {
    expect(() => game.formatAction(game.initialState(rng), 9)).toThrow(RangeError);
  });
});

// The chess view for graphical front ends: the FEN, every legal move with its squares and SAN, and the
// squares of the move just played (what a board highlights).
import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { makeGame, play } from './test-helpers.js';

describe('ChessGame.view', () => {
  it('lists every legal move with squares and SAN, and no last move at the start', () => {
    const game = makeGame();
    const view = game.view(game.initialState(new Rng(0)));
    expect(view.moves).toHaveLength(20);
    expect(view.moves.find((m) => m.san === 'Nf3')).toMatchObject({ from: 'g1', to: 'f3' });
    expect(view.lastMove).toBeUndefined();
    expect(view.check).toBe(false);
    expect(view.seatNames).toEqual(['White', 'Black']);
  });

  it('gives the squares of the last move: a push, a capture, castling (the king), en passant, a promotion', () => {
    const game = makeGame();
    const state = game.initialState(new Rng(0));
    expect(game.view(play(game, state, 'e4')).lastMove).toEqual(['e2', 'e4']);
    expect(game.view(play(game, state, 'd5', 'exd5')).lastMove).toEqual(['e4', 'd5']);
    expect(game.view(play(game, state, 'Nf6', 'Nf3', 'e6', 'Be2', 'Be7', 'O-O')).lastMove).toEqual(['e1', 'g1']);
    const ep = makeGame({ fen: '4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1' });
    const s = ep.initialState(new Rng(0));
    expect(ep.view(play(ep, s, 'e4', 'dxe3')).lastMove).toEqual(['d4', 'e3']);
    const promo = makeGame({ fen: '7k/P7/8/8/8/8/8/4K3 w - - 0 1' });
    const p = promo.initialState(new Rng(0));
    const promoted = promo.view(play(promo, p, 'a8=N'));
    expect(promoted.lastMove).toEqual(['a7', 'a8']);
    expect(promoted.fen.startsWith('N6k/')).toBe(true);
  });
});

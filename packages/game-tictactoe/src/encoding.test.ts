import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { reachablePositions } from './oracle.js';
import { ticTacToePlugin } from './plugin.js';
import type { TicTacToeState } from './rules.js';

const game = ticTacToePlugin.create({});
const rng = new Rng(2);
const { encoder, masker } = game;

function play(actions: number[]): TicTacToeState {
  const s = game.initialState(rng);
  for (const a of actions) game.applyAction(s, a, rng);
  return s;
}

/** The same position with X and O exchanged (board marks, mover and winner). */
function swapColours(s: TicTacToeState): TicTacToeState {
  const c = game.clone(s);
  for (let i = 0; i < 9; i++) c.board[i] = c.board[i] === 0 ? 0 : 3 - c.board[i];
  c.toMove = 1 - c.toMove;
  if (c.winner !== -1) c.winner = 1 - c.winner;
  return c;
}

describe('tictactoe encoder', () => {
  it('is flat [27] with a version', () => {
    expect(encoder.shape).toEqual([27]);
    expect(encoder.size).toBe(27);
    expect(encoder.version).toBe('tictactoe-v1');
  });

  it('writes mine / theirs / to-move planes from the perspective seat', () => {
    const s = play([0, 4, 8]); // X a1, O b2, X c3; O to move
    const out = new Float32Array(27);
    encoder.encode(s, 0, out, 0);
    expect(Array.from(out.subarray(0, 9))).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(out.subarray(9, 18))).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0]);
    expect(Array.from(out.subarray(18, 27))).toEqual(new Array(9).fill(0));
    encoder.encode(s, 1, out, 0);
    expect(Array.from(out.subarray(0, 9))).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0]);
    expect(Array.from(out.subarray(9, 18))).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(out.subarray(18, 27))).toEqual(new Array(9).fill(1));
  });

  it('writes exactly size floats at the offset, every one, and leaves neighbours alone', () => {
    const s = play([0, 4, 8]);
    const offset = 13;
    const out = new Float32Array(offset + 27 + 11).fill(7);
    encoder.encode(s, 1, out, offset);
    for (let i = 0; i < offset; i++) expect(out[i]).toBe(7);
    for (let i = offset + 27; i < out.length; i++) expect(out[i]).toBe(7);
    for (let i = offset; i < offset + 27; i++) expect(out[i] === 0 || out[i] === 1).toBe(true);
    // a stale buffer gives the same result as a fresh one
    const fresh = new Float32Array(27);
    encoder.encode(s, 1, fresh, 0);
    expect(Array.from(out.subarray(offset, offset + 27))).toEqual(Array.from(fresh));
  });

  it('is perspective-canonical: swapping colours and perspective gives the same encoding', () => {
    const a = new Float32Array(27);
    const b = new Float32Array(27);
    const mismatches: string[] = [];
    for (const s of reachablePositions()) {
      const t = swapColours(s);
      for (const p of [0, 1]) {
        encoder.encode(s, p, a, 0);
        b.fill(-1);
        encoder.encode(t, 1 - p, b, 0);
        if (a.some((x, i) => x !== b[i])) mismatches.push(`${game.hash(s)} perspective ${p}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('distinguishes every (position, perspective) pair', () => {
    const out = new Float32Array(27);
    const seen = new Set<string>();
    const positions = reachablePositions();
    for (const s of positions) {
      for (const p of [0, 1]) {
        encoder.encode(s, p, out, 0);
        seen.add(out.join(''));
      }
    }
    expect(seen.size).toBe(positions.length * 2);
  });
});

describe('tictactoe masker', () => {
  it('marks empty cells of a live game at the offset and returns the count', () => {
    expect(masker.actionSize).toBe(9);
    const s = play([4, 0]);
    const out = new Uint8Array(3 + 9 + 2).fill(9);
    expect(masker.fillMask(s, out, 3)).toBe(7);
    expect(Array.from(out)).toEqual([9, 9, 9, 0, 1, 1, 1, 0, 1, 1, 1, 1, 9, 9]);
    expect(masker.fillMask(game.initialState(rng), out)).toBe(9);
  });

  it('is all zero in terminal states, even with empty cells', () => {
    const s = play([0, 3, 1, 4, 2]);
    const out = new Uint8Array(9).fill(1);
    expect(masker.fillMask(s, out, 0)).toBe(0);
    expect(Array.from(out)).toEqual(new Array(9).fill(0));
  });
});

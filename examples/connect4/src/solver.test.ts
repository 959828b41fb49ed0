import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { Connect4Solver, LOSS, WIN } from './solver.js';
import { cloneState, drop, isOver, newState, type Connect4Rules, type Connect4State } from './rules.js';

/**
 * Plain minimax over the rules (no bitboards, no pruning, memoized by position): the exact score in the
 * solver's convention.
 */
function bruteForceScore(rules: Connect4Rules, s: Connect4State, memo = new Map<string, number>()): number {
  const key = s.board.join('');
  const known = memo.get(key);
  if (known !== undefined) return known;
  const cells = rules.rows * rules.cols;
  let best = -Infinity;
  for (let c = 0; c < rules.cols; c++) {
    if (s.heights[c] >= rules.rows) continue;
    const child = cloneState(s);
    drop(rules, child, c);
    let v: number;
    if (child.winner !== -1) v = Math.floor((cells + 1 - s.moves) / 2);
    else if (isOver(rules, child)) v = 0;
    else v = -bruteForceScore(rules, child, memo);
    if (v > best) best = v;
  }
  best += 0; // no -0 from negation
  memo.set(key, best);
  return best;
}

/** A position reached by `plies` uniformly random moves that does not end the game (null if it did). */
function randomPosition(rules: Connect4Rules, plies: number, rng: Rng): Connect4State | null {
  const s = newState(rules);
  for (let i = 0; i < plies; i++) {
    const open = [];
    for (let c = 0; c < rules.cols; c++) if (s.heights[c] < rules.rows) open.push(c);
    drop(rules, s, open[rng.int(open.length)]);
    if (isOver(rules, s)) return null;
  }
  return s;
}

function fromMoves(rules: Connect4Rules, moves: string): Connect4State {
  const s = newState(rules);
  for (const ch of moves) drop(rules, s, Number(ch) - 1);
  return s;
}

const STANDARD: Connect4Rules = { rows: 6, cols: 7, connect: 4 };

describe('Connect4Solver', () => {
  it.each([
    { rows: 4, cols: 4, plies: [2, 5, 8] },
    { rows: 4, cols: 5, plies: [8, 11, 14] },
    { rows: 5, cols: 4, plies: [8, 11, 14] },
  ])('agrees with brute-force minimax on random $rows x $cols positions', ({ rows, cols, plies }) => {
    const rules: Connect4Rules = { rows, cols, connect: 4 };
    const solver = new Connect4Solver(rules, 65_537);
    const rng = new Rng(rows * 100 + cols);
    const memo = new Map<string, number>();
    let checked = 0;
    let nonDraws = 0;
    for (const ply of plies) {
      for (let k = 0; k < 8; k++) {
        const s = randomPosition(rules, ply, rng);
        if (!s) continue;
        const exact = bruteForceScore(rules, s, memo);
        expect(solver.solve(rules, s), `position after ${ply} random moves, seed ${k}`).toBe(exact);
        expect(solver.solveWeak(rules, s)).toBe(Math.sign(exact));
        const values = solver.moveValues(rules, s, false);
        for (let c = 0; c < cols; c++) {
          if (s.heights[c] >= rows) {
            expect(values[c]).toBeNaN();
            continue;
          }
          const child = cloneState(s);
          drop(rules, child, c);
          const childExact = child.winner !== -1 ? Math.floor((rows * cols + 1 - s.moves) / 2) : isOver(rules, child) ? 0 : 0 - bruteForceScore(rules, child, memo);
          expect(values[c]).toBe(childExact);
        }
        checked++;
        if (exact !== 0) nonDraws++;
      }
    }
    // The sample must contain decided positions, or agreement would prove little.
    expect(checked).toBeGreaterThan(10);
    expect(nonDraws).toBeGreaterThan(2);
  });

  // Minutes of CPU (millions of nodes): run with AZ_SLOW_TESTS=1. Skipped otherwise, and it says so.
  if (!process.env.AZ_SLOW_TESTS) console.warn('SKIPPED: connect4 solver on the empty 7x6 board (minutes of CPU); run with AZ_SLOW_TESTS=1');
  it.skipIf(!process.env.AZ_SLOW_TESTS)('knows the standard board: after the first disc in the centre the second player loses', () => {
    // The known result (Allis 1988; Tromp): the first player wins by starting in the centre column.
    const solver = new Connect4Solver(STANDARD);
    expect(solver.solveWeak(STANDARD, fromMoves(STANDARD, '4'))).toBe(LOSS);
  }, 600_000);

  it('scores a win in one, and a forced block on the standard board', () => {
    const solver = new Connect4Solver(STANDARD, 65_537);
    // X has three in column 1 and moves: dropping there wins at once.
    const threat = fromMoves(STANDARD, '121212');
    expect(solver.solveWeak(STANDARD, threat)).toBe(WIN);
    // O to move facing X's three in column 1: after any move but the block, X connects at once.
    for (let c = 1; c < 7; c++) expect(solver.solveWeak(STANDARD, fromMoves(STANDARD, `12131${c + 1}`)), `O in column ${c + 1}`).toBe(WIN);
  });

  it('rejects what it cannot solve, naming the problem', () => {
    expect(() => new Connect4Solver({ rows: 6, cols: 7, connect: 5 })).toThrow(/four in a row/);
    expect(() => new Connect4Solver({ rows: 8, cols: 8, connect: 4 })).toThrow(/8x8/);
    const solver = new Connect4Solver(STANDARD, 65_537);
    expect(() => solver.solve({ rows: 5, cols: 7, connect: 4 }, newState({ rows: 5, cols: 7, connect: 4 }))).toThrow(/6x7/);
    const won = fromMoves(STANDARD, '1212121');
    expect(() => solver.solve(STANDARD, won)).toThrow(/over/);
  });
});

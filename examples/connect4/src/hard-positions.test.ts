import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHardSet, stateOf } from './assessment.js';
import { rejectBeforeSolving, rejectHardPosition } from './hard-positions.js';
import { STANDARD_RULES } from './rules.js';
import { Connect4Solver } from './solver.js';

const rules = STANDARD_RULES;
const solver = new Connect4Solver(rules, 1_000_003);
const solved = (moves: string) => Array.from(solver.moveValues(rules, stateOf(rules, moves), true));

describe('the hard-position filter', () => {
  it('rejects a position where the mover wins at once', () => {
    // X has three in column 1 and is to move. Values made up, unequal: the win alone must reject it.
    expect(rejectHardPosition(rules, stateOf(rules, '121212'), [1, -1, 0, 0, 0, -1, -1])).toBe('mover wins at once');
  });

  it('rejects a position where the mover must block', () => {
    // X has three in column 1; O, to move, has no win of its own.
    expect(rejectBeforeSolving(rules, stateOf(rules, '12121'))).toBe('mover must block');
    expect(rejectHardPosition(rules, stateOf(rules, '12121'), [0, -1, -1, -1, -1, -1, -1])).toBe('mover must block');
  });

  it('rejects a position where every move has the same value', () => {
    const moves = '765536545153446637116764347547';
    expect(rejectBeforeSolving(rules, stateOf(rules, moves))).toBeNull();
    expect(solved(moves).filter((v) => !Number.isNaN(v))).toEqual([0, 0, 0, 0]);
    expect(rejectHardPosition(rules, stateOf(rules, moves), solved(moves))).toBe('every move has the same value');
  });

  it('keeps a position with a real choice', () => {
    const moves = '331736331351657241575547146616';
    expect(solved(moves)).toEqual([NaN, 1, NaN, -1, 1, 1, 1]);
    expect(rejectHardPosition(rules, stateOf(rules, moves), solved(moves))).toBeNull();
    // Stored values use null for a full column, as the data files do.
    expect(rejectHardPosition(rules, stateOf(rules, moves), [null, 1, null, -1, 1, 1, 1])).toBeNull();
  });

  it('rejects a finished game', () => {
    expect(rejectBeforeSolving(rules, stateOf(rules, '1212121'))).toBe('finished');
  });
});

describe('the hard sets', () => {
  const report = loadHardSet('report');
  const tune = loadHardSet('tune');

  it('hold at least 200 positions in each of the buckets 8-14, 15-24 and 25-35 discs, every one passing the filter', () => {
    for (const set of [report, tune]) {
      expect(set.buckets).toEqual([
        [8, 14],
        [15, 24],
        [25, 35],
      ]);
      for (const [lo, hi] of set.buckets) {
        const inBucket = set.positions.filter((p) => p.bucket === `${lo}-${hi}`);
        expect(inBucket.length, `${set.purpose} ${lo}-${hi}`).toBeGreaterThanOrEqual(set.purpose === 'report' ? 200 : 60);
        for (const p of inBucket) {
          expect(p.moves.length).toBeGreaterThanOrEqual(lo);
          expect(p.moves.length).toBeLessThanOrEqual(hi);
          expect(rejectHardPosition(rules, stateOf(rules, p.moves), p.values), p.moves).toBeNull();
        }
      }
    }
  });

  it('come from different seeds, and store the values the solver gives (a sample from the crowded bucket)', () => {
    expect(report.generator).not.toBe(tune.generator);
    const tuneMoves = new Set(tune.positions.map((p) => p.moves));
    // Short random games can coincide; a shared seed would share nearly everything.
    expect(report.positions.filter((p) => tuneMoves.has(p.moves)).length).toBeLessThan(report.positions.length / 20);
    const sample = report.positions.filter((p) => p.moves.length >= 28).filter((_, i) => i % 20 === 0);
    expect(sample.length).toBeGreaterThan(3);
    for (const p of sample) expect(solved(p.moves).map((v) => (Number.isNaN(v) ? null : v)), p.moves).toEqual(p.values);
  });

  const dir = mkdtempSync(join(tmpdir(), 'c4-hard-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are loaded only under the purpose the file states', () => {
    const swapped = join(dir, 'hard-report.json');
    writeFileSync(swapped, JSON.stringify({ ...tune }));
    expect(() => loadHardSet('report', swapped)).toThrow(/is the tune set, not the report set/);
    writeFileSync(swapped, JSON.stringify({ ...report, positions: [{ moves: '44x', values: [0, 0, 0, 0, 0, 0, 0] }] }));
    expect(() => loadHardSet('report', swapped)).toThrow(/malformed position/);
  });
});

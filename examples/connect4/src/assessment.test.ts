import type { Agent } from '@az/core';
import { describe, expect, it } from 'vitest';
import { assessConnect4Agent, loadHardSet, loadReferenceSet, scoreAgent, stateOf } from './assessment.js';
import { STANDARD_RULES, type Connect4State } from './rules.js';
import { Connect4Solver } from './solver.js';

const set = loadReferenceSet();
const byBoard = new Map([set, loadHardSet('tune'), loadHardSet('report')].flatMap((x) => x.positions.map((p) => [stateOf(STANDARD_RULES, p.moves).board.join(''), p] as const)));

/** An agent that plays the move with the best (or worst) stored value: what a perfect (or perverse) player does. */
function byValue(pick: 'best' | 'worst'): Agent<Connect4State> {
  return {
    name: pick,
    act: async (states) =>
      Int32Array.from(states, (s) => {
        const p = byBoard.get(s.board.join(''))!;
        let chosen = -1;
        for (let c = 0; c < p.values.length; c++) {
          const v = p.values[c];
          if (v === null) continue;
          if (chosen < 0 || (pick === 'best' ? v > p.values[chosen]! : v < p.values[chosen]!)) chosen = c;
        }
        return chosen;
      }),
  };
}

describe('connect4 reference positions', () => {
  it('hold positions in every bucket, none finished, with at least ten discs', () => {
    expect(set.positions.length).toBeGreaterThanOrEqual(100);
    for (const p of set.positions) {
      const s = stateOf(set.rules, p.moves);
      expect(s.winner).toBe(-1);
      expect(s.moves).toBeGreaterThanOrEqual(10);
      expect(p.values.length).toBe(7);
    }
  });

  it('store the values the solver gives (a sample from the crowded buckets, cheap to solve)', () => {
    const solver = new Connect4Solver(STANDARD_RULES, 1_000_003);
    const sample = set.positions.filter((p) => p.moves.length >= 24).filter((_, i) => i % 15 === 0);
    expect(sample.length).toBeGreaterThan(3);
    for (const p of sample) {
      const values = Array.from(solver.moveValues(STANDARD_RULES, stateOf(STANDARD_RULES, p.moves), true), (v) => (Number.isNaN(v) ? null : v));
      expect(values, p.moves).toEqual(p.values);
    }
  });

  it('score a perfect player 100% and a player of the worst moves only where no move can be wrong', async () => {
    const perfect = await scoreAgent(byValue('best'), set);
    expect(perfect.optimal).toBe(set.positions.length);
    expect(perfect.decisiveOptimal).toBe(perfect.decisive);
    const worst = await scoreAgent(byValue('worst'), set);
    expect(worst.optimal).toBe(set.positions.length - worst.decisive);
    expect(worst.decisiveOptimal).toBe(0);
    expect(worst.decisive).toBeGreaterThan(set.positions.length / 4);
    expect(perfect.randomOptimalRate).toBeGreaterThan(0);
    expect(perfect.randomOptimalRate).toBeLessThan(1);
  });

  it('assess an agent in one line, and say so when the board is not the standard one', async () => {
    const a = await assessConnect4Agent(STANDARD_RULES, byValue('best'));
    expect(a.metrics.optimalRate).toBe(1);
    expect(a.summary).toMatch(/^random-play set \(data\/positions\.json\): optimal moves \d+\/\d+ \(100\.0%/);
    const other = await assessConnect4Agent({ rows: 5, cols: 6, connect: 4 }, byValue('best'));
    expect(other.summary).toMatch(/no reference positions/);
  });
});

describe('connect4 assessment on the hard sets', () => {
  const perfect = byValue('best');

  it('score the tuning set by default (the trainer) and the report set when asked (az assess), naming which', async () => {
    const trainer = await assessConnect4Agent(STANDARD_RULES, perfect);
    expect(trainer.summary).toMatch(/; hard tuning set \(data\/hard-tune\.json\): optimal moves (\d+)\/\1 \(100\.0%; random [\d.]+%\) \[8-14 discs 100\.0%, 15-24 discs 100\.0%, 25-35 discs 100\.0%\]$/);
    expect(trainer.metrics.hardTuneOptimalRate).toBe(1);
    expect(trainer.metrics.hardReportOptimalRate).toBeUndefined();
    const report = await assessConnect4Agent(STANDARD_RULES, perfect, { purpose: 'report' });
    expect(report.summary).toContain('hard report set (data/hard-report.json, held out: never tune on it): optimal moves');
    expect(report.metrics.hardReportPositions).toBe(loadHardSet('report').positions.length);
    expect(report.metrics.hardReportOptimalRate8to14).toBe(1);
    expect(report.metrics.hardTuneOptimalRate).toBeUndefined();
  });

  it('give a random move a smaller share on the hard set than on the random-play set', async () => {
    const report = await assessConnect4Agent(STANDARD_RULES, perfect, { purpose: 'report' });
    expect(report.metrics.hardReportRandomOptimalRate).toBeLessThan(report.metrics.randomOptimalRate - 0.1);
  });
});

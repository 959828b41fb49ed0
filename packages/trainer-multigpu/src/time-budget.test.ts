import { describe, expect, it } from 'vitest';
import { TimeBudget, formatDuration, parseDuration } from './time-budget.js';

/** A clock the test moves by hand (milliseconds). */
function manualClock(start = 1000): { now: () => number; advance: (seconds: number) => void } {
  let t = start;
  return { now: () => t, advance: (s) => (t += s * 1000) };
}

describe('TimeBudget', () => {
  it('starts the next iteration only while it would end within the budget, judged by the last one', () => {
    const clock = manualClock();
    const budget = new TimeBudget(100, clock.now(), clock.now);
    expect(budget.wouldOverrun()).toBe(false); // the first always starts
    clock.advance(30);
    budget.iterationEnded(); // 30 s
    expect(budget.wouldOverrun()).toBe(false); // 30 + 30 <= 100
    clock.advance(30);
    budget.iterationEnded(); // 60 s
    expect(budget.wouldOverrun()).toBe(false); // 60 + 30 <= 100
    clock.advance(35);
    budget.iterationEnded(); // 95 s, the last took 35
    expect(budget.wouldOverrun()).toBe(true); // 95 + 35 > 100
    expect(budget.elapsedSeconds()).toBe(95);
    expect(budget.lastIterationSeconds()).toBe(35);
  });

  it('counts time spent between iterations against the next one (a slow checkpoint or evaluation)', () => {
    const clock = manualClock();
    const budget = new TimeBudget(100, clock.now(), clock.now);
    clock.advance(40);
    budget.iterationEnded();
    clock.advance(25); // e.g. a rating between iterations
    expect(budget.wouldOverrun()).toBe(true); // 65 + 40 > 100
  });

  it('never stops a run without a limit, and refuses a bad one', () => {
    const clock = manualClock();
    const budget = new TimeBudget(0, clock.now(), clock.now);
    clock.advance(1e6);
    budget.iterationEnded();
    expect(budget.wouldOverrun()).toBe(false);
    expect(() => new TimeBudget(-1, 0)).toThrow(/non-negative/);
    expect(() => new TimeBudget(Number.NaN, 0)).toThrow(/non-negative/);
  });
});

describe('parseDuration / formatDuration', () => {
  it('reads hours, minutes and seconds and writes them back', () => {
    expect(parseDuration('60m')).toBe(3600);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('2h15m30s')).toBe(8130);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1.5h')).toBe(5400);
    for (const bad of ['', '60', 'm', '1x', '0m', '-5m', '1m1h']) expect(parseDuration(bad), bad).toBeNull();
    expect(formatDuration(3600)).toBe('1h');
    expect(formatDuration(5400)).toBe('1h30m');
    expect(formatDuration(90)).toBe('1m30s');
    expect(formatDuration(45)).toBe('45s');
    expect(formatDuration(119.96)).toBe('2m');
    expect(formatDuration(3599.97)).toBe('1h');
    expect(formatDuration(0.04)).toBe('0s');
  });
});

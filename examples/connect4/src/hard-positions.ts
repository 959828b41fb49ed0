/**
 * The filter behind the hard reference sets (data/hard-tune.json, data/hard-report.json, made by
 * scripts/make-hard-positions.mjs): a position is kept only where the mover's choice is a real test.
 * Positions of random play are mostly ones where any move does, or where a one-ply rule (win now,
 * else block) finds the answer; those flatter every agent alike.
 */
import { isOver, wouldConnect, type Connect4Rules, type Connect4State } from './rules.js';

/** Why a position is not a hard one, or null when it is. */
export type HardRejection = 'finished' | 'mover wins at once' | 'mover must block' | 'every move has the same value';

/** A column where `seat` would connect at once, or -1. */
export function immediateWin(rules: Connect4Rules, s: Connect4State, seat: number): number {
  for (let c = 0; c < rules.cols; c++) if (s.heights[c] < rules.rows && wouldConnect(rules, s, c, seat)) return c;
  return -1;
}

/** The checks that need no solver, so the generator solves only positions that pass them. */
export function rejectBeforeSolving(rules: Connect4Rules, s: Connect4State): HardRejection | null {
  if (isOver(rules, s)) return 'finished';
  if (immediateWin(rules, s, s.toMove) >= 0) return 'mover wins at once';
  // One threat forces the block; two or more lose whatever the mover does. Neither is a choice.
  if (immediateWin(rules, s, 1 - s.toMove) >= 0) return 'mover must block';
  return null;
}

/**
 * Whether `s` belongs in a hard set, given `values[c]`, the exact value of each move for the mover
 * (null or NaN for a full column): it must pass `rejectBeforeSolving`, and some legal move must be
 * worth less than another (a mistake is possible).
 */
export function rejectHardPosition(rules: Connect4Rules, s: Connect4State, values: ArrayLike<number | null>): HardRejection | null {
  const before = rejectBeforeSolving(rules, s);
  if (before) return before;
  const legal: number[] = [];
  for (let c = 0; c < values.length; c++) {
    const v = values[c];
    if (v !== null && !Number.isNaN(v)) legal.push(v);
  }
  return Math.min(...legal) === Math.max(...legal) ? 'every move has the same value' : null;
}

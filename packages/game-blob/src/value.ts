import type { BlobRules } from './config.js';

/**
 * How scores become values in [-1, 1], one definition for the game's `returns`, the search and the
 * trainer's targets.
 *
 * Each seat's value is its own score mapped linearly from the range one seat can possibly score to
 * [-1, 1]:  value = (2 * score - (max + min)) / (max - min).
 * Why this: Blob is general-sum, so each seat's value must be about its own outcome, not a difference
 * from the others. An affine map keeps expected values exactly proportional to expected scores, so a
 * search maximizing value maximizes expected score, and values from different seats are comparable.
 * The bounds are the exact per-seat extremes over the configured rounds (the whole game for
 * rounds='game', the single round for rounds='one', the largest round for rounds='sampled'), so the
 * map never leaves [-1, 1].
 * Real scores sit well inside the range (nobody bids exactly every round), which is fine: the network
 * learns the affine image, and `valueToScore` converts back for reports.
 */
export interface ScoreRange {
  /** Lowest score one seat can end with. */
  readonly min: number;
  /** Highest score one seat can end with. */
  readonly max: number;
}

/** Per-seat extremes of one round with `cards` cards dealt. */
export function roundScoreRange(rules: Pick<BlobRules, 'scoring' | 'missPenalty'>, cards: number): ScoreRange {
  if (rules.scoring === 'blob') return { min: 0, max: 10 + cards }; // exact bid of `cards`: 10 + cards
  // oh-hell: best is bidding and taking every trick (cards + 10); worst, with the penalty, is bidding
  // every trick and taking none (0 - cards), without it taking nothing (0).
  return { min: rules.missPenalty ? -cards : 0, max: cards + 10 };
}

/**
 * Per-seat extremes over the configured rounds (sum of the per-round extremes). For `rounds=sampled`
 * those of the largest round, whichever round is drawn: one scale for every round, so a network
 * trained on them values each on the same footing.
 */
export function scoreRange(rules: Pick<BlobRules, 'scoring' | 'missPenalty' | 'schedule' | 'rounds' | 'maxHand'>): ScoreRange {
  if (rules.rounds === 'sampled') return roundScoreRange(rules, rules.maxHand);
  let min = 0;
  let max = 0;
  for (const cards of rules.schedule) {
    const r = roundScoreRange(rules, cards);
    min += r.min;
    max += r.max;
  }
  return { min, max };
}

/** The value in [-1, 1] of `score` under `range` (clamped, so partial or foreign scores stay in range). */
export function scoreToValue(score: number, range: ScoreRange): number {
  const v = (2 * score - (range.max + range.min)) / (range.max - range.min);
  return v < -1 ? -1 : v > 1 ? 1 : v;
}

/** The inverse of `scoreToValue`: the score a value stands for. */
export function valueToScore(value: number, range: ScoreRange): number {
  return (value * (range.max - range.min) + (range.max + range.min)) / 2;
}

/** Writes each seat's value for `scores` into `out` (allocated if omitted). */
export function scoresToValues(scores: ArrayLike<number>, range: ScoreRange, out: Float32Array = new Float32Array(scores.length)): Float32Array {
  for (let s = 0; s < scores.length; s++) out[s] = scoreToValue(scores[s], range);
  return out;
}

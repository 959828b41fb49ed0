/**
 * Means of per-game metrics with 95% intervals, one definition for every command that reports them
 * (`az eval`, `az compare`).
 */
import { studentT975, wilsonInterval } from '@az/core';

export interface MetricSummary {
  mean: number;
  /** Half-width of the 95% interval (the larger side when it is asymmetric). */
  ci95: number;
  /** The 95% interval: Wilson's for 0/1 metrics (shares of games), Student's t otherwise; [mean, mean] never at small n. */
  low: number;
  high: number;
  n: number;
}

export function formatSummary(s: MetricSummary): string {
  return `${s.mean.toFixed(3)} [${s.low.toFixed(3)}, ${s.high.toFixed(3)}] (95% CI, n=${s.n})`;
}

/**
 * Mean and a 95% interval that stays honest at small n: Wilson for 0/1 values (the share of games that
 * ended some way) unless `shares` is false, Student's t otherwise.
 */
export function summarize(values: number[], shares = true): MetricSummary {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / Math.max(1, n);
  if (shares && n > 0 && values.every((v) => v === 0 || v === 1)) {
    const { low, high } = wilsonInterval(mean * n, n);
    return { mean, ci95: Math.max(mean - low, high - mean), low, high, n };
  }
  if (n < 2) return { mean, ci95: Infinity, low: -Infinity, high: Infinity, n };
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1);
  const ci95 = studentT975(n - 1) * Math.sqrt(variance / n);
  return { mean, ci95, low: mean - ci95, high: mean + ci95, n };
}

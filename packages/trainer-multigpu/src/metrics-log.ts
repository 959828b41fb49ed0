/**
 * The run's metrics.jsonl, one line per iteration, kept as one history of the checkpoints. An iteration
 * commits its metrics record with its checkpoint (`metrics.json` inside the checkpoint folder, listed in
 * the manifest like every other file), so the record is published by the same atomic rename as the
 * weights. The line is appended after that (it adds the checkpoint's rating and the time the save took),
 * and before the next save begins. A session killed between the two leaves the line missing only for the
 * newest checkpoint: a resume appends it from that checkpoint's record.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, verifyCheckpointFile, type CheckpointManifest } from '@az/nn';
import { faultPoint } from '@az/nn/testing';
import type { IterationMetrics } from './metrics.js';
import type { RunPaths } from './run-dir.js';

/** The checkpoint file holding the metrics record of the iteration that wrote the checkpoint. */
export const METRICS_RECORD_FILE = 'metrics.json';

/** The bytes of a checkpoint's metrics record. */
export function metricsRecordBytes(metrics: IterationMetrics): string {
  return JSON.stringify(metrics) + '\n';
}

/** Appends one iteration's line to metrics.jsonl. */
export function appendMetricsLine(paths: RunPaths, line: IterationMetrics): void {
  faultPoint('metrics:append');
  appendFileSync(paths.metrics, JSON.stringify(line) + '\n');
}

/** The non-empty lines of metrics.jsonl (none when it does not exist yet). */
function metricsLines(paths: RunPaths): string[] {
  if (!existsSync(paths.metrics)) return [];
  return readFileSync(paths.metrics, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

/** The iteration a metrics.jsonl line records, or undefined for a line that is not a metrics record. */
function lineIteration(line: string): number | undefined {
  try {
    const iteration = (JSON.parse(line) as { iteration?: unknown }).iteration;
    return typeof iteration === 'number' ? iteration : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Metrics lines of iterations after the checkpoint a run resumes from (it went back to an earlier
 * checkpoint) move to metrics.discarded.jsonl, so metrics.jsonl stays one history.
 */
export function discardLaterMetrics(paths: RunPaths, iteration: number, log: (m: string) => void): void {
  const lines = metricsLines(paths);
  const later = (l: string): boolean => (lineIteration(l) ?? -Infinity) > iteration;
  const discarded = lines.filter(later);
  if (discarded.length === 0) return;
  appendFileSync(join(paths.dir, 'metrics.discarded.jsonl'), discarded.join('\n') + '\n');
  const tmp = `${paths.metrics}.tmp`;
  writeFileSync(tmp, lines.filter((l) => !later(l)).map((l) => l + '\n').join(''));
  renameSync(tmp, paths.metrics);
  log(`metrics of ${discarded.length} iteration(s) after ${iteration} moved to metrics.discarded.jsonl (the run went back to iteration ${iteration})`);
}

/**
 * Appends the line of the resumed checkpoint's iteration when metrics.jsonl lacks it (the session that
 * wrote the checkpoint was killed before its line). A checkpoint without a record (written before
 * records were, or a second save of an iteration whose line was already appended) adds nothing.
 */
export function restoreCommittedMetrics(paths: RunPaths, checkpointDir: string, manifest: CheckpointManifest, log: (m: string) => void): void {
  if (!manifest.files[METRICS_RECORD_FILE]) return;
  const bytes = readFileSync(join(checkpointDir, METRICS_RECORD_FILE));
  verifyCheckpointFile(checkpointDir, manifest, METRICS_RECORD_FILE, bytes);
  let record: IterationMetrics;
  try {
    record = JSON.parse(bytes.toString('utf8')) as IterationMetrics;
  } catch (err) {
    throw new CheckpointError(join(checkpointDir, METRICS_RECORD_FILE), `corrupt ${join(checkpointDir, METRICS_RECORD_FILE)}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (metricsLines(paths).some((l) => lineIteration(l) === record.iteration)) return;
  appendMetricsLine(paths, record);
  log(`metrics.jsonl lacked iteration ${record.iteration} (the session that trained it stopped before writing the line): added it from ${join(checkpointDir, METRICS_RECORD_FILE)}`);
}

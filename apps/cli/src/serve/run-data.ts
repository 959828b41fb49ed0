/**
 * A training run's files as the dashboard and `az report` read them: metrics.jsonl (one JSON object
 * per iteration, appended while `az train` runs), options.json and summary.json (the final line and
 * the game's own assessment, written when the run ends).
 */
import { existsSync, openSync, readdirSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { holdsRun, isTransientRunEntry } from '@az/trainer-multigpu';

/** One metrics.jsonl line; the fields the charts read are documented in @az/trainer-multigpu's IterationMetrics. */
export type MetricsRow = Readonly<Record<string, unknown>>;

export interface RunData {
  readonly dir: string;
  readonly rows: readonly MetricsRow[];
  /** One per metrics.jsonl line skipped (see parseMetricsLines), naming the file and the line. */
  readonly warnings: readonly string[];
  readonly options?: Readonly<Record<string, unknown>>;
  readonly summary?: Readonly<Record<string, unknown>>;
}

export class RunDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunDirError';
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A metrics.jsonl line the readers skip: its number in the file (from 1) and why. */
export interface SkippedMetricsLine {
  readonly line: number;
  readonly why: string;
}

/** A complete metrics.jsonl line as a row the charts can plot, or why it is not one. */
function asMetricsRow(line: string): { row: MetricsRow; why: null } | { row: null; why: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { row: null, why: 'not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { row: null, why: 'not a JSON object' };
  const iteration = (parsed as { iteration?: unknown }).iteration;
  // The charts plot every row against its iteration: one row without it would blank them all.
  if (typeof iteration !== 'number' || !Number.isFinite(iteration)) return { row: null, why: 'no numeric "iteration"' };
  return { row: parsed as MetricsRow, why: null };
}

/**
 * Complete lines parsed; a torn last line (a write in progress) is left for the next read. A line that
 * is not a metrics row is skipped, not fatal (the rest of the run is still worth showing), and listed
 * with its number, counted from `firstLine` (the number of the first line in `text`).
 */
export function parseMetricsLines(text: string, firstLine = 1): { rows: MetricsRow[]; consumed: number; lines: number; skipped: SkippedMetricsLine[] } {
  const rows: MetricsRow[] = [];
  const skipped: SkippedMetricsLine[] = [];
  let consumed = 0;
  let lines = 0;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    const line = text.slice(start, nl).trim();
    const number = firstLine + lines;
    start = nl + 1;
    consumed = start;
    lines++;
    if (line === '') continue;
    const { row, why } = asMetricsRow(line);
    if (row) rows.push(row);
    else skipped.push({ line: number, why });
  }
  return { rows, consumed: Buffer.byteLength(text.slice(0, consumed)), lines, skipped };
}

/** The warning for a skipped line, naming the file and the line. */
export function skippedLineWarning(path: string, skipped: SkippedMetricsLine): string {
  return `${path} line ${skipped.line}: ${skipped.why}; skipped (the charts show the other lines)`;
}

/**
 * The absolute path of a run directory, or a RunDirError naming what `dir` is instead: missing, or a
 * folder holding other things (the runs folder itself, a checkpoint folder), with the runs it can see.
 * An empty directory passes: a run about to start (the dashboard waits for its first iteration); so does
 * one holding only the trainer's lock (a run starting: its options.json comes once the network is built),
 * and options.json's temporary while it is written.
 */
export function checkRunDir(dir: string): string {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new RunDirError(`no run directory at ${abs}`);
  const entries = readdirSync(abs);
  if (entries.every(isTransientRunEntry) || holdsRun(abs)) return abs;
  const parent = dirname(abs);
  const inside = entries.filter((e) => holdsRun(join(abs, e))).map((e) => join(dir, e));
  const hint = holdsRun(parent)
    ? `; it is inside the run ${parent}`
    : inside.length > 0
      ? `; runs in it: ${inside.slice(0, 5).join(', ')}${inside.length > 5 ? `, and ${inside.length - 5} more` : ''}`
      : '';
  throw new RunDirError(`${abs} is not a training run (no options.json, metrics.jsonl or checkpoints in it): give the --out directory of az train${hint}`);
}

/** Everything the run has written so far (a run that has not finished an iteration has no rows yet). */
export function readRun(dir: string): RunData {
  const abs = checkRunDir(dir);
  const metricsPath = join(abs, 'metrics.jsonl');
  const { rows, skipped } = existsSync(metricsPath) ? parseMetricsLines(readFileSync(metricsPath, 'utf8')) : { rows: [], skipped: [] };
  return { dir: abs, rows, warnings: skipped.map((s) => skippedLineWarning(metricsPath, s)), ...readRunInfo(abs) };
}

/** The run's settings and final summary, which `az train --resume` rewrites (more iterations, a new assessment). */
export function readRunInfo(dir: string): { options?: Readonly<Record<string, unknown>>; summary?: Readonly<Record<string, unknown>> } {
  const abs = resolve(dir);
  const options = readJson(join(abs, 'options.json'));
  const summary = readJson(join(abs, 'summary.json'));
  return { ...(options ? { options } : {}), ...(summary ? { summary } : {}) };
}

/** Changes whenever options.json or summary.json is written, created or removed. */
export function runInfoStamp(dir: string): string {
  return ['options.json', 'summary.json']
    .map((name) => {
      const path = join(resolve(dir), name);
      if (!existsSync(path)) return '-';
      const stat = statSync(path);
      return `${stat.mtimeMs}:${stat.size}`;
    })
    .join('|');
}

/**
 * Follows metrics.jsonl as the trainer appends to it: `poll` reads the bytes added since the last call
 * and returns the complete new rows; each line skipped is told to `warn`. The file may not exist yet (a
 * run just starting).
 */
export class MetricsFollower {
  private offset = 0;
  /** The number of the next line to read. */
  private line = 1;
  private readonly path: string;

  constructor(dir: string, private readonly warn: (message: string) => void = () => undefined) {
    this.path = join(resolve(dir), 'metrics.jsonl');
  }

  poll(): MetricsRow[] {
    if (!existsSync(this.path)) return [];
    const size = statSync(this.path).size;
    if (size < this.offset) {
      // The file was replaced (a new run in the same directory).
      this.offset = 0;
      this.line = 1;
    }
    if (size === this.offset) return [];
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      const { rows, consumed, lines, skipped } = parseMetricsLines(buffer.toString('utf8'), this.line);
      this.offset += consumed;
      this.line += lines;
      for (const s of skipped) this.warn(skippedLineWarning(this.path, s));
      return rows;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * A training run's files as the dashboard and `az report` read them: metrics.jsonl (one JSON object
 * per iteration, appended while `az train` runs), options.json and summary.json (the final line and
 * the game's own assessment, written when the run ends).
 */
import { existsSync, openSync, readdirSync, readFileSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RUN_LOCK_FILE, holdsRun } from '@az/trainer-multigpu';

/** One metrics.jsonl line; the fields the charts read are documented in @az/trainer-multigpu's IterationMetrics. */
export type MetricsRow = Readonly<Record<string, unknown>>;

export interface RunData {
  readonly dir: string;
  readonly rows: readonly MetricsRow[];
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

/** Complete lines parsed; a torn last line (a write in progress) is left for the next read. */
export function parseMetricsLines(text: string): { rows: MetricsRow[]; consumed: number } {
  const rows: MetricsRow[] = [];
  let consumed = 0;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    const line = text.slice(start, nl).trim();
    start = nl + 1;
    consumed = start;
    if (line === '') continue;
    try {
      const row = JSON.parse(line) as unknown;
      if (row !== null && typeof row === 'object' && !Array.isArray(row)) rows.push(row as MetricsRow);
    } catch {
      // A corrupt line is skipped, not fatal: the rest of the run is still worth showing.
    }
  }
  return { rows, consumed: Buffer.byteLength(text.slice(0, consumed)) };
}

/**
 * The absolute path of a run directory, or a RunDirError naming what `dir` is instead: missing, or a
 * folder holding other things (the runs folder itself, a checkpoint folder), with the runs it can see.
 * An empty directory passes: a run about to start (the dashboard waits for its first iteration); so does
 * one holding only the trainer's lock (a run starting: its options.json comes once the network is built).
 */
export function checkRunDir(dir: string): string {
  const abs = resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory()) throw new RunDirError(`no run directory at ${abs}`);
  const entries = readdirSync(abs);
  if (entries.every((e) => e === RUN_LOCK_FILE) || holdsRun(abs)) return abs;
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
  const rows = existsSync(metricsPath) ? parseMetricsLines(readFileSync(metricsPath, 'utf8')).rows : [];
  return { dir: abs, rows, ...readRunInfo(abs) };
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
 * and returns the complete new rows. The file may not exist yet (a run just starting).
 */
export class MetricsFollower {
  private offset = 0;
  private readonly path: string;

  constructor(dir: string) {
    this.path = join(resolve(dir), 'metrics.jsonl');
  }

  poll(): MetricsRow[] {
    if (!existsSync(this.path)) return [];
    const size = statSync(this.path).size;
    if (size < this.offset) this.offset = 0; // the file was replaced (a new run in the same directory)
    if (size === this.offset) return [];
    const fd = openSync(this.path, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      const { rows, consumed } = parseMetricsLines(buffer.toString('utf8'));
      this.offset += consumed;
      return rows;
    } finally {
      closeSync(fd);
    }
  }
}

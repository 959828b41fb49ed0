/**
 * A run's checkpoints: `RUN/checkpoints/iter-000012/` (a checkpoint directory, see checkpoint.ts), one
 * per save, never rewritten. A save writes a hidden temporary directory and renames it into place, so
 * the switch to a new checkpoint is one atomic rename: the newest `iter-*` directory is always complete,
 * and a process killed at any step leaves the previous one as the newest. The saves of the last `keep`
 * iterations are kept (a rating ladder and a rollback need them); older ones are renamed aside before they are deleted, so a
 * half-deleted directory is never mistaken for a checkpoint. Hidden leftovers of killed saves are removed
 * by the next save.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CheckpointError, syncDirectory } from './checkpoint-files.js';
import { faultPoint } from './testing.js';
import { MANIFEST_FILE, saveCheckpoint, type CheckpointManifest, type CheckpointManifestInput, type SaveCheckpointOptions } from './checkpoint.js';
import type { tf } from './tf.js';
import type { OptimizerState } from './training.js';

/** The folder of a run directory that holds its checkpoints. */
export const CHECKPOINTS_DIR = 'checkpoints';

/** One complete checkpoint of a run, as `listCheckpoints` finds it. */
export interface CheckpointEntry {
  /** Folder name, e.g. `iter-000012` (a second save at the same iteration is `iter-000012-2`). */
  readonly name: string;
  /** Absolute path of the checkpoint directory. */
  readonly dir: string;
  /** The training iteration that produced it (from its name). */
  readonly iteration: number;
  /** 1 for the first save at this iteration, 2 for the second... */
  readonly sequence: number;
}

const NAME = /^iter-(\d+)(?:-(\d+))?$/;

/**
 * The folder name of a run's checkpoint: `iter-` and the iteration padded to six digits (so names sort by
 * iteration), with `-2`, `-3`... for a second or third save at the same iteration.
 */
export function checkpointName(iteration: number, sequence = 1): string {
  return `iter-${String(iteration).padStart(6, '0')}${sequence > 1 ? `-${sequence}` : ''}`;
}

/**
 * The run's complete checkpoints, oldest first (the last is the one a resume continues from). An empty
 * list when there is none.
 */
export function listCheckpoints(runDir: string): CheckpointEntry[] {
  const root = join(resolve(runDir), CHECKPOINTS_DIR);
  const out: CheckpointEntry[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    names = [];
  }
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const dir = join(root, name);
    if (!existsSync(join(dir, MANIFEST_FILE))) continue;
    out.push({ name, dir, iteration: Number(m[1]), sequence: m[2] ? Number(m[2]) : 1 });
  }
  out.sort((a, b) => a.iteration - b.iteration || a.sequence - b.sequence);
  return out;
}

/** What a path given as a model or a run to resume means. */
export interface ResolvedCheckpointPath {
  /** The run directory the checkpoint belongs to; null for a standalone checkpoint directory. */
  readonly runDir: string | null;
  /** The checkpoint directory itself (absolute). */
  readonly checkpointDir: string;
  /** Whether this is the run's newest checkpoint (always true for a standalone one). */
  readonly latest: boolean;
}

/**
 * A run directory or one of its checkpoint directories (or any standalone checkpoint directory): the
 * checkpoint it names and the run it belongs to. A run directory means its newest checkpoint.
 */
export function resolveCheckpointPath(path: string): ResolvedCheckpointPath {
  const dir = resolve(path);
  if (!existsSync(dir)) throw new CheckpointError(dir, `no checkpoint at ${dir}: the directory does not exist`);
  if (existsSync(join(dir, MANIFEST_FILE))) {
    const parent = dirname(dir);
    let runDir: string | null = null;
    if (basename(parent) === CHECKPOINTS_DIR && NAME.test(basename(dir))) runDir = dirname(parent);
    if (runDir === null) return { runDir, checkpointDir: dir, latest: true };
    const newest = listCheckpoints(runDir).at(-1);
    return { runDir, checkpointDir: dir, latest: newest === undefined || newest.dir === dir };
  }
  const newest = listCheckpoints(dir).at(-1);
  if (newest) return { runDir: dir, checkpointDir: newest.dir, latest: true };
  throw new CheckpointError(
    dir,
    `no checkpoint at ${dir}: it is neither a checkpoint directory (no ${MANIFEST_FILE}) nor a run directory with a complete checkpoint in ${join(dir, CHECKPOINTS_DIR)}`,
  );
}

/** How `saveRunCheckpoint` writes the checkpoint (as `saveCheckpoint`) and how many of the run's it keeps. */
export interface SaveRunCheckpointOptions extends SaveCheckpointOptions {
  /** Iterations whose checkpoints are kept, the new one's included (default 5; at least 1). Every save of a kept iteration stays. */
  readonly keep?: number;
}

/** What `saveRunCheckpoint` did: the checkpoint written and those it pruned. */
export interface SavedRunCheckpoint {
  /** The manifest as written. */
  readonly manifest: CheckpointManifest;
  /** Where the new checkpoint is. */
  readonly entry: CheckpointEntry;
  /** Checkpoints deleted because their iteration is older than the last `keep`. */
  readonly removed: readonly CheckpointEntry[];
}

/** How many iterations' checkpoints a run keeps when `SaveRunCheckpointOptions.keep` is not given. */
export const DEFAULT_KEEP_CHECKPOINTS = 5;

/**
 * Writes the run's next checkpoint, `RUN/checkpoints/iter-NNNNNN/` (`checkpointName`), atomically: it
 * appears by one rename, so the newest checkpoint is always complete. Before writing it removes what
 * killed saves left behind; after, it prunes the checkpoints of iterations older than the last `keep`
 * (every save of a kept iteration stays).
 */
export async function saveRunCheckpoint(
  runDir: string,
  model: tf.LayersModel,
  manifest: CheckpointManifestInput,
  optimizerState?: OptimizerState,
  options: SaveRunCheckpointOptions = {},
): Promise<SavedRunCheckpoint> {
  const keep = options.keep ?? DEFAULT_KEEP_CHECKPOINTS;
  if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`keep must be a positive integer, got ${keep}`);
  const root = join(resolve(runDir), CHECKPOINTS_DIR);
  await fs.mkdir(root, { recursive: true });
  await removeStaleTemporaries(runDir);
  let sequence = 1;
  while (existsSync(join(root, checkpointName(manifest.iteration, sequence)))) sequence++;
  const name = checkpointName(manifest.iteration, sequence);
  const written = await saveCheckpoint(join(root, name), model, manifest, optimizerState, options);
  const entry: CheckpointEntry = { name, dir: join(root, name), iteration: manifest.iteration, sequence };
  const all = listCheckpoints(runDir);
  // `keep` counts iterations, not folders: a second save at the same iteration (the end of a
  // multi-process run, Ctrl-C) must not push the oldest kept iteration out of a rating ladder.
  const iterations = [...new Set(all.map((e) => e.iteration))].sort((a, b) => a - b);
  const keptFrom = iterations[Math.max(0, iterations.length - keep)] ?? manifest.iteration;
  const removed = all.filter((e) => e.iteration < keptFrom && e.name !== name);
  for (const old of removed) {
    // Renamed aside first: deleting file by file could be cut short and leave a half checkpoint.
    const aside = join(root, `.${old.name}.removing-${randomBytes(4).toString('hex')}`);
    faultPoint('prune:rename');
    await fs.rename(old.dir, aside);
    faultPoint('prune:delete');
    await fs.rm(aside, { recursive: true, force: true });
  }
  await syncDirectory(root);
  return { manifest: written, entry, removed };
}

/** Removes what killed saves left behind in the run's checkpoints folder (hidden temporaries). */
export async function removeStaleTemporaries(runDir: string): Promise<string[]> {
  const root = join(resolve(runDir), CHECKPOINTS_DIR);
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith('.') || !(name.includes('.tmp-') || name.includes('.removing-'))) continue;
    await fs.rm(join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

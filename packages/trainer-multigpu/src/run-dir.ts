/**
 * The run directory (`--out`, default runs/<game>):
 *   options.json     the options of the latest session
 *   changes.jsonl    options a `--resume` changed, one line per resume that changed any
 *   metrics.jsonl    one line per iteration (each checkpoint also holds its own: see metrics-log.ts)
 *   checkpoints/     iter-NNNNNN/ per save, those of the last --keep iterations (see @az/nn checkpoint-store.ts)
 *   replay/          the replay buffer as segments (see replay-store.ts)
 *   train.lock       while a session trains the run: who (see run-lock.ts); not a run file of its own
 * A new run never writes into a directory that holds another run: it refuses, or with --force moves the
 * old run aside first. `--resume` takes the run directory or any of its checkpoint folders.
 */
import { existsSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { CHECKPOINTS_DIR, listCheckpoints, resolveCheckpointPath } from '@az/nn';
import { ReplayBuffer, type ReplayShape } from './replay-buffer.js';
import { REPLAY_DIR } from './replay-store.js';

export interface RunPaths {
  readonly dir: string;
  readonly options: string;
  readonly changes: string;
  readonly metrics: string;
  /** How the latest session ended (written at its end). */
  readonly summary: string;
  readonly checkpoints: string;
  readonly replay: string;
}

/** Where a run keeps its files. */
export function runPaths(out: string): RunPaths {
  const dir = resolve(out);
  return {
    dir,
    options: join(dir, 'options.json'),
    changes: join(dir, 'changes.jsonl'),
    metrics: join(dir, 'metrics.jsonl'),
    summary: join(dir, 'summary.json'),
    checkpoints: join(dir, CHECKPOINTS_DIR),
    replay: join(dir, REPLAY_DIR),
  };
}

/** A run directory that cannot be used as asked; the message says what to do instead. */
export class RunDirectoryError extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
    this.name = 'RunDirectoryError';
  }
}

/**
 * The file a training session holds the run directory by (see run-lock.ts). It is not a run file: a
 * directory holding only the lock is a run about to start, and an archived run never takes one along.
 */
export const RUN_LOCK_FILE = 'train.lock';

const RUN_FILES = ['options.json', 'metrics.jsonl', 'changes.jsonl', 'summary.json', CHECKPOINTS_DIR, REPLAY_DIR];

/** Whether `dir` holds a training run's files (false when it is missing or not a directory). */
export function holdsRun(dir: string): boolean {
  try {
    return readdirSync(dir).some((e) => RUN_FILES.includes(e));
  } catch {
    return false;
  }
}

/**
 * Makes sure a new run may use `out`: a missing or empty directory is fine; one holding a run (or
 * anything else) is refused, unless `force`, which renames it to `<out>.archived-<time>` (nothing is
 * deleted). Returns where the old contents went, if anywhere. Creates nothing. The run's lock does not
 * count as contents: the caller holds it (openRun takes it first), and with `force` it goes along with
 * the rename, for the caller to take the new directory's and drop the archive's.
 */
export function claimRunDirectory(out: string, gameId: string, force: boolean): string | null {
  const dir = resolve(out);
  if (!existsSync(dir)) return null;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    throw new RunDirectoryError(dir, `--out ${dir} exists and is not a directory; choose another --out`);
  }
  if (entries.every(isTransientRunEntry)) return null;
  if (force) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    let archive = `${dir}.archived-${stamp}`;
    for (let k = 2; existsSync(archive); k++) archive = `${dir}.archived-${stamp}-${k}`;
    renameSync(dir, archive);
    return archive;
  }
  const isRun = holdsRun(dir);
  const newest = isRun ? listCheckpoints(dir).at(-1) : undefined;
  // The game the run was started for, so the advice names a resume that works (a run of another game cannot be continued as this one).
  const runGame = isRun ? recordedGame(dir) : undefined;
  if (isRun && !newest) throw new RunDirectoryError(dir, `${dir} holds ${noCheckpointYet(dir, out, runGame ?? gameId)} To start a new run elsewhere: choose another --out.`);
  const ofGame = runGame !== undefined && runGame !== gameId ? ` of ${runGame}` : '';
  const what = isRun ? `a training run${ofGame}${newest && newest.iteration >= 0 ? ` (checkpoint ${newest.name})` : ''}` : 'files that are not a training run';
  throw new RunDirectoryError(
    dir,
    `${dir} already holds ${what}; a new run would mix with it. ` +
      (isRun ? `To continue it: az train --game ${runGame ?? gameId} --resume ${out}. ` : '') +
      `To start a new run: choose another --out. To start over in this directory: --force (the old contents are moved to ${basename(dir)}.archived-<time> beside it, not deleted).`,
  );
}

/**
 * Whether a run directory's entry is none of the run's contents: the lock, or the hidden temporary of a
 * run file being written (writeFileAtomic's `.options.json.tmp-*`), or left by a killed write. A
 * directory holding only such entries is a run about to start.
 */
export function isTransientRunEntry(name: string): boolean {
  return name === RUN_LOCK_FILE || (name.startsWith('.') && name.includes('.tmp-'));
}

/** What a run directory without a checkpoint is, and the one command that starts it again. */
function noCheckpointYet(dir: string, out: string, game: string): string {
  return (
    `a training run that has no checkpoint yet (it stopped before its first iteration ended), so there is nothing to resume. ` +
    `To start it again in this directory: az train --game ${game} --out ${out} --force, with the settings it was started with (recorded in ${join(dir, 'options.json')}, when present); ` +
    `its files are moved to ${basename(dir)}.archived-<time> beside it, not deleted.`
  );
}

/** The game a run directory's options.json records, or undefined when the file is missing or unreadable. */
export function recordedGame(runDir: string): string | undefined {
  try {
    const options: unknown = JSON.parse(readFileSync(runPaths(runDir).options, 'utf8'));
    const game = options !== null && typeof options === 'object' ? (options as { game?: unknown }).game : undefined;
    return typeof game === 'string' ? game : undefined;
  } catch {
    return undefined;
  }
}

/** The run directory and checkpoint a `--resume` path means (the run directory or one of its checkpoint folders). */
export function resolveResume(path: string): { runDir: string; checkpointDir: string } {
  const dir = resolve(path);
  if (holdsRun(dir) && listCheckpoints(dir).length === 0) {
    throw new RunDirectoryError(dir, `--resume ${path}: ${dir} holds ${noCheckpointYet(dir, path, recordedGame(dir) ?? 'GAME')}`);
  }
  const resolved = resolveCheckpointPath(path);
  if (resolved.runDir === null) {
    throw new RunDirectoryError(resolved.checkpointDir, `--resume ${path}: ${resolved.checkpointDir} is a checkpoint outside any run directory; --resume takes a run directory (the --out of a training run)`);
  }
  if (!resolved.latest) {
    const newest = listCheckpoints(resolved.runDir).at(-1);
    throw new RunDirectoryError(
      resolved.checkpointDir,
      `--resume ${path}: that is not the run's newest checkpoint (${newest?.name}); a resume continues from the newest: pass the run directory ${resolved.runDir}`,
    );
  }
  return { runDir: resolved.runDir, checkpointDir: resolved.checkpointDir };
}

/**
 * Refuses sizes that cannot fit in this machine's memory, before anything is created: the replay buffer
 * once full, and the training minibatch (its arrays and, roughly, the network's activations for it).
 */
export function checkRunFitsMemory(replayCapacity: number, batchSize: number, shape: ReplayShape, memory = totalmem()): void {
  const gb = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(1)} GB`;
  const replayBytes = replayCapacity * ReplayBuffer.bytesPerPosition(shape);
  if (!Number.isSafeInteger(replayCapacity) || replayBytes > 0.75 * memory) {
    const most = Math.floor((0.75 * memory) / ReplayBuffer.bytesPerPosition(shape));
    throw new RangeError(
      `replay (--replay ${replayCapacity}) must be at most ${most} positions to fit in memory: ${replayCapacity} positions of this game take ${gb(replayBytes)} once the buffer is full, and this machine has ${gb(memory)}`,
    );
  }
  // Inputs, dense policy and legal masks, values; the network's activations take several times that.
  const batchBytes = 8 * batchSize * 4 * (shape.inputSize + 2 * shape.actionSize + shape.numSeats);
  if (!Number.isSafeInteger(batchSize) || batchBytes > 0.5 * memory || batchSize * shape.inputSize > 2 ** 31) {
    const most = Math.floor(Math.min((0.5 * memory) / (batchBytes / batchSize), 2 ** 31 / shape.inputSize));
    throw new RangeError(`batch size (--batch-size ${batchSize}) must be at most ${most} to fit in memory: a minibatch of ${batchSize} positions needs about ${gb(batchBytes)}, and this machine has ${gb(memory)}`);
  }
}

/**
 * The run directory's lock, `train.lock`: one training session at a time writes a run. Two trainers on
 * one run would write the same checkpoint names (the second's as iter-N-2), interleave their metrics
 * lines and prune each other's replay segments, without a word; `--force` would archive a run from under
 * the trainer still writing it.
 *
 * The lock is a file created only if absent ('wx': atomic, also on NFS v3+), holding who took it: pid,
 * host, start time and command line, for the message of whoever finds it taken. The session removes it
 * however it ends that the process controls (return, error, Ctrl-C, and process.exit: the second Ctrl-C
 * of `az train`). A kill -9, a crash of the machine or a lost terminal leave it behind: a lock whose pid
 * is no longer alive on this same host is stale and taken over with a warning. One from another host is
 * never judged: this machine cannot see that host's processes, so it is refused with the file to delete.
 * A pid the system has since given to another process makes a stale lock look live: refused, and the
 * message says which file to delete.
 *
 * Readers (az report, az serve --run, az play --model) take no lock: checkpoints appear by an atomic
 * rename and metrics lines are appended whole, so they read a run while it trains.
 */
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RUN_LOCK_FILE, RunDirectoryError } from './run-dir.js';
import { formatDuration } from './time-budget.js';

/** What train.lock records: who holds the run. */
export interface RunLockHolder {
  readonly pid: number;
  readonly hostname: string;
  /** When the session took the lock (ISO 8601). */
  readonly started: string;
  /** The holder's command line. */
  readonly command: string;
}

/** The run is held by another session (or a lock this process cannot judge): nothing was changed. */
export class RunLockedError extends RunDirectoryError {
  constructor(
    path: string,
    /** The holder the lock file names; null when the file cannot be read. */
    readonly holder: RunLockHolder | null,
    message: string,
  ) {
    super(path, message);
    this.name = 'RunLockedError';
  }
}

export interface RunLockOptions {
  /** The command the lock records, as words, quoted there as a shell needs them (default: this process's arguments). */
  readonly command?: readonly string[];
  /** Where the one-line warning of a stale lock's takeover goes. */
  readonly log?: (message: string) => void;
  /** Added to the refusal, for what the caller was about to do (e.g. that --force archives nothing). */
  readonly refusing?: string;
}

/** A held run directory. `release` is safe to call again, and is called for it if the process exits holding it. */
export interface RunLock {
  readonly dir: string;
  readonly holder: RunLockHolder;
  /**
   * After the run directory was renamed with the lock in it (`--force` archiving it): the lock file is now
   * in `renamedTo`, and `release` removes it from there.
   */
  movedWith(renamedTo: string): void;
  release(): void;
}

/** Locks the process holds, released by the exit handler if the process ends without releasing them. */
const held = new Set<() => void>();
let exitHandlerInstalled = false;
function releaseAtExit(release: () => void): void {
  held.add(release);
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on('exit', () => {
    for (const r of [...held]) r();
  });
}

/** Words quoted as a POSIX shell needs them, so the recorded command can be read (and pasted) as typed. */
function commandLine(args: readonly string[]): string {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The holder described for a message: pid, host, since when (and how long ago), its command. */
export function describeHolder(holder: RunLockHolder, now = Date.now()): string {
  const since = Date.parse(holder.started);
  const ago = Number.isFinite(since) ? ` (${formatDuration(Math.max(0, Math.round((now - since) / 1000)))} ago)` : '';
  return `pid ${holder.pid} on host ${holder.hostname}, since ${holder.started}${ago}, running: ${holder.command}`;
}

type Judged = { state: 'free' } | { state: 'stale'; holder: RunLockHolder; text: string };

function parseHolder(text: string): RunLockHolder | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return text.trim() === '' ? 'it is empty' : `not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  const v = value as Partial<Record<keyof RunLockHolder, unknown>> | null;
  if (v === null || typeof v !== 'object' || !Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.hostname !== 'string') return 'it names no pid and host';
  return { pid: v.pid as number, hostname: v.hostname, started: typeof v.started === 'string' ? v.started : '(unknown)', command: typeof v.command === 'string' ? v.command : '(unknown)' };
}

/** Whether a process of this host has that pid (one of another user counts: it exists). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * The lock file as it stands: free (absent), stale (its holder is gone), or a RunLockedError naming the
 * holder and what to do. Reads only.
 */
function judge(dir: string, file: string, refusing: string | undefined): Judged {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'free' }; // no lock (nor run) there: taking it says what is
    throw err;
  }
  const extra = refusing ? ` ${refusing}.` : '';
  const holder = parseHolder(text);
  if (typeof holder === 'string') {
    throw new RunLockedError(
      dir,
      null,
      `${dir} is locked by ${file}, which cannot be read (${holder}): a trainer may be starting on it this moment, so this one stops here, having changed nothing.${extra} If no trainer is running on this run, delete ${file} and run this again.`,
    );
  }
  if (holder.hostname !== osHostname()) {
    throw new RunLockedError(
      dir,
      holder,
      `${dir} is locked by a trainer on another host: ${describeHolder(holder)}. This machine cannot tell whether it is still running, so this one stops here, having changed nothing.${extra} ` +
        `If that trainer is still running, stop it there first (Ctrl-C where it runs, or kill -INT ${holder.pid} on ${holder.hostname}: it writes a checkpoint and unlocks the run). ` +
        `If you know it is gone (stopped without unlocking, or its machine went down), delete ${file} and run this again.`,
    );
  }
  if (alive(holder.pid)) {
    throw new RunLockedError(
      dir,
      holder,
      `${dir} is being trained by another process: ${describeHolder(holder)}. Two trainers on one run would mix their checkpoints and metrics, so this one stops here, having changed nothing.${extra} ` +
        `Let that one finish, or stop it (Ctrl-C where it runs, or kill -INT ${holder.pid}: it writes a checkpoint and unlocks the run), then run this again; to train a separate run meanwhile, give another --out. ` +
        `If pid ${holder.pid} is no longer that trainer (its number was reused), delete ${file}.`,
    );
  }
  return { state: 'stale', holder, text };
}

/**
 * Refuses, as `acquireRunLock` would, a run directory another session holds; a missing directory, no
 * lock or a stale one pass. Reads only: for refusing early, before the checks that precede the lock.
 */
export function checkRunUnlocked(dir: string, options: Pick<RunLockOptions, 'refusing'> = {}): void {
  const abs = resolve(dir);
  judge(abs, join(abs, RUN_LOCK_FILE), options.refusing);
}

/**
 * Takes the run directory `dir` (created if missing; removed again on release if the session left it
 * empty) for this process, or throws RunLockedError. A stale lock is taken over, with a warning.
 */
export function acquireRunLock(dir: string, options: RunLockOptions = {}): RunLock {
  const abs = resolve(dir);
  let file = join(abs, RUN_LOCK_FILE);
  const holder: RunLockHolder = {
    pid: process.pid,
    hostname: osHostname(),
    started: new Date().toISOString(),
    command: commandLine(options.command ?? process.argv.slice(1)),
  };
  const text = JSON.stringify(holder, null, 2) + '\n';
  let created: string | undefined;
  try {
    created = mkdirSync(abs, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new RunDirectoryError(abs, `${abs} cannot be a run directory: it, or a folder above it, is a file; choose another --out`);
    throw err;
  }
  // A few rounds: another process may take over the same stale lock, or take a free one, between ours.
  for (let round = 0; round < 5; round++) {
    try {
      writeFileSync(file, text, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        removeCreated(abs, created);
        throw err;
      }
      let judged: Judged;
      try {
        judged = judge(abs, file, options.refusing);
      } catch (refusal) {
        removeCreated(abs, created);
        throw refusal;
      }
      if (judged.state === 'stale') takeOver(file, judged, options.log);
      continue;
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held.delete(release);
      // Only our own lock: if it was deleted by hand and another session took the run since, that one stays.
      try {
        if (readFileSync(file, 'utf8') === text) unlinkSync(file);
      } catch {
        // Gone already.
      }
      removeCreated(abs, created);
    };
    releaseAtExit(release);
    return {
      dir: abs,
      holder,
      movedWith: (renamedTo: string) => {
        file = join(resolve(renamedTo), RUN_LOCK_FILE);
      },
      release,
    };
  }
  removeCreated(abs, created);
  throw new RunLockedError(abs, null, `${abs}: could not take ${file}: other processes kept taking and releasing it; run this again`);
}

/**
 * Moves a stale lock aside and deletes it. The rename is the atomic step: of two processes taking over
 * the same stale lock, one renames it; should the other rename the first one's new lock instead (it sees
 * another text), it puts that back (a link fails rather than replace a lock taken meanwhile).
 */
function takeOver(file: string, stale: { holder: RunLockHolder; text: string }, log: ((m: string) => void) | undefined): void {
  const aside = `${file}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // taken over by another process already
    throw err;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== stale.text) {
    // Not the stale lock: another process's new one. Put it back, unless a third has locked the run since.
    try {
      linkSync(aside, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') renameSync(aside, file); // a filesystem without hard links
    }
    rmSync(aside, { force: true });
    return;
  }
  unlinkSync(aside);
  log?.(`warning: ${dirname(file)} was locked by a trainer that is no longer running (${describeHolder(stale.holder)}); taking the run over (it was stopped without unlocking, e.g. by kill -9)`);
}

/** Removes the directories the lock created, from the run directory up, as long as they are empty. */
function removeCreated(dir: string, created: string | undefined): void {
  if (created === undefined) return;
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty: the run wrote something, or another process uses the folder
    }
    if (d === resolve(created) || dirname(d) === d) return;
  }
}

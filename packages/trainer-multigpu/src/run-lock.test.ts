// The run directory's lock (train.lock): one session at a time, refusals that name the holder, a dead
// holder's lock taken over, another host's never judged, and the lock gone however the process ends.
// Uses the built module (dist/run-lock.js) for the process that exits holding a lock.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE, RunDirectoryError } from './run-dir.js';
import { RunLockedError, acquireRunLock, checkRunUnlocked, type RunLockHolder } from './run-lock.js';

const work = mkdtempSync(join(tmpdir(), 'az-run-lock-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lockOf = (dir: string): RunLockHolder => JSON.parse(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')) as RunLockHolder;
const refusal = (take: () => unknown): RunLockedError => {
  try {
    take();
  } catch (err) {
    expect(err).toBeInstanceOf(RunLockedError);
    return err as RunLockedError;
  }
  throw new Error('the lock was not refused');
};
/** The pid of a process that has exited (and been reaped): no process has it, until the system reuses it. */
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise<void>((resolve) => child.on('exit', () => resolve()));
  if (child.pid === undefined) throw new Error('no child process');
  return child.pid;
};

describe('the run lock', () => {
  it('is taken once: it records the holder, a second taker is refused with the holder named, and release frees it', () => {
    const dir = join(work, 'runs', 'one');
    const lock = acquireRunLock(dir, { command: ['az', 'train', '--game', 'tictactoe', '--config', 'a b'] });
    const holder = lockOf(dir);
    expect(holder).toEqual({ pid: process.pid, hostname: hostname(), started: lock.holder.started, command: "az train --game tictactoe --config 'a b'" });
    expect(Date.parse(holder.started)).toBeLessThanOrEqual(Date.now());

    const refused = refusal(() => acquireRunLock(dir));
    expect(refused).toBeInstanceOf(RunDirectoryError); // az train exits 2 on it, as on every run-directory refusal
    expect(refused.holder).toEqual(holder);
    expect(refused.message).toContain(`${dir} is being trained by another process: pid ${process.pid} on host ${hostname()}, since ${holder.started}`);
    expect(refused.message).toContain("running: az train --game tictactoe --config 'a b'");
    expect(refused.message).toContain(`kill -INT ${process.pid}`);
    expect(refused.message).toContain('give another --out');
    expect(refused.message).toContain(`delete ${join(dir, RUN_LOCK_FILE)}`);
    expect(() => checkRunUnlocked(dir, { refusing: '--force moves no run aside while it is being trained' })).toThrow(/changed nothing\. --force moves no run aside/);
    expect(lockOf(dir)).toEqual(holder); // the refusal changed nothing

    lock.release();
    lock.release(); // again: nothing
    // The lock made the directory and the run left it empty: both gone, as before the session.
    expect(existsSync(join(work, 'runs'))).toBe(false);
    const again = acquireRunLock(dir);
    expect(lockOf(dir).pid).toBe(process.pid);
    again.release();
  });

  it('keeps a directory it did not make, and leaves alone a lock that is no longer its own', () => {
    const dir = join(work, 'kept');
    mkdirSync(dir);
    writeFileSync(join(dir, 'options.json'), '{}\n');
    const lock = acquireRunLock(dir);
    // Deleted by hand while held, and taken by another session since: that one's lock stays.
    const successor = JSON.stringify({ pid: process.pid, hostname: hostname(), started: new Date().toISOString(), command: 'az train (the successor)' });
    writeFileSync(join(dir, RUN_LOCK_FILE), successor);
    lock.release();
    expect(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')).toBe(successor);
    rmSync(join(dir, RUN_LOCK_FILE));
    const mine = acquireRunLock(dir);
    mine.release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
    expect(existsSync(join(dir, 'options.json'))).toBe(true);
  });

  it('takes over a lock whose holder is no longer running on this host, with a one-line warning naming it', async () => {
    const dir = join(work, 'stale');
    mkdirSync(dir);
    const dead: RunLockHolder = { pid: await deadPid(), hostname: hostname(), started: '2024-05-01T10:00:00.000Z', command: 'az train --game connect4 --out runs/c' };
    writeFileSync(join(dir, RUN_LOCK_FILE), JSON.stringify(dead));
    expect(() => checkRunUnlocked(dir)).not.toThrow();
    const logs: string[] = [];
    const lock = acquireRunLock(dir, { log: (m) => logs.push(m) });
    expect(logs).toHaveLength(1);
    expect(logs[0]).not.toContain('\n');
    expect(logs[0]).toMatch(new RegExp(`^warning: ${dir} was locked by a trainer that is no longer running \\(pid ${dead.pid} on host ${hostname()}, since 2024-05-01T10:00:00.000Z \\(.* ago\\), running: az train --game connect4 --out runs/c\\); taking the run over`));
    expect(lockOf(dir).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  });

  it("refuses another host's lock, live or not, and says which file to delete once its trainer is known to be gone", () => {
    const dir = join(work, 'elsewhere');
    mkdirSync(dir);
    // A pid no process of this host has: were it judged here, it would look stale.
    const foreign = JSON.stringify({ pid: 2 ** 22 + 17, hostname: 'gpu-box.invalid', started: '2024-05-01T10:00:00.000Z', command: 'az train --game chess --gpus 0,1' });
    writeFileSync(join(dir, RUN_LOCK_FILE), foreign);
    const refused = refusal(() => acquireRunLock(dir));
    expect(refused.message).toContain(`${dir} is locked by a trainer on another host: pid ${2 ** 22 + 17} on host gpu-box.invalid, since 2024-05-01T10:00:00.000Z`);
    expect(refused.message).toContain('running: az train --game chess --gpus 0,1');
    expect(refused.message).toContain('cannot tell whether it is still running');
    expect(refused.message).toContain(`If you know it is gone (stopped without unlocking, or its machine went down), delete ${join(dir, RUN_LOCK_FILE)} and run this again`);
    expect(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')).toBe(foreign);
  });

  it('refuses a lock file it cannot read (a trainer writing it this moment, or a damaged one), naming the file', () => {
    const dir = join(work, 'unreadable');
    mkdirSync(dir);
    writeFileSync(join(dir, RUN_LOCK_FILE), '');
    const refused = refusal(() => acquireRunLock(dir));
    expect(refused.holder).toBeNull();
    expect(refused.message).toContain(`${dir} is locked by ${join(dir, RUN_LOCK_FILE)}, which cannot be read (it is empty)`);
    expect(refused.message).toContain(`If no trainer is running on this run, delete ${join(dir, RUN_LOCK_FILE)}`);
    expect(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8')).toBe('');
  });

  it('names a file where the run directory would be, instead of failing on it', () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'not a run\n');
    for (const dir of [file, join(file, 'run')]) {
      expect(() => checkRunUnlocked(dir)).not.toThrow();
      expect(() => acquireRunLock(dir)).toThrow(new RunDirectoryError(dir, `${dir} cannot be a run directory: it, or a folder above it, is a file; choose another --out`));
    }
  });

  it('is removed when the process exits holding it (process.exit: the second Ctrl-C of az train)', async () => {
    const dir = join(work, 'exiting');
    const module = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'run-lock.js')).href;
    const script = `const { acquireRunLock } = await import(${JSON.stringify(module)}); acquireRunLock(${JSON.stringify(dir)}); console.log('locked'); process.exit(130);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output).toBe(130);
    expect(output).toContain('locked');
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  });
});

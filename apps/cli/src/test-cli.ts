// The built `az` run as a user runs it, for the end-to-end tests: in a temporary working directory
// that is removed after the test file, with the exit code and both streams returned.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built CLI entry point (`npm run build` first). */
export const AZ_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');

export interface AzResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh temporary directory (removed after the file's tests) and `az(args, stdin)` run there. */
export function azInTempDir(prefix: string, timeoutMs = 240_000): { work: string; az: (args: string[], input?: string) => AzResult } {
  const work = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const az = (args: string[], input = ''): AzResult => {
    const r = spawnSync(process.execPath, [AZ_BIN, ...args], { input, encoding: 'utf8', cwd: work, timeout: timeoutMs });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };
  return { work, az };
}

/** An `az` started in the background (a trainer to interrupt, a server): waited on by what it prints, never by a timer. */
export interface RunningAz {
  readonly child: ChildProcess;
  /** Its exit code (null when a signal ended it). */
  readonly exit: Promise<number | null>;
  /** stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** Resolves with the output so far once it matches `pattern`; rejects, with the output, if az exits first. */
  until(pattern: RegExp): Promise<string>;
}

/** Starts `az args` in `cwd` without waiting for it; `stdin: 'pipe'` to talk to it (`child.stdin`). */
export function startAz(cwd: string, args: readonly string[], options: { readonly stdin?: 'ignore' | 'pipe' } = {}): RunningAz {
  const argv = [AZ_BIN, ...args];
  const child = options.stdin === 'pipe' ? spawn(process.execPath, argv, { cwd, stdio: 'pipe' }) : spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let exited = false;
  const waiters: { pattern: RegExp; resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  const check = (): void => {
    for (const w of waiters.slice()) {
      if (w.pattern.test(text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(text);
      } else if (exited) {
        waiters.splice(waiters.indexOf(w), 1);
        w.reject(new Error(`az ${args.join(' ')} exited before printing ${w.pattern}:\n${text}`));
      }
    }
  };
  const take = (d: Buffer): void => {
    text += d.toString();
    check();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      exited = true;
      check();
      resolve(code);
    }),
  );
  return {
    child,
    exit,
    output: () => text,
    until: (pattern) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ pattern, resolve, reject });
        check();
      }),
  };
}

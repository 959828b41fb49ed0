// The built `az` run as a user runs it, for the end-to-end tests: in a temporary working directory
// that is removed after the test file, with the exit code and both streams returned.
import { spawnSync } from 'node:child_process';
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

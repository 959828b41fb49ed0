/**
 * Real components (Stockfish, redis-server, Chromium, Verdaccio) for integration tests. A test that
 * needs one asks `realComponent(name)`: on a developer machine without it the suite is skipped with a
 * printed reason; under CI (`CI=true`) a missing component is an error, since `.ci/run` installs them.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Debian puts binaries that root's PATH may not hold (stockfish lives in /usr/games). */
const EXTRA_DIRS = ['/usr/games', '/usr/local/games', '/usr/sbin', '/usr/bin'];

/** A looked-up component: where it is, or why the suite that needs it is skipped. */
export interface RealComponent {
  /** The component's name, as asked for. */
  readonly name: string;
  /** Absolute path of the executable, or undefined when it is not installed. */
  readonly path: string | undefined;
  /** Why the suite is skipped (undefined when the component is present). */
  readonly skipReason: string | undefined;
}

/** The first executable called one of `names` on PATH or in Debian's usual folders. */
export function findExecutable(names: readonly string[]): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const name of names) {
    if (name.includes('/')) {
      if (isExecutable(name)) return name;
      continue;
    }
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Look a component up by its executable names. Missing under CI: throws (CI must run every suite).
 * Missing elsewhere: prints one line saying which suite is skipped and how to install it.
 */
export function realComponent(name: string, options: { executables?: readonly string[]; install: string; suite: string }): RealComponent {
  const path = findExecutable(options.executables ?? [name]);
  if (path !== undefined) return { name, path, skipReason: undefined };
  const skipReason = `${name} not found (install: ${options.install}); skipping ${options.suite}`;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(`${skipReason}: CI must run it (.ci/run installs it when missing)`);
  }
  console.warn(`SKIPPED: ${skipReason}`);
  return { name, path: undefined, skipReason };
}

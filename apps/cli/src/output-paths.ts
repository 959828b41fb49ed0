/**
 * Where a command will write (`az train --out`, `az eval --games-out`, `az rate --out`, ...), checked
 * before any work starts: a path under a regular file, an unwritable directory or a directory where a
 * file is to go is a usage error naming the path component at fault, not the system's ENOTDIR or EACCES
 * after the work is done. Nothing is created or truncated to find out.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './args.js';

/** What `path` is, or undefined when it does not exist (a missing component, or one that is a file). */
function statOf(path: string, refuse: (why: string) => never): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return refuse(err instanceof Error ? err.message : String(err));
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `path` itself or the nearest of its parents that exists (as written: relative paths stay relative). */
function nearestExisting(path: string, refuse: (why: string) => never): { path: string; stats: Stats } | undefined {
  for (let p = path; ; p = dirname(p)) {
    const stats = statOf(p, refuse);
    if (stats) return { path: p, stats };
    if (dirname(p) === p) return undefined;
  }
}

/**
 * Refuses a directory `az <command>` would create (with its missing parents) or write into: `what` names
 * it in the message (`--out`, or `the run directory` for a default). It must be a directory if it exists;
 * else its nearest existing parent must be a writable directory, not a file.
 */
export function checkOutputDirectory(command: string, what: string, dir: string): void {
  const refuse = (why: string): never => {
    throw new UsageError(`az ${command}: cannot write ${what} ${dir}: ${why}`);
  };
  const existing = nearestExisting(dir, refuse);
  if (!existing) return;
  if (!existing.stats.isDirectory()) refuse(existing.path === dir ? 'it is a file, not a directory' : `${existing.path} is a file, not a directory`);
  if (!writable(existing.path)) refuse(existing.path === dir ? 'the directory is not writable' : `the directory ${existing.path} is not writable`);
}

/**
 * Refuses a file `az <command>` would write: `what` names it in the message (`--games-out`). An existing
 * one must be a writable file; else its directory must exist (it is not created) and be writable, and a
 * parent that is a file is named.
 */
export function checkOutputFile(command: string, what: string, file: string): void {
  const refuse = (why: string): never => {
    throw new UsageError(`az ${command}: cannot write ${what} ${file}: ${why}`);
  };
  const existing = nearestExisting(file, refuse);
  if (existing?.path === file) {
    if (existing.stats.isDirectory()) refuse('it is a directory');
    if (!writable(file)) refuse('the file is not writable');
    return;
  }
  const dir = dirname(file);
  if (existing && !existing.stats.isDirectory()) refuse(`${existing.path} is a file, not a directory`);
  if (existing?.path !== dir) refuse(`the directory ${dir} does not exist`);
  else if (!writable(dir)) refuse(`the directory ${dir} is not writable`);
}

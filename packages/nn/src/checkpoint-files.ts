/**
 * File-system steps shared by checkpoint writing and reading: durable writes and checksums.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A checkpoint that cannot be written or read. `path` is the file or directory at fault. */
export class CheckpointError extends Error {
  constructor(
    /** The file or directory at fault. */
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'CheckpointError';
  }
}

/** The SHA-256 of `data` (a string is hashed as UTF-8) in lowercase hex, as checkpoint manifests list it. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Writes a file and fsyncs it, so a rename that follows never exposes a half-written file. */
export async function writeFileSynced(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await fs.open(path, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file whole or not at all: a hidden temporary beside it, fsynced, then renamed over it. When the
 * write fails (a full disk) the temporary is removed and `path` is left as it was, so no reader ever sees
 * a truncated or empty file. A process killed before the rename leaves only the hidden temporary.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(4).toString('hex')}`);
  try {
    await writeFileSynced(tmp, data);
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  await syncDirectory(dirname(path));
}

/** fsync a directory so a rename in it is durable; not supported everywhere (Windows), hence best effort. */
export async function syncDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await fs.open(path, fsConstants.O_RDONLY);
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close();
  }
}

export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    if (isNotFound(err)) return null;
    throw new CheckpointError(path, `cannot read ${path}: ${errorMessage(err)}`);
  }
}

export async function readBytesOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return await fs.readFile(path);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw new CheckpointError(path, `cannot read ${path}: ${errorMessage(err)}`);
  }
}

/** A standalone ArrayBuffer with exactly these bytes (Node Buffers may share a larger pool). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

/** Refuses a non-empty directory that is not a checkpoint, so a typo cannot wipe unrelated files. */
export async function refuseToClobber(target: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(target);
  } catch (err) {
    if (isNotFound(err)) return;
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOTDIR') throw new CheckpointError(target, `cannot save checkpoint: ${target} exists and is a file`);
    throw new CheckpointError(target, `cannot save checkpoint ${target}: ${errorMessage(err)}`);
  }
  if (entries.length > 0 && !entries.includes('manifest.json')) {
    throw new CheckpointError(
      target,
      `cannot save checkpoint: ${target} exists and is not a checkpoint (no ${'manifest.json'}); refusing to replace it`
    );
  }
}

/** Renames `tmp` to `target`, replacing an existing checkpoint there; the old one is removed only after. */
export async function moveIntoPlace(tmp: string, target: string): Promise<void> {
  try {
    await fs.rename(tmp, target);
    return;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM') throw err;
  }
  const old = `${tmp}.old`;
  await fs.rename(target, old);
  try {
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rename(old, target).catch(() => undefined);
    throw err;
  }
  await fs.rm(old, { recursive: true, force: true });
}

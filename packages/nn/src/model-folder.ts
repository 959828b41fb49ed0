/**
 * A model folder (a checkpoint directory) is untrusted input: someone may hand you one. It is data only,
 * read and never executed, and every read from it goes through here, which holds it to these rules:
 *   - a file is named by a plain name (letters, digits, `.`, `_`, `-`; not starting with `.`), so no name
 *     (a manifest's `files` key, a tfjs `weightsManifest` path) reaches outside the folder;
 *   - a file is a regular file: not a symbolic link (which could point anywhere), a device (/dev/zero
 *     never ends), a FIFO or socket (a read may wait for ever) or a directory;
 *   - a file's size is checked before it is read, against a bound its role allows (the weights exactly
 *     the bytes the network config implies), and its bytes are read once, from the handle that was checked.
 * A breach is a ModelFolderError naming the folder, the file and the rule.
 */
import { createHash } from 'node:crypto';
import { constants as fsConstants, promises as fs, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { NetworkConfig } from '@az/core';
import { CheckpointError, errorMessage, isNotFound } from './checkpoint-files.js';
import { networkWeightShapes } from './model.js';

/**
 * A model folder's file that breaks one of the rules every read of an untrusted checkpoint obeys (a plain
 * file name, a regular file, a size within what its role allows). `path` is the file (or the folder).
 */
export class ModelFolderError extends CheckpointError {
  constructor(path: string, message: string) {
    super(path, message);
    this.name = 'ModelFolderError';
  }
}

const MiB = 1024 * 1024;
/** manifest.json, model.json, optimizer.json, replay.json: metadata, never large. */
export const METADATA_FILE_MAX_BYTES = 64 * MiB;
/** model.onnx beyond its weights: node and value descriptions, a few KiB even for deep towers. */
const ONNX_GRAPH_OVERHEAD_BYTES = 16 * MiB;
const FLOAT32_BYTES = 4;

const PLAIN_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Why `name` cannot name a file of a model folder, or null when it is a plain file name. */
export function fileNameProblem(name: string): string | null {
  if (name.length === 0) return 'a file name cannot be empty';
  if (name.length > 255) return 'a file name is at most 255 characters';
  if (PLAIN_NAME.test(name)) return null;
  if (name.includes('\0')) return 'a file name cannot hold a NUL character';
  if (name.includes('/') || name.includes('\\')) return 'a file name cannot hold a path separator (only files directly in the folder are read)';
  if (name.startsWith('.')) return "a file name cannot start with '.'";
  return 'a file name holds only letters, digits, ., _ and -';
}

/** Throws a ModelFolderError unless `name` is a plain file name. */
export function checkFileName(dir: string, name: string, listedIn: string): void {
  const problem = fileNameProblem(name);
  if (problem) throw new ModelFolderError(dir, `model folder ${dir}: ${listedIn} names the file ${JSON.stringify(name)}; refused: ${problem}`);
}

/**
 * The most bytes file `name` of a model folder for `network` may hold: the weights exactly their size
 * (4 bytes a parameter), the optimizer's two moments at most twice that, model.onnx its weights plus a
 * graph, anything else (metadata, a trainer's extra copy of the weights) the larger of a metadata bound
 * and twice the weights.
 */
export function fileByteLimit(name: string, network: NetworkConfig): number {
  const weights = FLOAT32_BYTES * parameterCount(network);
  if (name === 'weights.bin') return weights;
  if (name === 'optimizer.bin') return 2 * weights;
  if (name === 'model.onnx') return weights + ONNX_GRAPH_OVERHEAD_BYTES;
  if (name === 'manifest.json' || name === 'model.json' || name === 'optimizer.json') return METADATA_FILE_MAX_BYTES;
  return Math.max(METADATA_FILE_MAX_BYTES, 2 * weights);
}

function parameterCount(network: NetworkConfig): number {
  let total = 0;
  for (const shape of networkWeightShapes(network).values()) total += shape.reduce((a, b) => a * b, 1);
  return total;
}

/** The most bytes a file may hold, and who says so ("manifest.json lists", "a file of its kind may hold"). */
export interface ByteLimit {
  readonly bytes: number;
  readonly source: string;
}

/** The bound `fileByteLimit` gives, as a ByteLimit. */
export function kindLimit(name: string, network: NetworkConfig): ByteLimit {
  return { bytes: fileByteLimit(name, network), source: `a ${name} for this network may hold` };
}

interface OpenedFile {
  readonly path: string;
  readonly handle: fs.FileHandle;
  readonly size: number;
}

/**
 * Opens file `name` of folder `dir` for reading once it has passed the rules: plain name, a regular file
 * (checked without following links, and again on the opened handle, so nothing swapped in between is
 * read), at most `limit`. Null when it does not exist.
 */
async function openFolderFile(dir: string, name: string, limit: ByteLimit): Promise<OpenedFile | null> {
  checkFileName(dir, name, 'the checkpoint');
  const path = join(dir, name);
  let before: Stats;
  try {
    before = await fs.lstat(path);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw new CheckpointError(path, `cannot read ${path}: ${errorMessage(err)}`);
  }
  checkRegularFile(dir, path, before);
  // No following links, no waiting on a FIFO swapped in after the lstat: the fstat below refuses those.
  const flags = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, flags);
  } catch (err) {
    if (isNotFound(err)) return null;
    const code = (err as { code?: unknown }).code;
    if (code === 'ELOOP') throw refused(dir, path, 'it is a symbolic link');
    throw new CheckpointError(path, `cannot read ${path}: ${errorMessage(err)}`);
  }
  try {
    const opened = await handle.stat();
    checkRegularFile(dir, path, opened);
    if (opened.ino !== before.ino || opened.dev !== before.dev) throw refused(dir, path, 'it was replaced while being opened');
    if (opened.size > limit.bytes) throw refused(dir, path, `it is oversized: ${opened.size} bytes, more than the ${limit.bytes} ${limit.source}`);
    return { path, handle, size: opened.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

function checkRegularFile(dir: string, path: string, stat: Stats): void {
  if (stat.isFile()) return;
  const kind = stat.isSymbolicLink()
    ? 'a symbolic link'
    : stat.isDirectory()
      ? 'a directory'
      : stat.isFIFO()
        ? 'a FIFO (named pipe)'
        : stat.isSocket()
          ? 'a socket'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'a device'
            : 'not a regular file';
  throw refused(dir, path, `it is ${kind}`);
}

function refused(dir: string, path: string, why: string): ModelFolderError {
  return new ModelFolderError(path, `model folder ${dir}: refused ${path}: ${why}; a model folder holds plain regular files only, no larger than declared`);
}

/**
 * The bytes of file `name` of model folder `dir`, read under the rules above (at most `limit`), or
 * null when the file does not exist.
 */
export async function readFolderFile(dir: string, name: string, limit: ByteLimit): Promise<Uint8Array | null> {
  const file = await openFolderFile(dir, name, limit);
  if (file === null) return null;
  try {
    const bytes = new Uint8Array(file.size);
    let filled = 0;
    while (filled < file.size) {
      const { bytesRead } = await file.handle.read(bytes, filled, file.size - filled, filled);
      if (bytesRead === 0) throw new CheckpointError(file.path, `cannot read ${file.path}: it shrank while being read`);
      filled += bytesRead;
    }
    return bytes;
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(file.path, `cannot read ${file.path}: ${errorMessage(err)}`);
  } finally {
    await file.handle.close();
  }
}

/** Size and sha256 of a model folder's file, hashed as it streams (never held whole), or null when it does not exist. */
export async function hashFolderFile(dir: string, name: string, limit: ByteLimit): Promise<{ readonly bytes: number; readonly sha256: string } | null> {
  const file = await openFolderFile(dir, name, limit);
  if (file === null) return null;
  try {
    const hash = createHash('sha256');
    const chunk = new Uint8Array(Math.min(file.size, MiB) || 1);
    let total = 0;
    while (total < file.size) {
      const { bytesRead } = await file.handle.read(chunk, 0, Math.min(chunk.length, file.size - total), total);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return { bytes: total, sha256: hash.digest('hex') };
  } catch (err) {
    throw new CheckpointError(file.path, `cannot read ${file.path}: ${errorMessage(err)}`);
  } finally {
    await file.handle.close();
  }
}

/** Whether file `name` exists in model folder `dir`, refusing it (ModelFolderError) when it breaks a rule. */
export async function folderFileExists(dir: string, name: string, limit: ByteLimit): Promise<boolean> {
  const file = await openFolderFile(dir, name, limit);
  if (file === null) return false;
  await file.handle.close();
  return true;
}

/**
 * The replay buffer on disk: `RUN/replay/seg-*.bin.gz`, one gzip-compressed segment per save holding only
 * the positions added since the previous save, never rewritten. Each checkpoint carries a `replay.json`
 * (checksummed with the checkpoint's other files) listing the segments, with their sha256, that rebuild
 * the buffer as it was at that checkpoint. So a save writes what is new (not the whole buffer), a killed
 * save leaves only an unlisted segment (removed later), and every byte read back is verified.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CheckpointError, fileNameProblem, ModelFolderError, sha256, syncDirectory, writeFileSynced } from '@az/nn';
import { faultPoint } from '@az/nn/testing';
import { ReplayBuffer, type ReplayRange, type ReplayShape } from './replay-buffer.js';

export const REPLAY_DIR = 'replay';
export const REPLAY_INDEX_FILE = 'replay.json';

export interface ReplaySegment {
  readonly file: string;
  readonly first: number;
  readonly count: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** What a checkpoint's replay.json holds. */
export interface ReplayIndex {
  readonly format: 'az-replay-index';
  readonly version: 1;
  readonly capacity: number;
  readonly shape: ReplayShape;
  readonly totalAdded: number;
  readonly segments: readonly ReplaySegment[];
}

/**
 * Writes the positions added since `previous` as a new segment and returns the index describing the
 * whole buffer (segments still needed by the ring). Nothing is written when nothing was added.
 */
export async function saveReplay(runDir: string, buffer: ReplayBuffer, previous: ReplayIndex | null): Promise<ReplayIndex> {
  // Taken before the first await: games keep arriving (multi-process intake) while the segment is
  // written, and belong to the next save.
  const totalAdded = buffer.totalAdded;
  const oldest = buffer.oldestIndex;
  const from = Math.max(previous?.totalAdded ?? 0, oldest);
  const range = from < totalAdded ? buffer.exportRange(from) : null;
  const dir = join(resolve(runDir), REPLAY_DIR);
  await fs.mkdir(dir, { recursive: true });
  let segments = previous ? [...previous.segments] : [];
  if (range) {
    const bytes = encodeSegment(range, buffer.shape);
    const file = `seg-${String(from).padStart(12, '0')}-${randomBytes(3).toString('hex')}.bin.gz`;
    const tmp = join(dir, `.${file}.tmp`);
    faultPoint('replay:write');
    await writeFileSynced(tmp, bytes);
    faultPoint('replay:rename');
    await fs.rename(tmp, join(dir, file));
    await syncDirectory(dir);
    segments.push({ file, first: from, count: range.count, bytes: bytes.byteLength, sha256: sha256(bytes) });
  }
  // Segments whose positions the ring has overwritten entirely are no longer part of the buffer.
  segments = segments.filter((s) => s.first + s.count > oldest);
  return { format: 'az-replay-index', version: 1, capacity: buffer.capacity, shape: buffer.shape, totalAdded, segments };
}

/** Parses a checkpoint's replay.json (already verified against the manifest); errors name the file. */
export function parseReplayIndex(text: string, path: string): ReplayIndex {
  let parsed: ReplayIndex;
  try {
    parsed = JSON.parse(text) as ReplayIndex;
  } catch (err) {
    throw new CheckpointError(path, `corrupt ${path}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (parsed?.format !== 'az-replay-index' || !Array.isArray(parsed.segments) || !Number.isInteger(parsed.totalAdded)) {
    throw new CheckpointError(path, `corrupt ${path}: not an az replay index`);
  }
  // A segment is a file of RUN/replay/, named plainly: replay.json names nothing outside it.
  for (const segment of parsed.segments) {
    const problem = typeof segment?.file === 'string' ? fileNameProblem(segment.file) : 'it is not a string';
    if (problem) throw new ModelFolderError(path, `${path} names the replay segment ${JSON.stringify(segment?.file)}; refused: ${problem}`);
    if (!Number.isInteger(segment.bytes) || segment.bytes < 0) throw new CheckpointError(path, `corrupt ${path}: segment ${segment.file} has no valid byte count`);
  }
  return parsed;
}

/**
 * Rebuilds the buffer an index describes, with `capacity` (the run's current setting: it may differ from
 * the saved one). Each segment is checked against its sha256 and for non-finite values; errors name it.
 */
export function loadReplay(runDir: string, index: ReplayIndex, capacity: number, shape: ReplayShape): ReplayBuffer {
  const s = index.shape;
  if (s.inputSize !== shape.inputSize || s.actionSize !== shape.actionSize || s.numSeats !== shape.numSeats) {
    throw new CheckpointError(join(runDir, REPLAY_DIR), `the saved replay buffer's shape ${JSON.stringify(s)} does not match the game's ${JSON.stringify(shape)}`);
  }
  const buffer = new ReplayBuffer(capacity, { ...shape, policyWidth: s.policyWidth });
  const keepFrom = index.totalAdded - capacity;
  for (const segment of index.segments) {
    if (segment.first + segment.count <= keepFrom) continue;
    const path = join(resolve(runDir), REPLAY_DIR, segment.file);
    let stat: Stats;
    try {
      stat = lstatSync(path);
    } catch {
      throw new CheckpointError(path, `replay segment ${path} is missing (the checkpoint's ${REPLAY_INDEX_FILE} lists it)`);
    }
    // Checked before reading: a link, FIFO or device is never read, nor a segment bigger than listed.
    if (!stat.isFile()) throw new ModelFolderError(path, `replay segment ${path} is not a regular file (a link, FIFO, device or directory); refused`);
    if (stat.size > segment.bytes) throw new CheckpointError(path, `replay segment ${path} is oversized: ${stat.size} bytes, but ${REPLAY_INDEX_FILE} lists ${segment.bytes}`);
    const bytes = readFileSync(path);
    if (bytes.byteLength !== segment.bytes) {
      throw new CheckpointError(path, `replay segment ${path} is ${bytes.byteLength < segment.bytes ? 'truncated' : 'oversized'}: ${bytes.byteLength} bytes, but ${REPLAY_INDEX_FILE} lists ${segment.bytes}`);
    }
    if (sha256(bytes) !== segment.sha256) throw new CheckpointError(path, `replay segment ${path} is corrupt: its sha256 does not match the one in ${REPLAY_INDEX_FILE}`);
    let range: ReplayRange;
    try {
      range = decodeSegment(bytes, buffer.shape);
    } catch (err) {
      throw new CheckpointError(path, `replay segment ${path} is unreadable: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (range.first !== segment.first || range.count !== segment.count) throw new CheckpointError(path, `replay segment ${path} does not hold the positions ${REPLAY_INDEX_FILE} lists`);
    try {
      buffer.importRange(range);
    } catch (err) {
      throw new CheckpointError(path, `replay segment ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return buffer;
}

/** Deletes segment files no kept checkpoint lists, and temporaries of killed saves. */
export async function pruneReplay(runDir: string, listed: ReadonlySet<string>): Promise<void> {
  const dir = join(resolve(runDir), REPLAY_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (listed.has(name)) continue;
    if (!(name.startsWith('seg-') || (name.startsWith('.seg-') && name.endsWith('.tmp')))) continue;
    faultPoint('replay:prune');
    await fs.rm(join(dir, name), { force: true });
  }
}

const SEGMENT_MAGIC = 'az-replay-segment';

function encodeSegment(range: ReplayRange, shape: ReplayShape): Uint8Array {
  const header = Buffer.from(JSON.stringify({ format: SEGMENT_MAGIC, version: 1, shape, first: range.first, count: range.count }), 'utf8');
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(header.length);
  const parts = [range.inputs, range.policyIndex, range.policyProb, range.values, range.weightsVersion, range.legal].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  return gzipSync(Buffer.concat([prefix, header, ...parts]), { level: 6 });
}

function decodeSegment(compressed: Uint8Array, shape: ReplayShape): ReplayRange {
  const bytes = gunzipSync(compressed);
  const headerLength = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as { format: string; first: number; count: number; shape: ReplayShape };
  if (header.format !== SEGMENT_MAGIC) throw new Error('not a replay segment');
  const n = header.count;
  const W = shape.policyWidth;
  const L = Math.ceil(shape.actionSize / 8);
  let off = 4 + headerLength;
  const take = <T>(make: (buf: ArrayBuffer) => T, byteLength: number): T => {
    if (off + byteLength > bytes.length) throw new Error('truncated');
    const copy = new ArrayBuffer(byteLength);
    new Uint8Array(copy).set(bytes.subarray(off, off + byteLength));
    off += byteLength;
    return make(copy);
  };
  const range: ReplayRange = {
    first: header.first,
    count: n,
    inputs: take((b) => new Float32Array(b), n * shape.inputSize * 4),
    policyIndex: take((b) => new Int32Array(b), n * W * 4),
    policyProb: take((b) => new Float32Array(b), n * W * 4),
    values: take((b) => new Float32Array(b), n * shape.numSeats * 4),
    weightsVersion: take((b) => new Int32Array(b), n * 4),
    legal: take((b) => new Uint8Array(b), n * L),
  };
  if (off !== bytes.length) throw new Error('unexpected bytes after the positions');
  return range;
}

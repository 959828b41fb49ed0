/**
 * Checkpoints: a directory holding
 *   manifest.json     what the network is for (game, config, encoder version, iteration, network config...)
 *   model.json        tfjs model topology + weights manifest (standard tfjs layers format)
 *   weights.bin       the weights, as described by model.json
 *   optimizer.json    optional: Adam scalars and the moments' layout
 *   optimizer.bin     optional: Adam moments
 *   model.onnx        the same network as an ONNX graph for onnxruntime (batch norm folded; see onnx-export.ts)
 * plus any extra files the caller adds (the trainer's replay.json). The manifest lists every file with its
 * size and sha256 and carries a checksum of itself; every load verifies the files it reads, so a flipped or
 * truncated byte is an error naming the file, never a silently different model.
 * Files go through node:fs (tfjs's own file:// handler needs tfjs-node). Saving writes a temporary sibling
 * directory and renames it into place, so a crash never leaves a half-written checkpoint under the final name.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ResolvedConfig } from '@az/core';
import { exportOnnx } from './onnx/onnx-export.js';
import type { NetworkConfig } from '@az/core';
import { tf } from './tf.js';
import { checkModelMatchesConfig, ModelShapeError } from './tfjs/tfjs-model.js';
import { CheckpointError, errorMessage, faultPoint, isNotFound, moveIntoPlace, readBytesOrNull, readTextOrNull, refuseToClobber, sha256, syncDirectory, toArrayBuffer, writeFileSynced } from './checkpoint-files.js';

import { isFileList, manifestProblem, nonFiniteWeight, type CheckpointFileEntry } from './checkpoint-checks.js';

export { CheckpointError };
import type { OptimizerState } from './training.js';

export const CHECKPOINT_FORMAT = 'az-checkpoint';
/** 2: the manifest lists each file's sha256 and checksums itself. Version 1 checkpoints still load. */
export const CHECKPOINT_FORMAT_VERSION = 2;

export const MANIFEST_FILE = 'manifest.json';
export const MODEL_FILE = 'model.json';
export const WEIGHTS_FILE = 'weights.bin';
export const OPTIMIZER_FILE = 'optimizer.json';
export const OPTIMIZER_DATA_FILE = 'optimizer.bin';
/** The network as an ONNX graph, for onnxruntime inference (`openCheckpointInference`). */
export const ONNX_MODEL_FILE = 'model.onnx';

export interface SaveCheckpointOptions {
  /**
   * The ONNX graph to write as model.onnx: true (default) exports it from `model`; bytes from `exportOnnx`
   * that the caller already has (the trainer exports them for its self-play session anyway) are written
   * as given; false writes none.
   */
  readonly onnx?: boolean | Uint8Array;
  /** More files to write into the checkpoint (name -> contents), listed and checksummed like the others. */
  readonly extraFiles?: Readonly<Record<string, string | Uint8Array>>;
}

export interface CheckpointManifest {
  readonly format: typeof CHECKPOINT_FORMAT;
  readonly formatVersion: number;
  readonly gameId: string;
  /** The game's resolved config, so the game can be recreated exactly. */
  readonly gameConfig: ResolvedConfig;
  /** `Encoder.version` when the network was trained; a different encoder makes the network meaningless. */
  readonly encoderVersion: string;
  /** Training iteration that produced these weights. */
  readonly iteration: number;
  /** Monotonic version of the weights (increments whenever the trainer publishes new weights). */
  readonly weightsVersion: number;
  readonly network: NetworkConfig;
  /** Backend the checkpoint was written from (informational: weights load on any backend). */
  readonly backend: string;
  /** ISO 8601 time of writing. */
  readonly createdAt: string;
  /** Free-form data the trainer wants back (rng state, schedules...). Must be JSON-serialisable. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Format 2: every other file of the checkpoint, with its size and sha256. */
  readonly files?: Readonly<Record<string, CheckpointFileEntry>>;
  /** Format 2: sha256 of the manifest's compact JSON without this field. */
  readonly checksum?: string;
}

/** What the caller supplies; format, formatVersion, files, checksum and (unless given) createdAt are filled in. */
export type CheckpointManifestInput = Omit<CheckpointManifest, 'format' | 'formatVersion' | 'createdAt' | 'files' | 'checksum'> & { readonly createdAt?: string };

export interface LoadedCheckpoint {
  readonly model: tf.LayersModel;
  readonly manifest: CheckpointManifest;
  readonly optimizerState?: OptimizerState;
  /** The manifest lists optimizer files that are gone: the optimizer starts afresh (Adam moments reset). */
  readonly optimizerMissing?: boolean;
}

/** What the caller expects the checkpoint to be for; a mismatch is a CheckpointError. */
export interface CheckpointExpectation {
  readonly gameId?: string;
  readonly encoderVersion?: string;
}

/**
 * Writes a checkpoint directory atomically. An existing checkpoint at `dir` is replaced; an existing
 * directory that is not a checkpoint (and not empty) is refused, so a typo cannot wipe unrelated files.
 * Returns the manifest as written.
 */
export async function saveCheckpoint(
  dir: string,
  model: tf.LayersModel,
  manifest: CheckpointManifestInput,
  optimizerState?: OptimizerState,
  options: SaveCheckpointOptions = {}
): Promise<CheckpointManifest> {
  const target = resolve(dir);
  const base: CheckpointManifest = {
    ...manifest,
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    createdAt: manifest.createdAt ?? new Date().toISOString(),
  };
  const problem = manifestProblem(base);
  if (problem) throw new CheckpointError(target, `cannot save checkpoint ${target}: manifest ${problem}`);
  try {
    checkModelMatchesConfig(model, base.network);
  } catch (err) {
    throw new CheckpointError(target, `cannot save checkpoint ${target}: ${errorMessage(err)}`);
  }
  await refuseToClobber(target);

  // Capture the model's artifacts in memory, then write them ourselves.
  let artifacts: tf.io.ModelArtifacts | null = null;
  await model.save(
    tf.io.withSaveHandler(async (a) => {
      artifacts = a;
      return { modelArtifactsInfo: tf.io.getModelArtifactsInfoForJSON(a) };
    })
  );
  const captured = artifacts as tf.io.ModelArtifacts | null;
  if (!captured || !captured.weightSpecs || captured.weightData === undefined) {
    throw new CheckpointError(target, `cannot save checkpoint ${target}: tfjs produced no weights`);
  }
  const weightData = new tf.io.CompositeArrayBuffer(captured.weightData).slice();
  const nonFinite = nonFiniteWeight(captured.weightSpecs, weightData);
  if (nonFinite) throw new CheckpointError(target, `cannot save checkpoint ${target}: weight ${nonFinite} is not finite (NaN or infinite); the previous checkpoint is kept`);
  const modelJson = {
    format: captured.format,
    generatedBy: captured.generatedBy,
    convertedBy: captured.convertedBy,
    modelTopology: captured.modelTopology,
    weightsManifest: [{ paths: [WEIGHTS_FILE], weights: captured.weightSpecs }],
  };
  const onnxOption = options.onnx ?? true;
  let onnx: Uint8Array | null = null;
  try {
    onnx = onnxOption === true ? exportOnnx(model, base.network) : onnxOption === false ? null : onnxOption;
  } catch (err) {
    throw new CheckpointError(target, `cannot save checkpoint ${target}: ONNX export failed: ${errorMessage(err)}`);
  }

  const contents: [string, string | Uint8Array][] = [
    [WEIGHTS_FILE, new Uint8Array(weightData)],
    [MODEL_FILE, JSON.stringify(modelJson)],
  ];
  if (onnx) contents.push([ONNX_MODEL_FILE, onnx]);
  if (optimizerState) {
    const { data, ...meta } = optimizerState;
    contents.push([OPTIMIZER_DATA_FILE, new Uint8Array(data)]);
    contents.push([OPTIMIZER_FILE, JSON.stringify({ ...meta, dataFile: OPTIMIZER_DATA_FILE, byteLength: data.byteLength }, null, 2) + '\n']);
  }
  for (const [name, data] of Object.entries(options.extraFiles ?? {})) {
    if (name === MANIFEST_FILE || contents.some(([n]) => n === name) || name !== basename(name) || name.startsWith('.')) {
      throw new CheckpointError(target, `cannot save checkpoint ${target}: extra file name '${name}' is taken or not a plain file name`);
    }
    contents.push([name, data]);
  }
  const files: Record<string, CheckpointFileEntry> = {};
  for (const [name, data] of contents) files[name] = { bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, sha256: sha256(data) };
  const unsigned: CheckpointManifest = { ...base, files };
  const full: CheckpointManifest = { ...unsigned, checksum: sha256(JSON.stringify(unsigned)) };

  const parent = dirname(target);
  await fs.mkdir(parent, { recursive: true });
  const tmp = join(parent, `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  faultPoint('checkpoint:mkdir');
  await fs.mkdir(tmp);
  try {
    for (const [name, data] of contents) {
      faultPoint(`checkpoint:write:${name}`);
      await writeFileSynced(join(tmp, name), data);
    }
    // The manifest goes last: a directory with a manifest is a complete checkpoint.
    faultPoint(`checkpoint:write:${MANIFEST_FILE}`);
    await writeFileSynced(join(tmp, MANIFEST_FILE), JSON.stringify(full, null, 2) + '\n');
    faultPoint('checkpoint:sync');
    await syncDirectory(tmp);
    faultPoint('checkpoint:rename');
    await moveIntoPlace(tmp, target);
    await syncDirectory(parent);
  } catch (err) {
    await fs.rm(tmp, { recursive: true, force: true });
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(target, `cannot save checkpoint ${target}: ${errorMessage(err)}`);
  }
  return full;
}

/**
 * Reads and checks a checkpoint's manifest only (cheap; no model is built). Throws CheckpointError when the
 * directory is missing, is not a checkpoint, or the manifest is corrupt or for another game/encoder.
 */
export async function readCheckpointManifest(dir: string, expect: CheckpointExpectation = {}): Promise<CheckpointManifest> {
  const target = resolve(dir);
  let stat;
  try {
    stat = await fs.stat(target);
  } catch (err) {
    if (isNotFound(err)) throw new CheckpointError(target, `checkpoint directory not found: ${target}`);
    throw new CheckpointError(target, `cannot read checkpoint directory ${target}: ${errorMessage(err)}`);
  }
  if (!stat.isDirectory()) throw new CheckpointError(target, `${target} is not a checkpoint directory (it is a file)`);
  const manifestPath = join(target, MANIFEST_FILE);
  const text = await readTextOrNull(manifestPath);
  if (text === null) throw new CheckpointError(manifestPath, `${target} is not a checkpoint: it has no ${MANIFEST_FILE}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: not valid JSON (${errorMessage(err)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError(manifestPath, `${manifestPath} is not an az checkpoint manifest (expected "format": "${CHECKPOINT_FORMAT}")`);
  }
  const version = (parsed as { formatVersion?: unknown }).formatVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: formatVersion must be a positive integer`);
  }
  if (version > CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError(
      manifestPath,
      `checkpoint ${target} has format version ${version}, newer than this az reads (${CHECKPOINT_FORMAT_VERSION}); upgrade az`
    );
  }
  const problem = manifestProblem(parsed);
  if (problem) throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: ${problem}`);
  const manifest = parsed as CheckpointManifest;
  if (version >= 2) {
    const { checksum, ...unsigned } = manifest;
    if (typeof checksum !== 'string' || !isFileList(unsigned.files)) {
      throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: format ${version} needs "files" and "checksum"`);
    }
    if (sha256(JSON.stringify(unsigned)) !== checksum) {
      throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: its contents do not match its checksum (the file was changed or damaged)`);
    }
  }
  if (expect.gameId !== undefined && manifest.gameId !== expect.gameId) {
    throw new CheckpointError(target, `checkpoint ${target} is for game '${manifest.gameId}', not '${expect.gameId}'`);
  }
  if (expect.encoderVersion !== undefined && manifest.encoderVersion !== expect.encoderVersion) {
    throw new CheckpointError(
      target,
      `checkpoint ${target} was trained with encoder version '${manifest.encoderVersion}' of game '${manifest.gameId}', but the game now encodes positions as version '${expect.encoderVersion}'; the network cannot be reused (train a new one)`
    );
  }
  return manifest;
}

/**
 * Loads a checkpoint: manifest, model (on the current backend) and optimizer state if one was saved.
 * Every failure is a CheckpointError naming the path and the problem.
 */
export async function loadCheckpoint(dir: string, expect: CheckpointExpectation = {}): Promise<LoadedCheckpoint> {
  const target = resolve(dir);
  const manifest = await readCheckpointManifest(target, expect);

  const modelPath = join(target, MODEL_FILE);
  const modelBytes = await readBytesOrNull(modelPath);
  if (modelBytes === null) throw new CheckpointError(modelPath, `checkpoint ${target} is incomplete: ${MODEL_FILE} is missing`);
  verifyCheckpointFile(target, manifest, MODEL_FILE, modelBytes);
  const modelText = Buffer.from(modelBytes).toString('utf8');
  let modelJson: tf.io.ModelJSON;
  try {
    modelJson = JSON.parse(modelText) as tf.io.ModelJSON;
  } catch (err) {
    throw new CheckpointError(modelPath, `corrupt ${modelPath}: not valid JSON (${errorMessage(err)})`);
  }
  if (!modelJson || typeof modelJson !== 'object' || !modelJson.modelTopology || !Array.isArray(modelJson.weightsManifest)) {
    throw new CheckpointError(modelPath, `corrupt ${modelPath}: expected a tfjs layers model with modelTopology and weightsManifest`);
  }
  const weightSpecs = modelJson.weightsManifest.flatMap((group) => group.weights ?? []);
  const weightsPath = join(target, WEIGHTS_FILE);
  const weightBytes = await readBytesOrNull(weightsPath);
  if (weightBytes === null) throw new CheckpointError(weightsPath, `checkpoint ${target} is incomplete: ${WEIGHTS_FILE} is missing`);
  verifyCheckpointFile(target, manifest, WEIGHTS_FILE, weightBytes);
  const expected = weightSpecsByteLength(weightSpecs);
  if (weightBytes.byteLength !== expected) {
    const what = weightBytes.byteLength < expected ? 'truncated' : 'oversized';
    throw new CheckpointError(weightsPath, `${weightsPath} is ${what}: ${weightBytes.byteLength} bytes, but ${MODEL_FILE} describes ${expected}`);
  }
  const nonFinite = nonFiniteWeight(weightSpecs, toArrayBuffer(weightBytes));
  if (nonFinite) throw new CheckpointError(weightsPath, `${weightsPath} holds non-finite weights (${nonFinite} is NaN or infinite): this network cannot be used`);

  let model: tf.LayersModel;
  try {
    model = await tf.loadLayersModel({
      load: async () => ({
        modelTopology: modelJson.modelTopology,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy,
        weightSpecs,
        weightData: toArrayBuffer(weightBytes),
      }),
    });
  } catch (err) {
    throw new CheckpointError(modelPath, `cannot build the model in ${modelPath}: ${errorMessage(err)}`);
  }
  try {
    checkModelMatchesConfig(model, manifest.network);
  } catch (err) {
    model.dispose();
    if (err instanceof ModelShapeError)
      throw new CheckpointError(modelPath, `checkpoint ${target}: ${MODEL_FILE} disagrees with the manifest's network config: ${err.message}`);
    throw err;
  }

  let optimizerState: OptimizerState | undefined;
  try {
    optimizerState = await readOptimizerState(target, manifest);
  } catch (err) {
    model.dispose();
    throw err;
  }
  const listed = manifest.files?.[OPTIMIZER_FILE] !== undefined;
  if (optimizerState) return { model, manifest, optimizerState };
  return listed ? { model, manifest, optimizerMissing: true } : { model, manifest };
}

/**
 * Checks every file the manifest lists (size and sha256), for readers that do not load them all (az play
 * opens model.onnx only). Optimizer files may be missing (the trainer warns about those itself).
 */
export async function verifyCheckpointFiles(dir: string, manifest: CheckpointManifest): Promise<void> {
  const target = resolve(dir);
  for (const name of Object.keys(manifest.files ?? {})) {
    const path = join(target, name);
    const bytes = await readBytesOrNull(path);
    if (bytes === null) {
      if (name === OPTIMIZER_FILE || name === OPTIMIZER_DATA_FILE) continue;
      throw new CheckpointError(path, `checkpoint ${target} is incomplete: ${name} is missing`);
    }
    verifyCheckpointFile(target, manifest, name, bytes);
  }
}

/** Throws a CheckpointError naming the file when its bytes are not the ones the manifest lists. */
export function verifyCheckpointFile(dir: string, manifest: CheckpointManifest, name: string, bytes: Uint8Array): void {
  if (manifest.formatVersion < 2) return;
  const path = join(dir, name);
  const entry = manifest.files?.[name];
  if (!entry) throw new CheckpointError(path, `${path} is not listed in the checkpoint's ${MANIFEST_FILE}; it cannot be trusted`);
  if (bytes.byteLength !== entry.bytes) {
    const what = bytes.byteLength < entry.bytes ? 'truncated' : 'oversized';
    throw new CheckpointError(path, `${path} is ${what}: ${bytes.byteLength} bytes, but ${MANIFEST_FILE} lists ${entry.bytes}`);
  }
  if (sha256(bytes) !== entry.sha256) throw new CheckpointError(path, `${path} is corrupt: its sha256 does not match the one in ${MANIFEST_FILE} (the file was changed or damaged)`);
}

async function readOptimizerState(target: string, manifest: CheckpointManifest): Promise<OptimizerState | undefined> {
  const metaPath = join(target, OPTIMIZER_FILE);
  const metaBytes = await readBytesOrNull(metaPath);
  const dataPath0 = join(target, OPTIMIZER_DATA_FILE);
  if (metaBytes === null) return undefined;
  verifyCheckpointFile(target, manifest, OPTIMIZER_FILE, metaBytes);
  if (manifest.files?.[OPTIMIZER_DATA_FILE] && (await readBytesOrNull(dataPath0)) === null) return undefined;
  const text = Buffer.from(metaBytes).toString('utf8');
  let meta: Omit<OptimizerState, 'data'> & { byteLength?: unknown };
  try {
    meta = JSON.parse(text) as Omit<OptimizerState, 'data'> & { byteLength?: unknown };
  } catch (err) {
    throw new CheckpointError(metaPath, `corrupt ${metaPath}: not valid JSON (${errorMessage(err)})`);
  }
  const wellFormed =
    meta.format === 'az-adam' &&
    typeof meta.step === 'number' &&
    Array.isArray(meta.variables) &&
    meta.variables.every(
      (v) => typeof v?.name === 'string' && Array.isArray(v.shape) && (v.shape as unknown[]).every((d) => Number.isInteger(d) && (d as number) >= 0)
    );
  if (!wellFormed) {
    throw new CheckpointError(metaPath, `corrupt ${metaPath}: not an az optimizer state`);
  }
  const dataPath = join(target, OPTIMIZER_DATA_FILE);
  const bytes = await readBytesOrNull(dataPath);
  if (bytes === null) throw new CheckpointError(dataPath, `checkpoint ${target} is incomplete: ${OPTIMIZER_DATA_FILE} is missing`);
  verifyCheckpointFile(target, manifest, OPTIMIZER_DATA_FILE, bytes);
  const expected = 8 * meta.variables.reduce((sum, v) => sum + v.shape.reduce((a, b) => a * b, 1), 0);
  if (bytes.byteLength !== expected) {
    const what = bytes.byteLength < expected ? 'truncated' : 'oversized';
    throw new CheckpointError(dataPath, `${dataPath} is ${what}: ${bytes.byteLength} bytes, but ${OPTIMIZER_FILE} describes ${expected}`);
  }
  const { byteLength: _byteLength, dataFile: _dataFile, ...rest } = meta as typeof meta & { dataFile?: unknown };
  return { ...rest, data: toArrayBuffer(bytes) };
}

/** Bytes a list of tfjs weight specs occupies in a weights file. */
export function weightSpecsByteLength(specs: readonly tf.io.WeightsManifestEntry[]): number {
  const bytesPer: Record<string, number> = { float32: 4, int32: 4, bool: 1, uint8: 1, uint16: 2, float16: 2, complex64: 8 };
  let total = 0;
  for (const spec of specs) {
    const dtype = spec.quantization?.dtype ?? spec.dtype;
    const per = bytesPer[dtype];
    if (per === undefined) throw new Error(`unsupported weight dtype ${dtype}`);
    total += spec.shape.reduce((a, b) => a * b, 1) * per;
  }
  return total;
}


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
 * truncated byte is an error naming the file, never a silently different model. A checkpoint handed over by
 * someone else is untrusted input: every read goes through model-folder.ts (plain names, regular files,
 * sizes bounded before reading, weight shapes checked against the network config before they are allocated).
 * Files go through node:fs (tfjs's own file:// handler needs tfjs-node). Saving writes a temporary sibling
 * directory and renames it into place, so a crash never leaves a half-written checkpoint under the final name.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ResolvedConfig } from '@az/core';
import { exportOnnx } from './onnx/onnx-export.js';
import { faultPoint } from './testing.js';
import type { NetworkConfig } from '@az/core';
import { tf } from './tf.js';
import { checkModelMatchesConfig, ModelShapeError } from './tfjs/tfjs-model.js';
import { CheckpointError, errorMessage, isNotFound, moveIntoPlace, refuseToClobber, sha256, syncDirectory, toArrayBuffer, writeFileSynced } from './checkpoint-files.js';
import { checkFileName, fileByteLimit, fileNameProblem, folderFileExists, hashFolderFile, kindLimit, METADATA_FILE_MAX_BYTES, ModelFolderError, readFolderFile, type ByteLimit } from './model-folder.js';
import { networkWeightShapes, NetworkConfigError } from './model.js';

import { isFileList, manifestProblem, nonFiniteWeight, type CheckpointFileEntry } from './checkpoint-checks.js';

export { CheckpointError };
import type { OptimizerState } from './training.js';

/** The `format` of every az checkpoint manifest: what tells an az checkpoint from another directory with a manifest.json. */
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

/** What `saveCheckpoint` writes besides the model, the manifest and the optimizer state. */
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

/**
 * A checkpoint's manifest.json: what the network was trained for and how, read before anything else so a
 * checkpoint for another game, encoder or format is refused without building a model.
 */
export interface CheckpointManifest {
  /** Always `CHECKPOINT_FORMAT`. */
  readonly format: typeof CHECKPOINT_FORMAT;
  /** The layout version the checkpoint was written in (`CHECKPOINT_FORMAT_VERSION` when saved by this az). */
  readonly formatVersion: number;
  /** The id of the game the network plays. */
  readonly gameId: string;
  /** The game's resolved config, so the game can be recreated exactly. */
  readonly gameConfig: ResolvedConfig;
  /** `Encoder.version` when the network was trained; a different encoder makes the network meaningless. */
  readonly encoderVersion: string;
  /** Training iteration that produced these weights. */
  readonly iteration: number;
  /** Monotonic version of the weights (increments whenever the trainer publishes new weights). */
  readonly weightsVersion: number;
  /** The network's architecture and shape: what `buildModel` builds and the weights are checked against. */
  readonly network: NetworkConfig;
  /** Backend the checkpoint was written from (informational: weights load on any backend). */
  readonly backend: string;
  /** ISO 8601 time of writing. */
  readonly createdAt: string;
  /** Free-form data the trainer wants back (rng state, schedules...). Must be JSON-serialisable. */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Every other file of the checkpoint, with its size and sha256. */
  readonly files: Readonly<Record<string, CheckpointFileEntry>>;
  /** sha256 of the manifest's compact JSON without this field. */
  readonly checksum: string;
}

/** What the caller supplies; format, formatVersion, files, checksum and (unless given) createdAt are filled in. */
export type CheckpointManifestInput = Omit<CheckpointManifest, 'format' | 'formatVersion' | 'createdAt' | 'files' | 'checksum'> & {
  /** ISO 8601 time of writing (default: now). */
  readonly createdAt?: string;
};

/** A checkpoint as `loadCheckpoint` reads it: everything needed to search with the network or resume training it. */
export interface LoadedCheckpoint {
  /** The network on the current tfjs backend; the caller disposes it. */
  readonly model: tf.LayersModel;
  /** The manifest, checked. */
  readonly manifest: CheckpointManifest;
  /** Adam's state when one was saved, for `NetworkTrainer.setOptimizerState`. */
  readonly optimizerState?: OptimizerState;
  /** The manifest lists optimizer files that are gone: the optimizer starts afresh (Adam moments reset). */
  readonly optimizerMissing?: boolean;
}

/** What the caller expects the checkpoint to be for; a mismatch is a CheckpointError. */
export interface CheckpointExpectation {
  /** The game the checkpoint must be for. */
  readonly gameId?: string;
  /** The encoder version the network must have been trained with (the game's `Encoder.version` now). */
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
  const base: Omit<CheckpointManifest, 'files' | 'checksum'> = {
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
    if (name === MANIFEST_FILE || contents.some(([n]) => n === name) || fileNameProblem(name) !== null) {
      throw new CheckpointError(target, `cannot save checkpoint ${target}: extra file name '${name}' is taken or not a plain file name`);
    }
    contents.push([name, data]);
  }
  const files: Record<string, CheckpointFileEntry> = {};
  for (const [name, data] of contents) files[name] = { bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, sha256: sha256(data) };
  const unsigned: Omit<CheckpointManifest, 'checksum'> = { ...base, files };
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
  const manifestBytes = await readFolderFile(target, MANIFEST_FILE, { bytes: METADATA_FILE_MAX_BYTES, source: `a ${MANIFEST_FILE} may hold` });
  const text = manifestBytes === null ? null : Buffer.from(manifestBytes).toString('utf8');
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
  if (version < CHECKPOINT_FORMAT_VERSION) {
    // Format 1 (no file list, no checksum) was written only by the unreleased 0.1.0: not read.
    throw new CheckpointError(
      manifestPath,
      `checkpoint ${target} has format version ${version} (unreleased az 0.1.0, without checksums); this az reads ${CHECKPOINT_FORMAT_VERSION} only: train it again`
    );
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
  const { checksum, ...unsigned } = manifest;
  if (typeof checksum !== 'string' || !isFileList(unsigned.files)) {
    throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: format ${version} needs "files" and "checksum"`);
  }
  if (sha256(JSON.stringify(unsigned)) !== checksum) {
    throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: its contents do not match its checksum (the file was changed or damaged)`);
  }
  checkListedFiles(target, manifest);
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
  const modelBytes = await readFolderFile(target, MODEL_FILE, byteLimit(manifest, MODEL_FILE));
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
  const weightSpecs = checkWeightsManifest(target, modelJson.weightsManifest, manifest.network);
  const weightsPath = join(target, WEIGHTS_FILE);
  const weightBytes = await readFolderFile(target, WEIGHTS_FILE, byteLimit(manifest, WEIGHTS_FILE));
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
  const listed = manifest.files[OPTIMIZER_FILE] !== undefined;
  if (optimizerState) return { model, manifest, optimizerState };
  return listed ? { model, manifest, optimizerMissing: true } : { model, manifest };
}

/**
 * Checks every file the manifest lists (size and sha256), for readers that do not load them all (az play
 * opens model.onnx only). Optimizer files may be missing (the trainer warns about those itself).
 */
export async function verifyCheckpointFiles(dir: string, manifest: CheckpointManifest): Promise<void> {
  const target = resolve(dir);
  checkListedFiles(target, manifest);
  for (const [name, entry] of Object.entries(manifest.files)) {
    const path = join(target, name);
    const found = await hashFolderFile(target, name, byteLimit(manifest, name));
    if (found === null) {
      if (name === OPTIMIZER_FILE || name === OPTIMIZER_DATA_FILE) continue;
      throw new CheckpointError(path, `checkpoint ${target} is incomplete: ${name} is missing`);
    }
    if (found.bytes !== entry.bytes) throw new CheckpointError(path, `${path} is truncated: ${found.bytes} bytes, but ${MANIFEST_FILE} lists ${entry.bytes}`);
    if (found.sha256 !== entry.sha256) throw new CheckpointError(path, corruptMessage(path));
  }
}

/**
 * The path of a file of the checkpoint that an engine opens itself (onnxruntime: model.onnx), or null when
 * the checkpoint has none. The file is held to the model-folder rules (a ModelFolderError), and it must
 * be one the manifest lists (a CheckpointError: the caller may fall back to the tfjs
 * weights).
 */
export async function checkpointFilePath(dir: string, manifest: CheckpointManifest, name: string): Promise<string | null> {
  const target = resolve(dir);
  if (!(await folderFileExists(target, name, byteLimit(manifest, name)))) return null;
  const path = join(target, name);
  if (!manifest.files[name]) throw new CheckpointError(path, unlistedMessage(path));
  return path;
}

/** The bound on a file's size before it is read: what the manifest lists, else what its kind allows. */
function byteLimit(manifest: CheckpointManifest, name: string): ByteLimit {
  const entry = manifest.files[name];
  return entry ? { bytes: entry.bytes, source: `${MANIFEST_FILE} lists` } : kindLimit(name, manifest.network);
}

/**
 * Refuses a manifest whose network config cannot be built, or that lists a file by anything but a plain
 * name or with more bytes than a file of its kind may hold for that network.
 */
function checkListedFiles(target: string, manifest: CheckpointManifest): void {
  const manifestPath = join(target, MANIFEST_FILE);
  try {
    networkWeightShapes(manifest.network);
  } catch (err) {
    if (err instanceof NetworkConfigError) throw new CheckpointError(manifestPath, `corrupt checkpoint manifest ${manifestPath}: ${err.message}`);
    throw err;
  }
  for (const [name, entry] of Object.entries(manifest.files)) {
    checkFileName(target, name, `${MANIFEST_FILE} ("files")`);
    const limit = fileByteLimit(name, manifest.network);
    if (entry.bytes > limit) {
      throw new ModelFolderError(manifestPath, `model folder ${target}: ${MANIFEST_FILE} lists ${name} at ${entry.bytes} bytes, more than the ${limit} a ${name} for its network may hold; refused`);
    }
  }
}

/**
 * The weight specs of a model.json, once they are what the manifest's network needs: one group stored in
 * weights.bin (its `paths` name no other file), float32 weights with exactly the names and shapes
 * `buildModel` gives that network. Checked before any weight is read or allocated.
 */
function checkWeightsManifest(target: string, weightsManifest: tf.io.WeightsManifestConfig, network: NetworkConfig): tf.io.WeightsManifestEntry[] {
  const modelPath = join(target, MODEL_FILE);
  const [group] = weightsManifest;
  const paths: unknown = group?.paths;
  if (weightsManifest.length !== 1 || !Array.isArray(paths) || paths.length !== 1 || paths[0] !== WEIGHTS_FILE) {
    throw new ModelFolderError(
      modelPath,
      `model folder ${target}: ${MODEL_FILE}'s weightsManifest names ${JSON.stringify(weightsManifest.map((g) => g?.paths))}; refused: an az checkpoint keeps its weights in ${WEIGHTS_FILE} alone`,
    );
  }
  const specs: unknown = group.weights;
  const disagree = (what: string): ModelFolderError =>
    new ModelFolderError(modelPath, `checkpoint ${target}: ${MODEL_FILE} disagrees with the manifest's network config: ${what} (the network: ${describeNetwork(network)})`);
  if (!Array.isArray(specs)) throw disagree('its weightsManifest lists no weights');
  const expected = networkWeightShapes(network);
  const seen = new Set<string>();
  for (const spec of specs as unknown[]) {
    const { name, shape, dtype, quantization } = (spec ?? {}) as Partial<tf.io.WeightsManifestEntry>;
    if (typeof name !== 'string') throw disagree('a weight has no name');
    const want = expected.get(name);
    if (want === undefined) throw disagree(`weight ${JSON.stringify(name)} is not one the network has`);
    if (seen.has(name)) throw disagree(`weight ${name} is listed twice`);
    seen.add(name);
    if (dtype !== 'float32' || quantization !== undefined) throw disagree(`weight ${name} is ${JSON.stringify(dtype)}${quantization ? ' (quantized)' : ''}; the network's weights are float32`);
    if (!Array.isArray(shape) || shape.length !== want.length || shape.some((d, i) => d !== want[i])) {
      throw disagree(`weight ${name} has shape ${JSON.stringify(shape)}, but the network needs [${want.join(', ')}]`);
    }
  }
  const missing = [...expected.keys()].filter((name) => !seen.has(name));
  if (missing.length > 0) throw disagree(`weights ${missing.join(', ')} are missing`);
  return specs as tf.io.WeightsManifestEntry[];
}

function describeNetwork(network: NetworkConfig): string {
  return `${network.spec.kind}, input [${network.inputShape.join(', ')}], actionSize ${network.actionSize}, numSeats ${network.numSeats}`;
}

function unlistedMessage(path: string): string {
  return `${path} is not listed in the checkpoint's ${MANIFEST_FILE}; it cannot be trusted`;
}

function corruptMessage(path: string): string {
  return `${path} is corrupt: its sha256 does not match the one in ${MANIFEST_FILE} (the file was changed or damaged)`;
}

/** Throws a CheckpointError naming the file when its bytes are not the ones the manifest lists. */
export function verifyCheckpointFile(dir: string, manifest: CheckpointManifest, name: string, bytes: Uint8Array): void {
  const path = join(dir, name);
  const entry = manifest.files[name];
  if (!entry) throw new CheckpointError(path, unlistedMessage(path));
  if (bytes.byteLength !== entry.bytes) {
    const what = bytes.byteLength < entry.bytes ? 'truncated' : 'oversized';
    throw new CheckpointError(path, `${path} is ${what}: ${bytes.byteLength} bytes, but ${MANIFEST_FILE} lists ${entry.bytes}`);
  }
  if (sha256(bytes) !== entry.sha256) throw new CheckpointError(path, corruptMessage(path));
}

async function readOptimizerState(target: string, manifest: CheckpointManifest): Promise<OptimizerState | undefined> {
  const metaPath = join(target, OPTIMIZER_FILE);
  const metaBytes = await readFolderFile(target, OPTIMIZER_FILE, byteLimit(manifest, OPTIMIZER_FILE));
  if (metaBytes === null) return undefined;
  verifyCheckpointFile(target, manifest, OPTIMIZER_FILE, metaBytes);
  if (manifest.files[OPTIMIZER_DATA_FILE] && !(await folderFileExists(target, OPTIMIZER_DATA_FILE, byteLimit(manifest, OPTIMIZER_DATA_FILE)))) return undefined;
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
  const bytes = await readFolderFile(target, OPTIMIZER_DATA_FILE, byteLimit(manifest, OPTIMIZER_DATA_FILE));
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


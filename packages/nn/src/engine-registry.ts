/**
 * The inference engines and how one is chosen. tfjs trains (wasm on a CPU, tfjs-node-gpu on a GPU box); the
 * search's network calls (self-play, `az play`, `az eval`) go to an engine of this registry:
 *
 *   name       priority  runs on
 *   onnx       100       onnxruntime on the CPU (onnx/onnx-engine.ts)
 *   onnx-cuda  -         onnxruntime with the CUDA 12 provider; only when named
 *   tfjs       0         the LayersModel on the current tfjs backend (tfjs/tfjs-engine.ts)
 *
 * `auto` tries the engines with a priority, highest first, and takes the first that is available and
 * opens, saying through `log` why it passed over the others; a named engine opens or throws.
 *
 * The command line has one `--backend` flag for the tfjs backend and the engine (`BACKEND_CHOICES`;
 * docs/backends.md): a tfjs backend name (cpu, wasm, node, gpu) runs everything on tfjs; `onnx`/`onnx-cuda`
 * pick the engine and leave training on tfjs's `auto`; `auto` is auto for both.
 */
import { join, resolve } from 'node:path';
import type { NetworkConfig } from '@az/core';
import { BACKEND_NAMES, currentBackend, initBackend, type BackendName } from './backend.js';
import { checkpointFilePath, loadCheckpoint, readCheckpointManifest, verifyCheckpointFiles, type CheckpointExpectation, type CheckpointManifest } from './checkpoint.js';
import { ModelFolderError } from './model-folder.js';
import { EngineUnavailableError, type InferenceEngine, type InferenceEngineChoice, type InferenceEngineEntry, type InferenceEngineOptions } from './engine.js';
import { ONNX_CUDA_ENGINE, ONNX_ENGINE } from './onnx/onnx-engine.js';
import type { tf } from './tf.js';
import { TFJS_ENGINE } from './tfjs/tfjs-engine.js';

/** Every engine, in the order `--help` lists them. */
export const INFERENCE_ENGINES: readonly InferenceEngineEntry[] = [ONNX_ENGINE, ONNX_CUDA_ENGINE, TFJS_ENGINE];
/** Every `InferenceEngineChoice`, `auto` first: what an engine option accepts. */
export const INFERENCE_ENGINE_CHOICES: readonly InferenceEngineChoice[] = ['auto', ...INFERENCE_ENGINES.map((e) => e.name)];

/** What `--backend` accepts: a tfjs backend (training and inference on tfjs), or an onnx inference engine. */
export type BackendChoice = BackendName | 'onnx' | 'onnx-cuda';
/** Every `BackendChoice`, in the order `--help` lists them. */
export const BACKEND_CHOICES: readonly BackendChoice[] = [...BACKEND_NAMES, 'onnx', 'onnx-cuda'];

/**
 * Splits a `--backend` value into the tfjs backend that trains and the engine that runs inference:
 * `auto` -> (auto, auto); `onnx`/`onnx-cuda` -> (auto, that); `cpu`/`wasm`/`node`/`gpu` -> (that, tfjs),
 * since naming a tfjs backend asks for tfjs.
 */
export function splitBackendChoice(choice: BackendChoice): {
  /** The tfjs backend to train on (`initBackend`'s argument). */
  readonly training: BackendName;
  /** The engine to run the search's network calls on. */
  readonly engine: InferenceEngineChoice;
} {
  if (choice === 'onnx' || choice === 'onnx-cuda') return { training: 'auto', engine: choice };
  if (choice === 'auto') return { training: 'auto', engine: 'auto' };
  if (!BACKEND_NAMES.includes(choice)) throw new RangeError(`unknown backend '${String(choice)}' (choose one of ${BACKEND_CHOICES.join(', ')})`);
  return { training: choice, engine: 'tfjs' };
}

/**
 * The engines `choice` may open, in the order to try them: the named one, or for `auto` those with a
 * priority, highest first. A RangeError names an unknown choice.
 */
export function engineCandidates(choice: InferenceEngineChoice, engines: readonly InferenceEngineEntry[] = INFERENCE_ENGINES): readonly InferenceEngineEntry[] {
  if (choice === 'auto') {
    const ranked = engines.filter((e) => e.priority !== null).sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
    if (ranked.length === 0) throw new RangeError(`no inference engine for 'auto': none of ${engines.map((e) => e.name).join(', ')} has a priority; name one`);
    return ranked;
  }
  const entry = engines.find((e) => e.name === choice);
  if (!entry) throw new RangeError(`unknown inference engine '${String(choice)}' (choose one of auto, ${engines.map((e) => e.name).join(', ')})`);
  return [entry];
}

/** How `openInferenceEngine` opens a network: which engine, and the options every engine takes. */
export interface OpenEngineOptions extends InferenceEngineOptions {
  /** The engine by name, or `auto` for the best that opens here (default 'auto'). */
  readonly engine?: InferenceEngineChoice;
}

/**
 * The network `model` on the chosen engine, at `options.weightsVersion`; `refresh` follows the model's later
 * weights. `auto` passes over an engine that is unavailable or fails to open, saying why through `log`.
 */
export async function openInferenceEngine(model: tf.LayersModel, config: NetworkConfig, options: OpenEngineOptions = {}): Promise<InferenceEngine> {
  return openOnModel(engineCandidates(options.engine ?? 'auto'), model, config, options);
}

/** The first of `candidates` that is available and opens on `model`; the last one's error is thrown. */
export async function openOnModel(candidates: readonly InferenceEngineEntry[], model: tf.LayersModel, config: NetworkConfig, options: InferenceEngineOptions): Promise<InferenceEngine> {
  for (let i = 0; ; i++) {
    const entry = candidates[i]!;
    const next = candidates[i + 1];
    if (next === undefined) return entry.open(model, config, options);
    const availability = await entry.available();
    if (!availability.available) {
      passOver(options, entry, next, availability.reason);
      continue;
    }
    try {
      return await entry.open(model, config, options);
    } catch (err) {
      passOver(options, entry, next, errorMessage(err));
    }
  }
}

function passOver(options: Pick<InferenceEngineOptions, 'log'>, entry: InferenceEngineEntry, next: InferenceEngineEntry, reason: string): void {
  (options.log ?? console.warn)(`inference on ${next.label()}, not ${entry.label()}: ${reason}`);
}

/**
 * How `openCheckpointInference` opens a checkpoint: the engine options (not `ownsModel` or `onnx`: the
 * checkpoint supplies the network) and what the checkpoint must be for.
 */
export interface CheckpointInferenceOptions extends Omit<OpenEngineOptions, 'ownsModel' | 'onnx'> {
  /** The game and encoder version the checkpoint must match (a CheckpointError otherwise). */
  readonly expect?: CheckpointExpectation;
}

/** A checkpoint opened for inference by `openCheckpointInference`. */
export interface CheckpointInference {
  /** The checkpoint's manifest, checked. */
  readonly manifest: CheckpointManifest;
  /** The network, at the checkpoint's weights version. */
  readonly inference: InferenceEngine;
  /** Where the network came from: an engine's own file (the checkpoint's model.onnx), or its tfjs weights (run on tfjs or exported). */
  readonly source: string;
}

/**
 * Opens a checkpoint for inference. An engine with a file of its own in the checkpoint (onnx: model.onnx)
 * opens it without building the tfjs model; without one (a checkpoint written before az exported ONNX), or
 * with one the engine refuses (corrupt, written by a future az: logged), the engines open on the
 * checkpoint's tfjs weights, loaded on the current tfjs backend (`auto` if none was chosen). Checkpoint
 * problems are CheckpointErrors.
 */
export async function openCheckpointInference(dir: string, options: CheckpointInferenceOptions = {}): Promise<CheckpointInference> {
  const candidates = engineCandidates(options.engine ?? 'auto');
  const target = resolve(dir);
  const manifest = await readCheckpointManifest(target, options.expect);
  // Every file the manifest lists is checked, not only the one opened: a damaged checkpoint is refused whole.
  await verifyCheckpointFiles(target, manifest);
  const log = options.log ?? console.warn;
  const engineOptions: InferenceEngineOptions = { ...options, weightsVersion: manifest.weightsVersion };
  for (let i = 0; i < candidates.length; i++) {
    const entry = candidates[i]!;
    const next = candidates[i + 1];
    if (next !== undefined) {
      const availability = await entry.available();
      if (!availability.available) {
        passOver(options, entry, next, availability.reason);
        continue;
      }
    }
    const file = entry.checkpointFile;
    const path = file
      ? await checkpointFilePath(target, manifest, file.name).catch((err: unknown) => {
          if (err instanceof ModelFolderError) throw err;
          log(`${join(target, file.name)} is unusable (${errorMessage(err)}); exporting the checkpoint's tfjs weights instead`);
          return null;
        })
      : null;
    if (file && path !== null) {
      try {
        return { manifest, inference: await file.open(path, manifest.network, engineOptions), source: file.name };
      } catch (err) {
        if (err instanceof EngineUnavailableError) {
          if (next === undefined) throw err;
          passOver(options, entry, next, err.message);
          continue;
        }
        log(`${path} is unusable (${errorMessage(err)}); exporting the checkpoint's tfjs weights instead`);
      }
    }
    // This engine and those after it, on the tfjs weights.
    if (currentBackend() === null) await initBackend('auto');
    const { model } = await loadCheckpoint(target, options.expect);
    return { manifest, inference: await openOnModel(candidates.slice(i), model, manifest.network, { ...engineOptions, ownsModel: true }), source: 'tfjs' };
  }
  throw new Error(`no inference engine opened ${target}`);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Choosing the inference engine. tfjs trains (wasm on a CPU, tfjs-node-gpu on a GPU box); the search's
 * network calls (self-play, `az play`, `az eval`) go to onnxruntime whenever it loads, because it is
 * several times faster than tfjs on a CPU, and to tfjs otherwise.
 *
 *   auto       onnxruntime on the CPU if it loads; else tfjs (the reason is logged)
 *   onnx       onnxruntime on the CPU; OnnxUnavailableError if it cannot load
 *   onnx-cuda  onnxruntime with the CUDA 12 provider; OnnxUnavailableError if it is missing
 *   tfjs       the LayersModel on the current tfjs backend
 *
 * The command line has one `--backend` flag for both engines (`BACKEND_CHOICES`): a tfjs backend name
 * (cpu, wasm, node, gpu) runs everything on tfjs; `onnx`/`onnx-cuda` pick the inference engine and leave
 * training on tfjs's `auto`; `auto` is auto for both.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BACKEND_NAMES, currentBackend, initBackend, type BackendName } from './backend.js';
import { ONNX_MODEL_FILE, loadCheckpoint, readCheckpointManifest, verifyCheckpointFiles, type CheckpointExpectation, type CheckpointManifest } from './checkpoint.js';
import { exportOnnx } from './onnx/onnx-export.js';
import { OnnxInferenceModel, OnnxUnavailableError, type OnnxThread } from './onnx/onnx-model.js';
import type { InferenceModel, NetworkConfig } from '@az/core';
import type { tf } from './tf.js';
import { TfjsInferenceModel } from './tfjs/tfjs-model.js';

export type InferenceBackendName = 'auto' | 'onnx' | 'onnx-cuda' | 'tfjs';
export const INFERENCE_BACKEND_NAMES: readonly InferenceBackendName[] = ['auto', 'onnx', 'onnx-cuda', 'tfjs'];

/** What `--backend` accepts: a tfjs backend (training and inference on tfjs), or an onnx inference engine. */
export type BackendChoice = BackendName | 'onnx' | 'onnx-cuda';
export const BACKEND_CHOICES: readonly BackendChoice[] = [...BACKEND_NAMES, 'onnx', 'onnx-cuda'];

/**
 * Splits a `--backend` value into the tfjs backend that trains and the engine that runs inference:
 * `auto` -> (auto, auto); `onnx`/`onnx-cuda` -> (auto, that); `cpu`/`wasm`/`node`/`gpu` -> (that, tfjs),
 * since naming a tfjs backend asks for tfjs.
 */
export function splitBackendChoice(choice: BackendChoice): { readonly training: BackendName; readonly inference: InferenceBackendName } {
  if (choice === 'onnx' || choice === 'onnx-cuda') return { training: 'auto', inference: choice };
  if (choice === 'auto') return { training: 'auto', inference: 'auto' };
  if (!BACKEND_NAMES.includes(choice)) throw new RangeError(`unknown backend '${String(choice)}' (choose one of ${BACKEND_CHOICES.join(', ')})`);
  return { training: choice, inference: 'tfjs' };
}

export interface InferenceModelOptions {
  /** Default 'auto'. */
  readonly backend?: InferenceBackendName;
  /** onnxruntime intra-op threads (default: the cores available to the process; 1 per process when N processes share N cores). */
  readonly threads?: number;
  /** Which thread runs onnxruntime (default 'main'; see `OnnxThread`). tfjs ignores it. */
  readonly onnxThread?: OnnxThread;
  /**
   * Whether the returned model may take the LayersModel (default false). With onnx the graph holds a copy of
   * the weights, so an owned LayersModel is disposed at once; with tfjs, `dispose()` disposes it.
   */
  readonly ownsModel?: boolean;
  /** An ONNX graph already exported from these weights (skips exporting again). */
  readonly onnx?: Uint8Array;
  /** Where `auto` reports falling back to tfjs (default console.warn). */
  readonly log?: (message: string) => void;
}

/**
 * An InferenceModel for `model`'s current weights on the chosen engine. With onnx the weights are exported
 * (a snapshot: later training does not reach the session; call again to refresh). `auto` falls back to a
 * TfjsInferenceModel when onnxruntime cannot be used, saying why through `log`.
 */
export async function createInferenceModelFor(model: tf.LayersModel, config: NetworkConfig, options: InferenceModelOptions = {}): Promise<InferenceModel> {
  const backend = options.backend ?? 'auto';
  checkInferenceBackend(backend);
  const ownsModel = options.ownsModel ?? false;
  if (backend !== 'tfjs') {
    try {
      const graph = options.onnx ?? exportOnnx(model, config);
      const onnx = await openOnnx(graph, config, backend, options);
      if (ownsModel) model.dispose();
      return onnx;
    } catch (err) {
      if (backend !== 'auto') throw err;
      (options.log ?? console.warn)(`inference on tfjs (${currentBackend()?.name ?? 'current backend'}), not onnxruntime: ${errorMessage(err)}`);
    }
  }
  return new TfjsInferenceModel(model, config, { ownsModel });
}

/** onnxruntime on the chosen provider ('auto' means the CPU). */
function openOnnx(
  graph: Uint8Array | string,
  config: NetworkConfig,
  backend: Exclude<InferenceBackendName, 'tfjs'>,
  options: Pick<InferenceModelOptions, 'threads' | 'onnxThread'>,
): Promise<OnnxInferenceModel> {
  return OnnxInferenceModel.create(graph, config, { threads: options.threads, thread: options.onnxThread, executionProvider: backend === 'onnx-cuda' ? 'cuda' : 'cpu' });
}

export interface CheckpointInferenceOptions extends Omit<InferenceModelOptions, 'ownsModel' | 'onnx'> {
  readonly expect?: CheckpointExpectation;
}

export interface CheckpointInference {
  readonly manifest: CheckpointManifest;
  readonly inference: InferenceModel;
  /** Where the network came from: the checkpoint's model.onnx, or its tfjs weights (exported or run on tfjs). */
  readonly source: 'model.onnx' | 'tfjs';
}

/**
 * Opens a checkpoint for inference. onnx (or auto, when onnxruntime loads) uses the checkpoint's model.onnx
 * directly, without building a tfjs model; a checkpoint without one (written before az exported ONNX) is
 * exported from its tfjs weights. tfjs, or auto without onnxruntime, loads the tfjs model on the current tfjs
 * backend (initialising `auto` if none was chosen yet). Checkpoint problems are CheckpointErrors.
 */
export async function openCheckpointInference(dir: string, options: CheckpointInferenceOptions = {}): Promise<CheckpointInference> {
  const backend = options.backend ?? 'auto';
  checkInferenceBackend(backend);
  const target = resolve(dir);
  const manifest = await readCheckpointManifest(target, options.expect);
  // Every file the manifest lists is checked, not only the one opened: a damaged checkpoint is refused whole.
  await verifyCheckpointFiles(target, manifest);
  const onnxPath = join(target, ONNX_MODEL_FILE);
  const log = options.log ?? console.warn;
  if (backend !== 'tfjs' && existsSync(onnxPath)) {
    try {
      return { manifest, inference: await openOnnx(onnxPath, manifest.network, backend, options), source: ONNX_MODEL_FILE };
    } catch (err) {
      if (!(err instanceof OnnxUnavailableError)) {
        // A graph onnxruntime refuses (corrupt file, written by a future az): export the tfjs weights instead.
        log(`${onnxPath} is unusable (${errorMessage(err)}); exporting the checkpoint's tfjs weights instead`);
      } else if (backend === 'auto') {
        log(`inference on tfjs, not onnxruntime: ${err.message}`);
        return { manifest, inference: await tfjsFromCheckpoint(target, options.expect, 'tfjs'), source: 'tfjs' };
      } else {
        throw err;
      }
    }
  }
  return { manifest, inference: await tfjsFromCheckpoint(target, options.expect, backend, options), source: 'tfjs' };
}

/** The checkpoint's tfjs model (on the current tfjs backend, `auto` if none was chosen), as `backend` inference. */
async function tfjsFromCheckpoint(target: string, expect: CheckpointExpectation | undefined, backend: InferenceBackendName, options: InferenceModelOptions = {}): Promise<InferenceModel> {
  if (currentBackend() === null) await initBackend('auto');
  const { model, manifest } = await loadCheckpoint(target, expect);
  return createInferenceModelFor(model, manifest.network, { ...options, backend, ownsModel: true });
}

function checkInferenceBackend(backend: InferenceBackendName): void {
  if (!INFERENCE_BACKEND_NAMES.includes(backend)) {
    throw new RangeError(`unknown inference backend '${String(backend)}' (choose one of ${INFERENCE_BACKEND_NAMES.join(', ')})`);
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

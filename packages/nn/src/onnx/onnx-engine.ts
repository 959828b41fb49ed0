/**
 * The onnx engines of the registry: onnxruntime on the CPU ('onnx', which `auto` tries first) and with the
 * CUDA 12 provider ('onnx-cuda', only when named). An engine holds a session on a snapshot of the weights
 * (exported from the tfjs model, or a checkpoint's model.onnx); `refresh` exports the model's new weights
 * into a new session and releases the old one. Which thread runs onnxruntime is chosen here, from the
 * workload the caller describes.
 */
import type { NetworkConfig } from '@az/core';
import { ONNX_MODEL_FILE } from '../checkpoint.js';
import type { EngineAvailability, InferenceEngine, InferenceEngineEntry, InferenceEngineOptions, InferenceWorkload } from '../engine.js';
import type { tf } from '../tf.js';
import { exportOnnx } from './onnx-export.js';
import { OnnxInferenceModel, checkCudaProvider, onnxRuntimeStatus, type OnnxBackendName, type OnnxThread } from './onnx-model.js';

/**
 * The policy output a network call (at the search's largest batch) must reach for onnxruntime to run in a
 * worker thread, where the buffers onnxruntime allocates for each output are collected on a heap without
 * the search's trees. A judgement, not a measured crossover (docs/performance.md): well below chess's full
 * policy, which gains from the worker, and well above every other bundled game's.
 */
export const ONNX_WORKER_MIN_OUTPUT_BYTES = 1 << 20;

/** The thread onnxruntime runs on for `workload`: a worker thread once full policy rows reach ONNX_WORKER_MIN_OUTPUT_BYTES a call. */
export function onnxThreadFor(config: NetworkConfig, workload: InferenceWorkload | undefined): OnnxThread {
  if (workload === undefined || !workload.fullPolicyRows) return 'main';
  return workload.positionsPerCall * config.actionSize * 4 >= ONNX_WORKER_MIN_OUTPUT_BYTES ? 'worker' : 'main';
}

/** An onnxruntime session behind the engine interface, re-exported from its tfjs model on `refresh`. */
class OnnxEngine implements InferenceEngine {
  private version: number;

  constructor(
    private session: OnnxInferenceModel,
    /** The model the weights come from; null when the engine may not refresh (opened from a file, or the model was handed over). */
    private readonly model: tf.LayersModel | null,
    private readonly reopen: (graph: Uint8Array) => Promise<OnnxInferenceModel>,
    weightsVersion: number,
  ) {
    this.version = weightsVersion;
  }

  get name(): OnnxBackendName {
    return this.session.backendName;
  }

  get backendName(): OnnxBackendName {
    return this.session.backendName;
  }

  get config(): NetworkConfig {
    return this.session.config;
  }

  get weightsVersion(): number {
    return this.version;
  }

  predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    return this.session.predict(input, count, policyOut, valueOut);
  }

  predictLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    return this.session.predictLegal(input, count, actions, width, policyOut, valueOut);
  }

  async refresh(weightsVersion: number): Promise<void> {
    if (weightsVersion === this.version) return;
    if (this.model === null) {
      throw new Error(`this ${this.name} engine runs fixed weights (opened from a file, or its model was handed over); open a new engine for weights version ${weightsVersion}`);
    }
    const next = await this.reopen(exportOnnx(this.model, this.session.config));
    const previous = this.session;
    this.session = next;
    this.version = weightsVersion;
    previous.dispose();
  }

  describe(): string {
    const { threads, thread, legalInGraph } = this.session;
    const where = thread === 'worker' ? 'a worker thread' : 'the main thread';
    const gather = legalInGraph ? '' : '; onnxruntime would not open this graph with the legal-logits gather, so every call returns the full policy (slower for a large action space)';
    return `${this.name} (onnxruntime, ${threads} thread${threads > 1 ? 's' : ''}, run in ${where})${gather}`;
  }

  dispose(): void {
    this.session.dispose();
  }
}

/** The registry entry of onnxruntime on `provider`. */
function onnxEntry(provider: 'cpu' | 'cuda'): InferenceEngineEntry {
  const name: OnnxBackendName = provider === 'cuda' ? 'onnx-cuda' : 'onnx';
  const openSession = (graph: Uint8Array | string, config: NetworkConfig, options: InferenceEngineOptions): Promise<OnnxInferenceModel> =>
    OnnxInferenceModel.create(graph, config, { threads: options.threads, thread: options.onnxThread ?? onnxThreadFor(config, options.workload), executionProvider: provider });
  return {
    name,
    // CUDA only when named: `auto` cannot tell a GPU that works from a provider library that is merely installed.
    priority: provider === 'cpu' ? 100 : null,
    label: () => (provider === 'cpu' ? 'onnxruntime' : 'onnxruntime (CUDA)'),
    async available(): Promise<EngineAvailability> {
      const status = await onnxRuntimeStatus();
      if (!status.available) return status;
      if (provider === 'cuda') {
        try {
          checkCudaProvider();
        } catch (err) {
          return { available: false, reason: err instanceof Error ? err.message : String(err) };
        }
      }
      return { available: true };
    },
    async open(model, config, options) {
      const session = await openSession(options.onnx ?? exportOnnx(model, config), config, options);
      const owned = options.ownsModel ?? false;
      // The graph holds a copy of the weights: a model handed over is not needed any more.
      if (owned) model.dispose();
      return new OnnxEngine(session, owned ? null : model, (graph) => openSession(graph, config, options), options.weightsVersion ?? 0);
    },
    checkpointFile: {
      name: ONNX_MODEL_FILE,
      async open(path, config, options) {
        const session = await openSession(path, config, options);
        return new OnnxEngine(session, null, (graph) => openSession(graph, config, options), options.weightsVersion ?? 0);
      },
    },
  };
}

export const ONNX_ENGINE: InferenceEngineEntry = onnxEntry('cpu');
export const ONNX_CUDA_ENGINE: InferenceEngineEntry = onnxEntry('cuda');

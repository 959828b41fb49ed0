/**
 * What an inference engine is, to the registry (engine-registry.ts) and to the code that runs a network:
 * the search calls `predict`, the trainer calls `refresh` after each training phase, logs call `describe`.
 * Each engine lives in its own folder (onnx/, tfjs/) and registers an `InferenceEngineEntry`.
 */
import type { InferenceModel, NetworkConfig } from '@az/core';
import type { OnnxThread } from './onnx/onnx-model.js';
import type { tf } from './tf.js';

/** The engines that run inference: onnxruntime on the CPU or on CUDA 12, or the tfjs model itself. */
export type InferenceEngineName = 'onnx' | 'onnx-cuda' | 'tfjs';
/** An engine by name, or `auto`: the registry's engines by priority, the first that opens. */
export type InferenceEngineChoice = 'auto' | InferenceEngineName;

/** A network on an inference engine. */
export interface InferenceEngine extends InferenceModel {
  /** The registry name of the engine running the network. */
  readonly name: InferenceEngineName;
  /** The weights version the engine runs now (as given when it was opened or last refreshed). */
  readonly weightsVersion: number;
  /**
   * Brings the engine to its model's current weights, tagged `weightsVersion`. Nothing happens when the
   * version is the one it runs, or when the engine runs the model itself (tfjs). Between searches only:
   * an engine holding a snapshot (onnx) swaps it for a new one.
   */
  refresh(weightsVersion: number): Promise<void>;
  /** One line for logs: the engine and how it runs, e.g. "onnx (onnxruntime, 1 thread, run in the main thread)". */
  describe(): string;
}

/** What the search asks of the network per call, for engines that tune themselves to it. */
export interface InferenceWorkload {
  /** The most positions one call evaluates (the search's largest batch). */
  readonly positionsPerCall: number;
  /** Whether calls return every action's logit (`predict`), rather than the listed actions' only (`predictLegal`). */
  readonly fullPolicyRows: boolean;
}

/** How an engine opens a network: threads, the workload it tunes to, the starting weights version, ownership of the model. */
export interface InferenceEngineOptions {
  /** onnxruntime intra-op threads (default: the cores available to the process; 1 per process when N processes share N cores). */
  readonly threads?: number;
  /** What the search will ask of the network; onnx picks its thread from it. */
  readonly workload?: InferenceWorkload;
  /** Which thread runs onnxruntime, over the engine's own choice (benchmarks compare the two). tfjs ignores it. */
  readonly onnxThread?: OnnxThread;
  /** The version of the weights the engine starts on (default 0); `refresh` moves it. */
  readonly weightsVersion?: number;
  /**
   * Whether the engine may take the LayersModel (default false). onnx copies the weights into its graph
   * and disposes an owned model at once (it can then not be refreshed); tfjs disposes it with itself.
   */
  readonly ownsModel?: boolean;
  /** An ONNX graph already exported from these weights (skips exporting again). */
  readonly onnx?: Uint8Array;
  /** Where `auto` reports passing over an engine (default console.warn). */
  readonly log?: (message: string) => void;
}

/** Whether an engine can run in this process, and why not. */
export type EngineAvailability =
  | {
      /** The engine can run here. */
      readonly available: true;
    }
  | {
      /** The engine cannot run here. */
      readonly available: false;
      /** Why, and what to install or choose instead. */
      readonly reason: string;
    };

/** One engine as the registry knows it. */
export interface InferenceEngineEntry {
  /** The name that chooses it (`--backend`, `OpenEngineOptions.engine`). */
  readonly name: InferenceEngineName;
  /** Where `auto` tries it: highest first; null: only when asked for by name (it needs hardware `auto` cannot assume). */
  readonly priority: number | null;
  /** What the engine is called in messages ("onnxruntime", "tfjs (wasm)"). */
  label(): string;
  /** Whether it can run here; loads its runtime to find out. */
  available(): Promise<EngineAvailability>;
  /** The engine on `model`'s current weights. */
  open(model: tf.LayersModel, config: NetworkConfig, options: InferenceEngineOptions): Promise<InferenceEngine>;
  /**
   * The checkpoint file the engine runs without building the tfjs model (onnx: model.onnx), and how it
   * opens it; absent when the engine needs the tfjs model. An engine opened from a file has fixed weights.
   */
  readonly checkpointFile?: {
    /** The file's name in a checkpoint directory. */
    readonly name: string;
    /** The engine on the file at `path` (checked against the manifest by the caller). */
    open(path: string, config: NetworkConfig, options: InferenceEngineOptions): Promise<InferenceEngine>;
  };
}

/** An engine that cannot run in this process: its runtime or a library it needs is missing. The message says what to do. */
export class EngineUnavailableError extends Error {
  constructor(
    /** The engine that cannot run. */
    readonly engine: InferenceEngineName,
    message: string,
  ) {
    super(message);
    this.name = 'EngineUnavailableError';
  }
}

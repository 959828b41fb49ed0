/**
 * The messages between `OnnxInferenceModel` (thread 'worker') and its worker thread (onnx-worker.ts).
 * Types only: the worker imports nothing else from the package but onnx-legal.ts (and the protobuf
 * writer it uses), so it never loads tfjs.
 *
 * The batch travels through SharedArrayBuffers: the calling thread writes the inputs, the worker copies
 * them into a tensor of its own (onnxruntime-node refuses tensors over shared memory), runs the session
 * and copies the outputs back. onnxruntime-node returns every output in a newly allocated ArrayBuffer;
 * those allocations (a dense policy a call, megabytes for chess; docs/performance.md) then land on the worker's
 * small heap instead of the search's, whose young-generation collections they would otherwise trigger.
 */

/** What the worker is started with (`workerData`). */
export interface OnnxWorkerInit {
  /** The graph: a model.onnx path, or its bytes (a copy; the worker owns it). */
  readonly graph: string | Uint8Array;
  /** onnxruntime session options (plain data). */
  readonly sessionOptions: Readonly<Record<string, unknown>>;
  readonly inputName: string;
  readonly policyName: string;
  readonly valueName: string;
  /** The input's shape without the batch dimension. */
  readonly inputShape: readonly number[];
  /** Values per position (the value output's width). */
  readonly numSeats: number;
  /** Test-only fault injection: 'run' fails a run, 'crash' throws outside any handler, 'exit' ends the thread. */
  readonly fault?: OnnxWorkerFault;
}

export type OnnxWorkerFault = 'run' | 'crash' | 'exit';

/**
 * Batch buffers the calling thread has grown since the last run; each one sent replaces the worker's
 * (their sizes follow from their byte lengths). The dense policy and the legal-action buffers grow only
 * when `predict`, respectively `predictLegal`, needs them.
 */
export interface OnnxWorkerBuffers {
  /** float32, positions x input size. */
  readonly input?: SharedArrayBuffer;
  /** float32, positions x numSeats. */
  readonly value?: SharedArrayBuffer;
  /** float32, positions x actionSize: `predict`'s logits. */
  readonly policy?: SharedArrayBuffer;
  /** int32, `count * width` action indices: `predictLegal`'s rows. */
  readonly actions?: SharedArrayBuffer;
  /** float32, `count * width`: `predictLegal`'s logits. */
  readonly legalPolicy?: SharedArrayBuffer;
}

/** Tensor metadata as the session reports it (the subset `graphMismatch` reads). */
export interface OnnxValueMetadata {
  readonly name: string;
  readonly isTensor: boolean;
  readonly shape?: readonly (number | string)[];
}

export type OnnxWorkerRequest =
  /** `width` set: `predictLegal` (the legal gather) with rows of `width` actions; absent: `predict`. */
  | { readonly type: 'run'; readonly count: number; readonly width?: number; readonly buffers?: OnnxWorkerBuffers }
  | { readonly type: 'close' };

export type OnnxWorkerReply =
  | {
      readonly type: 'ready';
      readonly inputNames: readonly string[];
      readonly outputNames: readonly string[];
      readonly inputMetadata: readonly OnnxValueMetadata[];
      readonly outputMetadata: readonly OnnxValueMetadata[];
      /** Whether the session has the legal gather (onnx-legal.ts). */
      readonly legal: boolean;
    }
  /** The session could not be created (the graph is unusable). */
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string };

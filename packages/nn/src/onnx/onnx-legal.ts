/**
 * `predictLegal` inside the ONNX graph: an int32 input `legal_actions [batch, width]` and a
 * GatherElements (axis 1) on `policy_logits [batch, actionSize]` giving `policy_legal [batch, width]`,
 * so onnxruntime hands back `count * width` logits instead of the whole policy (4,672 floats a position
 * for chess, most of a call's output; see docs/performance.md).
 *
 * How the graph gets them. The nodes are added when a session is opened, to whatever graph it is given
 * (bytes from `exportOnnx` or a model.onnx path, which is read here), instead of being written by
 * `exportOnnx`: every model.onnx already on disk (checkpoints of earlier runs) has to be augmented
 * anyway, and one way for both keeps them alike. The addition is a few dozen bytes appended to the
 * model's (`encodeOnnxGraphExtension`: a second ModelProto `graph` field, which protobuf merges into
 * the first), so nothing of the graph or its weights is decoded or re-encoded.
 *
 * One session serves both calls: onnxruntime insists every graph input be fed, so plain `predict`
 * feeds a zero-width `[count, 0]` index tensor and fetches `policy_logits` and `value` as before
 * (bitwise the same figures: the nodes computing them are unchanged). Two sessions (one plain, one
 * augmented) would spare that empty gather but open twice and hold the weights and onnxruntime's
 * buffers twice. Measured, the augmented session opens about as fast and runs `predict` no slower than a
 * plain one on the chess tower, and the empty gather shows only on a tiny network such as tic-tac-toe's
 * (docs/performance.md, "Figures behind decisions in the code").
 *
 * Indices are int32 (GatherElements takes int32 or int64 indices in the ONNX spec and in onnxruntime's
 * CPU and CUDA kernels): the caller's Int32Array is fed as it is, without a conversion to BigInt64.
 *
 * Should onnxruntime refuse the augmented graph (a foreign graph, e.g. one with its weights in external
 * files, which need its path), the plain graph is opened instead and `predictLegal` falls back to the
 * dense logits (`legal: false`); the plain graph's own error, if any, is the one reported.
 *
 * No tfjs here: the worker thread (onnx-worker.ts) opens its session through this module too.
 */
import { readFile } from 'node:fs/promises';
import type * as Ort from 'onnxruntime-node';
import { encodeOnnxGraphExtension, ONNX_FLOAT, ONNX_INT32 } from './onnx-proto.js';

/** The augmented graph's index input: int32 `[batch, width]`, action indices in [0, actionSize). */
export const LEGAL_INPUT_NAME = 'legal_actions';
/** The augmented graph's output: float32 `[batch, width]`, the logits of the listed actions. */
export const LEGAL_OUTPUT_NAME = 'policy_legal';

/** `graph` (ModelProto bytes) plus the legal gather on its output `policyName`. */
export function withLegalGather(graph: Uint8Array, policyName: string): Uint8Array {
  const extension = encodeOnnxGraphExtension({
    nodes: [{ opType: 'GatherElements', name: `${LEGAL_OUTPUT_NAME}_gather`, inputs: [policyName, LEGAL_INPUT_NAME], outputs: [LEGAL_OUTPUT_NAME], attributes: [{ name: 'axis', int: 1 }] }],
    inputs: [{ name: LEGAL_INPUT_NAME, dims: ['batch', 'legal'], elemType: ONNX_INT32 }],
    outputs: [{ name: LEGAL_OUTPUT_NAME, dims: ['batch', 'legal'], elemType: ONNX_FLOAT }],
  });
  const out = new Uint8Array(graph.length + extension.length);
  out.set(graph);
  out.set(extension, graph.length);
  return out;
}

export interface OpenedSession {
  readonly session: Ort.InferenceSession;
  /** Whether the session has `legal_actions` and `policy_legal` (then `legal_actions` must be fed on every run). */
  readonly legal: boolean;
}

/**
 * Opens a session on `graph` (bytes, or a model.onnx path) with the legal gather added, or on the graph
 * as it is when onnxruntime refuses the augmented one. Throws what onnxruntime throws for the plain graph.
 */
export async function openOnnxSession(ort: typeof Ort, graph: Uint8Array | string, options: Ort.InferenceSession.SessionOptions, policyName: string): Promise<OpenedSession> {
  let augmented: Uint8Array | null = null;
  try {
    augmented = withLegalGather(typeof graph === 'string' ? await readFile(graph) : graph, policyName);
  } catch {
    // An unreadable path: onnxruntime says why below.
  }
  if (augmented !== null) {
    try {
      return { session: await ort.InferenceSession.create(augmented, options), legal: true };
    } catch {
      // Opened as it is below; a graph onnxruntime cannot open at all fails there with its own message.
    }
  }
  const session = typeof graph === 'string' ? await ort.InferenceSession.create(graph, options) : await ort.InferenceSession.create(graph, options);
  return { session, legal: session.inputNames.includes(LEGAL_INPUT_NAME) && session.outputNames.includes(LEGAL_OUTPUT_NAME) };
}

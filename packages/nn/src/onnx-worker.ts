/**
 * The worker thread of an `OnnxInferenceModel` opened with `thread: 'worker'` (see onnx-worker-protocol.ts).
 * It owns one onnxruntime session and runs one batch at a time, as the calling thread asks.
 */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import type * as Ort from 'onnxruntime-node';
import type { OnnxValueMetadata, OnnxWorkerBuffers, OnnxWorkerInit, OnnxWorkerReply, OnnxWorkerRequest } from './onnx-worker-protocol.js';

type OrtModule = typeof Ort;

const port = parentPort;
if (port === null) throw new Error('onnx-worker.js runs as a worker thread of OnnxInferenceModel');
const init = workerData as OnnxWorkerInit;
const inputSize = init.inputShape.reduce((a, b) => a * b, 1);

function reply(message: OnnxWorkerReply): void {
  port!.postMessage(message);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function metadata(list: readonly Ort.InferenceSession.ValueMetadata[]): OnnxValueMetadata[] {
  return list.map((m) => (m.isTensor ? { name: m.name, isTensor: true, shape: [...m.shape] } : { name: m.name, isTensor: false }));
}

/**
 * Frees an ArrayBuffer now instead of at the next collection: transferred to a port whose other end is
 * closed, it is detached and its message dropped, which releases the memory. onnxruntime-node returns
 * each output in a new ArrayBuffer (9.5 MB a call for chess); left to the collector, several of them pile
 * up between collections, and glibc's per-thread arena for this thread hands their memory back to the
 * kernel and takes it again, page by page (measured: onnxruntime through this worker at 11,400-14,000
 * evaluations/s against 17,000-22,000 when freed at once, chess batch 500, load 5). Freed at once, the
 * next output reuses the same memory.
 */
const release = (() => {
  const { port1, port2 } = new MessageChannel();
  port2.close();
  port1.unref();
  return (buffers: ArrayBuffer[]): void => port1.postMessage(null, buffers);
})();

async function main(): Promise<void> {
  const mod = (await import('onnxruntime-node')) as OrtModule & { default?: OrtModule };
  const ort = mod.InferenceSession ? mod : mod.default!;
  let session: Ort.InferenceSession;
  try {
    const options = init.sessionOptions as Ort.InferenceSession.SessionOptions;
    session = typeof init.graph === 'string' ? await ort.InferenceSession.create(init.graph, options) : await ort.InferenceSession.create(init.graph, options);
  } catch (err) {
    reply({ type: 'failed', message: messageOf(err) });
    return;
  }
  reply({
    type: 'ready',
    inputNames: [...session.inputNames],
    outputNames: [...session.outputNames],
    inputMetadata: metadata(session.inputMetadata),
    outputMetadata: metadata(session.outputMetadata),
  });

  let shared: { input: Float32Array; policy: Float32Array; value: Float32Array } | null = null;
  // The input tensor's own (unshared) buffer, grown with the shared one.
  let input = new Float32Array(0);

  const run = async (count: number, buffers: OnnxWorkerBuffers | undefined): Promise<void> => {
    if (buffers) {
      shared = { input: new Float32Array(buffers.input), policy: new Float32Array(buffers.policy), value: new Float32Array(buffers.value) };
      input = new Float32Array(buffers.capacity * inputSize);
    }
    if (shared === null) throw new Error('run before the batch buffers were sent');
    if (init.fault === 'run') throw new Error('injected fault in run');
    if (init.fault === 'crash') setImmediate(() => { throw new Error('injected crash'); });
    if (init.fault === 'exit') process.exit(3);
    const n = count * inputSize;
    input.set(shared.input.subarray(0, n));
    const x = new ort.Tensor('float32', input.subarray(0, n), [count, ...init.inputShape]);
    const out = await session.run({ [init.inputName]: x });
    const policy = out[init.policyName]!.data as Float32Array;
    const value = out[init.valueName]!.data as Float32Array;
    shared.policy.set(policy);
    shared.value.set(value);
    // Only a buffer of its own: a view into a larger or shared one must not be detached.
    const own = [policy, value].filter((a) => a.byteOffset === 0 && a.buffer.byteLength === a.byteLength && a.buffer instanceof ArrayBuffer).map((a) => a.buffer as ArrayBuffer);
    release([...new Set(own)]);
  };

  port!.on('message', (request: OnnxWorkerRequest) => {
    if (request.type === 'close') {
      void session.release().finally(() => port!.close());
      return;
    }
    run(request.count, request.buffers).then(
      () => reply({ type: 'done' }),
      (err: unknown) => reply({ type: 'error', message: messageOf(err) }),
    );
  });
}

void main();

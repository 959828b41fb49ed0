/**
 * The worker thread of an `OnnxInferenceModel` opened with `thread: 'worker'` (see onnx-worker-protocol.ts).
 * It owns one onnxruntime session and runs one batch at a time, as the calling thread asks.
 */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import type * as Ort from 'onnxruntime-node';
import { LEGAL_INPUT_NAME, LEGAL_OUTPUT_NAME, openOnnxSession } from './onnx-legal.js';
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
 * each output in a new ArrayBuffer (a whole dense policy a call); left to the collector, several of them
 * pile up between collections, and glibc's per-thread arena for this thread hands their memory back to
 * the kernel and takes it again, page by page, which slowed this worker well below the main thread
 * (docs/performance.md, "Figures behind decisions in the code"). Freed at once, the next output reuses
 * the same memory.
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
  let legal: boolean;
  try {
    ({ session, legal } = await openOnnxSession(ort, init.graph, init.sessionOptions as Ort.InferenceSession.SessionOptions, init.policyName));
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
    legal,
  });

  // The shared batch buffers, and the worker's own (unshared) copies of those onnxruntime reads or,
  // for predictLegal, writes into; each grown with its shared one.
  const shared = {
    input: new Float32Array(new SharedArrayBuffer(0)),
    value: new Float32Array(new SharedArrayBuffer(0)),
    policy: new Float32Array(new SharedArrayBuffer(0)),
    actions: new Int32Array(new SharedArrayBuffer(0)),
    legalPolicy: new Float32Array(new SharedArrayBuffer(0)),
  };
  const own = { input: new Float32Array(0), value: new Float32Array(0), actions: new Int32Array(0), legalPolicy: new Float32Array(0) };
  const noActions = new Int32Array(0);

  const adopt = (buffers: OnnxWorkerBuffers): void => {
    if (buffers.input) {
      shared.input = new Float32Array(buffers.input);
      own.input = new Float32Array(shared.input.length);
    }
    if (buffers.value) {
      shared.value = new Float32Array(buffers.value);
      own.value = new Float32Array(shared.value.length);
    }
    if (buffers.policy) shared.policy = new Float32Array(buffers.policy);
    if (buffers.actions) {
      shared.actions = new Int32Array(buffers.actions);
      own.actions = new Int32Array(shared.actions.length);
    }
    if (buffers.legalPolicy) {
      shared.legalPolicy = new Float32Array(buffers.legalPolicy);
      own.legalPolicy = new Float32Array(shared.legalPolicy.length);
    }
  };

  const run = async (count: number, width: number | undefined, buffers: OnnxWorkerBuffers | undefined): Promise<void> => {
    if (buffers) adopt(buffers);
    const n = count * inputSize;
    if (shared.input.length < n) throw new Error('run before the batch buffers were sent');
    if (init.fault === 'run') throw new Error('injected fault in run');
    if (init.fault === 'crash') setImmediate(() => { throw new Error('injected crash'); });
    if (init.fault === 'exit') process.exit(3);
    own.input.set(shared.input.subarray(0, n));
    const x = new ort.Tensor('float32', own.input.subarray(0, n), [count, ...init.inputShape]);
    if (width !== undefined) {
      await runLegal(x, count, width);
      return;
    }
    // A session with the legal gather needs its index input fed: an empty one (see onnx-legal.ts).
    const feeds: Record<string, Ort.Tensor> = { [init.inputName]: x };
    if (legal) feeds[LEGAL_INPUT_NAME] = new ort.Tensor('int32', noActions, [count, 0]);
    const out = await session.run(feeds, [init.policyName, init.valueName]);
    const policy = out[init.policyName]!.data as Float32Array;
    const value = out[init.valueName]!.data as Float32Array;
    shared.policy.set(policy);
    shared.value.set(value);
    // Only a buffer of its own: a view into a larger or shared one must not be detached.
    const mine = [policy, value].filter((a) => a.byteOffset === 0 && a.buffer.byteLength === a.byteLength && a.buffer instanceof ArrayBuffer).map((a) => a.buffer as ArrayBuffer);
    release([...new Set(mine)]);
  };

  /** predictLegal: the outputs are written into the worker's own buffers (bound, as the calling thread's runner does), then copied out. */
  const runLegal = async (x: Ort.Tensor, count: number, width: number): Promise<void> => {
    if (!legal) throw new Error('the session has no legal gather');
    const entries = count * width;
    if (shared.actions.length < entries || shared.legalPolicy.length < entries) throw new Error('predictLegal run before its buffers were sent');
    own.actions.set(shared.actions.subarray(0, entries));
    const values = count * init.numSeats;
    const fetches = {
      [LEGAL_OUTPUT_NAME]: new ort.Tensor('float32', own.legalPolicy.subarray(0, entries), [count, width]),
      [init.valueName]: new ort.Tensor('float32', own.value.subarray(0, values), [count, init.numSeats]),
    };
    await session.run({ [init.inputName]: x, [LEGAL_INPUT_NAME]: new ort.Tensor('int32', own.actions.subarray(0, entries), [count, width]) }, fetches);
    shared.legalPolicy.set(own.legalPolicy.subarray(0, entries));
    shared.value.set(own.value.subarray(0, values));
  };

  port!.on('message', (request: OnnxWorkerRequest) => {
    if (request.type === 'close') {
      void session.release().finally(() => port!.close());
      return;
    }
    run(request.count, request.width, request.buffers).then(
      () => reply({ type: 'done' }),
      (err: unknown) => reply({ type: 'error', message: messageOf(err) }),
    );
  });
}

void main();

/**
 * `InferenceModel` over an onnxruntime-node session: the fast path for self-play, `az play` and `az eval`
 * (several times tfjs wasm on a chess-sized net; docs/backends.md has the figures). Inference only:
 * training stays in tfjs.
 *
 * onnxruntime-node is a native addon. It is imported lazily, on first use, so importing @az/nn stays
 * cheap and works where the native library cannot load (a platform without prebuilt binaries, a broken
 * install); the failure then surfaces as an `OnnxUnavailableError` when a session is asked for, and
 * `--backend auto` falls back to tfjs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as Ort from 'onnxruntime-node';
import { POLICY_OUTPUT_NAME, VALUE_OUTPUT_NAME } from '../model.js';
import { ONNX_INPUT_NAME } from './onnx-export.js';
import { LEGAL_INPUT_NAME, LEGAL_OUTPUT_NAME, openOnnxSession } from './onnx-legal.js';
import type { OnnxValueMetadata, OnnxWorkerBuffers, OnnxWorkerFault, OnnxWorkerInit, OnnxWorkerReply, OnnxWorkerRequest } from './onnx-worker-protocol.js';
import type { InferenceModel, NetworkConfig } from '@az/core';
import { EngineUnavailableError } from '../engine.js';

/** Where onnxruntime runs the graph: its bundled CPU provider, or CUDA 12 (Linux x64, NVIDIA GPU). */
export type OnnxExecutionProvider = 'cpu' | 'cuda';

/**
 * Which thread runs onnxruntime. 'main': the calling thread, in `predict`. 'worker': a worker thread of
 * its own, with the batch passed through shared memory (two copies of each input and output a call).
 * onnxruntime-node allocates a new ArrayBuffer for every output of every run (the whole dense policy:
 * megabytes a call for chess); in the worker those allocations are collected on the worker's nearly empty heap
 * instead of the caller's, where a search's trees make each young-generation collection expensive (see
 * docs/performance.md).
 */
export type OnnxThread = 'main' | 'worker';

/** The inference backend names an ONNX session reports ('onnx' on the CPU). */
export type OnnxBackendName = 'onnx' | 'onnx-cuda';

/** How `OnnxInferenceModel.create` sets up its onnxruntime session. */
export interface OnnxSessionOptions {
  /**
   * Threads onnxruntime uses inside one `predict` (intra-op parallelism). Default: the cores available to
   * this process (`os.availableParallelism()`). With N self-play processes on N cores, set 1: each process
   * then owns one core instead of all of them fighting over every core.
   */
  readonly threads?: number;
  /** Default 'cpu'. 'cuda' needs the CUDA provider binaries (see docs/backends.md). */
  readonly executionProvider?: OnnxExecutionProvider;
  /** CUDA only: which GPU (default 0; CUDA_VISIBLE_DEVICES applies first). */
  readonly deviceId?: number;
  /** Which thread runs onnxruntime (default 'main'). */
  readonly thread?: OnnxThread;
  /** The network's name in error messages (default: the graph's path, or "the network"). */
  readonly name?: string;
}

let workerFault: OnnxWorkerFault | undefined;
/** Makes workers started from now on fail as told (undefined: no fault). For tests; not part of the public API. */
export function setOnnxWorkerFaultForTests(fault: OnnxWorkerFault | undefined): void {
  workerFault = fault;
}

/** onnxruntime-node (or its CUDA provider) cannot be used here; the message says why and what to do. */
export class OnnxUnavailableError extends EngineUnavailableError {
  constructor(
    /** The engine that cannot run: 'onnx' when onnxruntime itself is missing, 'onnx-cuda' when only its CUDA provider is. */
    readonly backend: OnnxBackendName,
    message: string,
  ) {
    super(backend, message);
    this.name = 'OnnxUnavailableError';
  }
}

const ORT_PACKAGE = 'onnxruntime-node';
/**
 * How to add onnxruntime-node to a project without its install script's CUDA download (from outside
 * the npm registry; the CPU library ships in the npm package).
 */
export const ONNX_INSTALL_COMMAND = 'ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node';
/**
 * How a GPU user adds the CUDA 12 provider to an onnxruntime-node installed without it (as
 * `ONNX_INSTALL_COMMAND` does): its install script runs again and downloads the provider, which
 * the `onnx-cuda` engine needs.
 */
export const ONNX_CUDA_INSTALL_COMMAND = '(cd node_modules/onnxruntime-node && ONNXRUNTIME_NODE_INSTALL=cuda12 node script/install.js)';

type OrtModule = typeof Ort;
let ortPromise: Promise<OrtModule> | null = null;

type Importer = (specifier: string) => Promise<unknown>;
// A variable specifier: the package is only ever loaded here, at run time.
const defaultImporter: Importer = (specifier) => import(specifier);
let importer: Importer = defaultImporter;

/**
 * Replaces how onnxruntime-node is imported (null restores the default) and forgets the cached module.
 * For tests that simulate a missing or broken native library; not part of the package's public API.
 */
export function setOnnxRuntimeImporterForTests(replacement: Importer | null): void {
  importer = replacement ?? defaultImporter;
  ortPromise = null;
}

/**
 * Imports onnxruntime-node once per process (its native addon loads with it). Throws OnnxUnavailableError
 * when the package is missing or its native library fails to load.
 */
export function loadOnnxRuntime(): Promise<OrtModule> {
  ortPromise ??= importOrt();
  return ortPromise;
}

/**
 * onnxruntime's telemetry is on by default in its Linux builds: it keeps a device id and an event
 * database under ~/.cache/Microsoft/DeveloperTools/.onnxruntime/ and leaves an empty mat-debug-<pid>.log
 * in the temp folder of every process. It reads ORT_DISABLE_TELEMETRY when its first session is created;
 * az sets it to 1 unless the user has set it (ORT_DISABLE_TELEMETRY=0 turns the telemetry back on).
 * Forked workers inherit the setting.
 */
export function disableOnnxTelemetryUnlessAsked(env: NodeJS.ProcessEnv = process.env): void {
  if (env.ORT_DISABLE_TELEMETRY === undefined || env.ORT_DISABLE_TELEMETRY === '') env.ORT_DISABLE_TELEMETRY = '1';
}

async function importOrt(): Promise<OrtModule> {
  disableOnnxTelemetryUnlessAsked();
  try {
    const mod = (await importer(ORT_PACKAGE)) as OrtModule & { default?: OrtModule };
    // A CommonJS package: depending on the loader, its exports are the namespace or its default.
    const ort = mod.InferenceSession ? mod : mod.default;
    if (!ort?.InferenceSession || !ort.Tensor) throw new Error('the module does not export InferenceSession and Tensor');
    return ort;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown } | null)?.code;
    const missing =
      ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${ORT_PACKAGE}'`)) ||
      message.startsWith(`Could not resolve "${ORT_PACKAGE}"`); // vite-based loaders (vitest)
    throw new OnnxUnavailableError(
      'onnx',
      missing
        ? `the onnx backend needs ${ORT_PACKAGE}, which is not installed (an optional peer of @az/nn, for 3-16x faster search: ${ONNX_INSTALL_COMMAND}), or use --backend wasm`
        : `${ORT_PACKAGE} is installed but failed to load (${message}); its CPU library ships in the package for Linux, macOS and Windows on x64/arm64 — reinstall it, or use --backend wasm`,
    );
  }
}

/** Whether onnxruntime loads in this process (it is then cached), and why not when it does not. */
export async function onnxRuntimeStatus(): Promise<
  | {
      /** onnxruntime loaded. */
      readonly available: true;
      /** Its version, as onnxruntime-node reports it. */
      readonly version: string;
    }
  | {
      /** onnxruntime did not load. */
      readonly available: false;
      /** Why, and what to install (the `OnnxUnavailableError` message). */
      readonly reason: string;
    }
> {
  try {
    const ort = await loadOnnxRuntime();
    return { available: true, version: ort.env.versions.node ?? ort.env.versions.common };
  } catch (err) {
    return { available: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The CUDA provider library's path, if this platform can have one. */
function cudaProviderPath(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  try {
    const pkg = createRequire(import.meta.url).resolve(`${ORT_PACKAGE}/package.json`);
    return join(dirname(pkg), 'bin', 'napi-v6', 'linux', 'x64', 'libonnxruntime_providers_cuda.so');
  } catch {
    return null;
  }
}

/** Throws OnnxUnavailableError unless the CUDA provider library is installed (it does not check for a GPU). */
export function checkCudaProvider(): void {
  const path = cudaProviderPath();
  if (path === null) {
    throw new OnnxUnavailableError('onnx-cuda', `--backend onnx-cuda: onnxruntime-node ships its CUDA provider for Linux x64 only (this is ${process.platform}/${process.arch}); use --backend onnx`);
  }
  if (!existsSync(path)) {
    throw new OnnxUnavailableError(
      'onnx-cuda',
      `--backend onnx-cuda: the onnxruntime CUDA provider is not installed (${path} is missing: npm does not run onnxruntime-node's install script, which downloads it, unless told to). On a Linux x64 machine with an NVIDIA GPU, CUDA 12 and cuDNN 9, install it with \`${ONNX_CUDA_INSTALL_COMMAND}\` (it downloads from nuget.org), or use --backend onnx for the CPU`,
    );
  }
}

/** Validated thread count: the option, or the cores available to this process. */
export function onnxThreads(threads: number | undefined): number {
  const n = threads ?? availableParallelism();
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`onnx threads must be a positive integer (got ${n})`);
  return n;
}

/** What `graphMismatch` reads of a session: its inputs' and outputs' names and shapes. */
interface SessionSignature {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly OnnxValueMetadata[];
  readonly outputMetadata: readonly OnnxValueMetadata[];
}

/** Runs a batch on an open session, in this thread or another. */
interface OnnxRunner {
  readonly signature: SessionSignature;
  /** Whether the session has the legal gather (onnx-legal.ts), which `runLegal` needs. */
  readonly legal: boolean;
  run(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void>;
  /** `count * width` logits of the listed actions into `policyOut` (arguments checked by the caller). */
  runLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void>;
  release(): void;
}

/** An empty index tensor's data: what a session with the legal gather is fed by plain `predict`. */
const NO_ACTIONS = new Int32Array(0);

/** Raised inside the runners when onnxruntime cannot create the session; `create` words it. */
class SessionOpenError extends Error {}

/**
 * The search's `InferenceModel` on an onnxruntime session over an exported graph (`exportOnnx`, or a
 * checkpoint's model.onnx): the fast path for self-play, play and evaluation. It runs the weights the
 * graph was exported with; training stays in tfjs. Opened with `create`.
 */
export class OnnxInferenceModel implements InferenceModel {
  readonly backendName: OnnxBackendName;
  /**
   * Whether `predictLegal` gathers the listed logits inside the graph (every graph `exportOnnx` writes,
   * and every checkpoint's model.onnx); false only for a foreign graph onnxruntime would not open with
   * the gather added, where `predictLegal` computes the dense logits and picks from them.
   */
  readonly legalInGraph: boolean;
  private readonly inputSize: number;
  private disposed = false;

  private constructor(
    private readonly runner: OnnxRunner,
    /** The network's shape: input, action count and seats. */
    readonly config: NetworkConfig,
    /** Intra-op threads of the session. */
    readonly threads: number,
    executionProvider: OnnxExecutionProvider,
    /** The thread onnxruntime runs on. */
    readonly thread: OnnxThread,
  ) {
    this.backendName = executionProvider === 'cuda' ? 'onnx-cuda' : 'onnx';
    this.legalInGraph = runner.legal;
    this.inputSize = config.inputShape.reduce((a, b) => a * b, 1);
  }

  /**
   * Opens a session on an ONNX graph (bytes from `exportOnnx`, or a model.onnx path) for `config`'s network.
   * Throws OnnxUnavailableError when onnxruntime (or the CUDA provider) cannot be used, and an Error naming
   * the mismatch when the graph's inputs or outputs do not fit `config`.
   */
  static async create(graph: Uint8Array | string, config: NetworkConfig, options: OnnxSessionOptions = {}): Promise<OnnxInferenceModel> {
    const provider = options.executionProvider ?? 'cpu';
    const threads = onnxThreads(options.threads);
    const thread = options.thread ?? 'main';
    if (thread !== 'main' && thread !== 'worker') throw new RangeError(`onnx thread must be 'main' or 'worker' (got '${String(thread)}')`);
    const name = options.name ?? (typeof graph === 'string' ? graph : 'the network');
    // Loaded here in both cases, so that a missing or broken onnxruntime is an OnnxUnavailableError.
    const ort = await loadOnnxRuntime().catch((err: unknown) => {
      if (err instanceof OnnxUnavailableError && provider === 'cuda') throw new OnnxUnavailableError('onnx-cuda', err.message);
      throw err;
    });
    if (provider === 'cuda') checkCudaProvider();
    const sessionOptions: Ort.InferenceSession.SessionOptions = {
      executionProviders: provider === 'cuda' ? [{ name: 'cuda', deviceId: options.deviceId ?? 0 }, 'cpu'] : ['cpu'],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Idle pool threads would otherwise spin for a while after each run, stealing the core the search
      // (which runs between network calls) needs.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    };
    let runner: OnnxRunner;
    try {
      runner = thread === 'worker' ? await OnnxWorkerRunner.start(graph, config, sessionOptions, name) : await InThreadRunner.open(ort, graph, config, sessionOptions);
    } catch (err) {
      if (!(err instanceof SessionOpenError)) throw err;
      if (provider === 'cuda') {
        throw new OnnxUnavailableError(
          'onnx-cuda',
          `--backend onnx-cuda: onnxruntime could not start its CUDA provider (${err.message}); it needs an NVIDIA GPU with CUDA 12 and cuDNN 9 libraries on the library path, or use --backend onnx`,
        );
      }
      throw new Error(`onnxruntime cannot open the network${typeof graph === 'string' ? ` ${graph}` : ''}: ${err.message}`);
    }
    const problem = graphMismatch(runner.signature, config);
    if (problem) {
      runner.release();
      throw new Error(`the ONNX graph does not fit the network config: ${problem}`);
    }
    return new OnnxInferenceModel(runner, config, threads, provider, thread);
  }

  /**
   * Evaluates `count` positions stored back to back in `input` (encoder layout), writing `count * actionSize`
   * logits to `policyOut` and `count * numSeats` values to `valueOut`. Nothing is kept between calls.
   * Calls may overlap; they run one after the other.
   */
  async predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    if (this.disposed) throw new Error('OnnxInferenceModel.predict called after dispose()');
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`predict: count must be a non-negative integer (got ${count})`);
    if (count === 0) return;
    const { actionSize, numSeats } = this.config;
    requireLength('predict', 'input', input, count * this.inputSize, count);
    requireLength('predict', 'policyOut', policyOut, count * actionSize, count);
    requireLength('predict', 'valueOut', valueOut, count * numSeats, count);
    await this.runner.run(input, count, policyOut, valueOut);
  }

  /**
   * `predict` returning only the logits of listed actions: `actions` holds `count * width` action indices
   * in [0, actionSize), row i for position i (a shorter row padded with any of its own indices); writes
   * `count * width` logits to `policyOut` (entry `i * width + k`: the logit of `actions[i * width + k]` at
   * position i, bitwise `predict`'s) and the values as `predict` does. The gather runs inside the graph,
   * so onnxruntime never hands back the `count * actionSize` dense policy (see onnx-legal.ts).
   * Every index is checked (a RangeError naming the first bad one, before anything runs).
   */
  async predictLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    if (this.disposed) throw new Error('OnnxInferenceModel.predictLegal called after dispose()');
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`predictLegal: count must be a non-negative integer (got ${count})`);
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`predictLegal: width must be a positive integer (got ${width})`);
    if (!(actions instanceof Int32Array)) throw new TypeError('predictLegal: actions must be an Int32Array');
    if (count === 0) return;
    const { actionSize, numSeats } = this.config;
    const entries = count * width;
    requireLength('predictLegal', 'input', input, count * this.inputSize, count);
    requireLength('predictLegal', 'actions', actions, entries, count, width);
    requireLength('predictLegal', 'policyOut', policyOut, entries, count, width);
    requireLength('predictLegal', 'valueOut', valueOut, count * numSeats, count);
    // Checked here, not left to onnxruntime: its GatherElements refuses an index >= actionSize (a run
    // error, and a line on stderr) but takes one in [-actionSize, 0) as counting from the end. The check
    // is negligible next to a run (docs/performance.md).
    for (let i = 0; i < entries; i++) {
      const a = actions[i]!;
      if (a < 0 || a >= actionSize) {
        throw new RangeError(`predictLegal: actions[${i}] (position ${Math.floor(i / width)}) is ${a}, not an action index in [0, ${actionSize})`);
      }
    }
    if (this.runner.legal) {
      await this.runner.runLegal(input, count, actions, width, policyOut, valueOut);
      return;
    }
    // A graph without the gather: the dense logits, picked from.
    const dense = new Float32Array(count * actionSize);
    await this.runner.run(input, count, dense, valueOut);
    for (let i = 0; i < entries; i++) policyOut[i] = dense[Math.floor(i / width) * actionSize + actions[i]!]!;
  }

  /** Releases the session; with thread 'worker', the worker thread ends once a run under way has finished. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.runner.release();
  }
}

/** onnxruntime in the calling thread. */
class InThreadRunner implements OnnxRunner {
  private readonly inputSize: number;

  private constructor(
    private readonly ort: OrtModule,
    private readonly session: Ort.InferenceSession,
    private readonly config: NetworkConfig,
    readonly legal: boolean,
  ) {
    this.inputSize = config.inputShape.reduce((a, b) => a * b, 1);
  }

  static async open(ort: OrtModule, graph: Uint8Array | string, config: NetworkConfig, options: Ort.InferenceSession.SessionOptions): Promise<InThreadRunner> {
    try {
      const { session, legal } = await openOnnxSession(ort, graph, options, POLICY_OUTPUT_NAME);
      return new InThreadRunner(ort, session, config, legal);
    } catch (err) {
      throw new SessionOpenError(errorMessage(err));
    }
  }

  get signature(): SessionSignature {
    return this.session;
  }

  async run(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    const { actionSize, numSeats, inputShape } = this.config;
    // The tensors view the caller's buffers (no copy); onnxruntime reads the input and writes the outputs
    // in place during run, which the caller awaits. Pre-allocated outputs spare a copy of the dense policy
    // (actionSize floats a position) out of the tensors onnxruntime would otherwise return.
    const ort = this.ort;
    const x = new ort.Tensor('float32', input.subarray(0, count * this.inputSize), [count, ...inputShape]);
    const fetches = {
      [POLICY_OUTPUT_NAME]: new ort.Tensor('float32', policyOut.subarray(0, count * actionSize), [count, actionSize]),
      [VALUE_OUTPUT_NAME]: new ort.Tensor('float32', valueOut.subarray(0, count * numSeats), [count, numSeats]),
    };
    // A session with the legal gather must be fed its index input: an empty one (see onnx-legal.ts).
    const feeds: Record<string, Ort.Tensor> = { [ONNX_INPUT_NAME]: x };
    if (this.legal) feeds[LEGAL_INPUT_NAME] = new ort.Tensor('int32', NO_ACTIONS, [count, 0]);
    await this.session.run(feeds, fetches);
  }

  async runLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    const { numSeats, inputShape } = this.config;
    const ort = this.ort;
    const entries = count * width;
    // As in `run`: views of the caller's buffers, the outputs written in place.
    const feeds = {
      [ONNX_INPUT_NAME]: new ort.Tensor('float32', input.subarray(0, count * this.inputSize), [count, ...inputShape]),
      [LEGAL_INPUT_NAME]: new ort.Tensor('int32', actions.subarray(0, entries), [count, width]),
    };
    const fetches = {
      [LEGAL_OUTPUT_NAME]: new ort.Tensor('float32', policyOut.subarray(0, entries), [count, width]),
      [VALUE_OUTPUT_NAME]: new ort.Tensor('float32', valueOut.subarray(0, count * numSeats), [count, numSeats]),
    };
    await this.session.run(feeds, fetches);
  }

  release(): void {
    void this.session.release();
  }
}

/** The worker thread's script: next to this module once built; the built copy when running from source (tests). */
function onnxWorkerScript(): string {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) return fileURLToPath(new URL('./onnx-worker.js', import.meta.url));
  const built = fileURLToPath(new URL('../../dist/onnx/onnx-worker.js', import.meta.url));
  if (!existsSync(built)) throw new Error(`the onnxruntime worker ${built} is missing: build @az/nn first (npx turbo run build --filter=@az/nn)`);
  return built;
}

/** The buffers a run has grown, for the worker to adopt. */
type GrownBuffers = { -readonly [K in keyof OnnxWorkerBuffers]: OnnxWorkerBuffers[K] };

interface Pending {
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * onnxruntime in a worker thread of its own. One run at a time: each copies the inputs into shared
 * memory, posts the count, and copies the outputs out when the worker answers. A worker that fails or
 * ends rejects the run under way and every later one with an Error naming the network; an idle worker
 * does not keep the process alive.
 */
class OnnxWorkerRunner implements OnnxRunner {
  private readonly inputSize: number;
  /** Positions `input` and `value` hold. */
  private capacity = 0;
  /** Positions `policy` holds (grown by `predict` only). */
  private policyCapacity = 0;
  /** Entries `actions` and `legalPolicy` hold (grown by `predictLegal` only). */
  private legalCapacity = 0;
  private input = new Float32Array(new SharedArrayBuffer(0));
  private policy = new Float32Array(new SharedArrayBuffer(0));
  private value = new Float32Array(new SharedArrayBuffer(0));
  private actions = new Int32Array(new SharedArrayBuffer(0));
  private legalPolicy = new Float32Array(new SharedArrayBuffer(0));
  private pending: Pending | null = null;
  /** Why the worker can no longer run anything (set once). */
  private failure: Error | null = null;
  private closing = false;
  /** The runs, one after the other. */
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private readonly worker: Worker,
    readonly signature: SessionSignature,
    readonly legal: boolean,
    private readonly config: NetworkConfig,
    private readonly name: string,
  ) {
    this.inputSize = config.inputShape.reduce((a, b) => a * b, 1);
    worker.on('message', (reply: OnnxWorkerReply) => {
      const pending = this.pending;
      if (pending === null) return;
      this.pending = null;
      if (reply.type === 'done') pending.resolve();
      else if (reply.type === 'error') pending.reject(new Error(`onnxruntime failed on ${this.name} (worker thread): ${reply.message}`));
    });
    worker.on('error', (err) => this.fail(new Error(`the onnxruntime worker thread for ${this.name} failed: ${err.message}`)));
    worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the onnxruntime worker thread for ${this.name} ended unexpectedly (exit code ${code})`));
      else this.fail(new Error(`the onnxruntime worker thread for ${this.name} was closed`));
    });
    worker.unref();
  }

  static start(graph: Uint8Array | string, config: NetworkConfig, sessionOptions: Ort.InferenceSession.SessionOptions, name: string): Promise<OnnxWorkerRunner> {
    const init: OnnxWorkerInit = {
      graph: typeof graph === 'string' ? graph : graph.slice(),
      sessionOptions: sessionOptions as Readonly<Record<string, unknown>>,
      inputName: ONNX_INPUT_NAME,
      policyName: POLICY_OUTPUT_NAME,
      valueName: VALUE_OUTPUT_NAME,
      inputShape: config.inputShape,
      numSeats: config.numSeats,
      ...(workerFault ? { fault: workerFault } : {}),
    };
    const worker = new Worker(onnxWorkerScript(), { workerData: init, transferList: typeof init.graph === 'string' ? [] : [init.graph.buffer as ArrayBuffer] });
    return new Promise<OnnxWorkerRunner>((resolve, reject) => {
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (reply: OnnxWorkerReply): void => {
        cleanup();
        if (reply.type === 'ready') {
          resolve(new OnnxWorkerRunner(worker, reply, reply.legal, config, name));
        } else {
          void worker.terminate();
          reject(reply.type === 'failed' ? new SessionOpenError(reply.message) : new Error(`the onnxruntime worker thread for ${name} answered '${reply.type}' before it was ready`));
        }
      };
      const onError = (err: Error): void => {
        cleanup();
        void worker.terminate();
        reject(new Error(`the onnxruntime worker thread for ${name} failed to start: ${err.message}`));
      };
      const onExit = (code: number): void => {
        cleanup();
        reject(new Error(`the onnxruntime worker thread for ${name} ended before it was ready (exit code ${code})`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  }

  run(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    return this.enqueue(() => this.runNow(input, count, policyOut, valueOut));
  }

  runLegal(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    return this.enqueue(() => this.runLegalNow(input, count, actions, width, policyOut, valueOut));
  }

  private enqueue(run: () => Promise<void>): Promise<void> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The shared buffers for `count` positions (grown to the batch asked for: the search's batches vary a little below their maximum). */
  private growPositions(count: number, grown: GrownBuffers): void {
    if (count <= this.capacity) return;
    const capacity = Math.max(count, Math.ceil(this.capacity * 1.25));
    grown.input = new SharedArrayBuffer(capacity * this.inputSize * 4);
    grown.value = new SharedArrayBuffer(capacity * this.config.numSeats * 4);
    this.capacity = capacity;
    this.input = new Float32Array(grown.input);
    this.value = new Float32Array(grown.value);
  }

  private async runNow(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    if (this.failure) throw this.failure;
    const { actionSize, numSeats } = this.config;
    const grown: GrownBuffers = {};
    this.growPositions(count, grown);
    if (count > this.policyCapacity) {
      const capacity = Math.max(count, Math.ceil(this.policyCapacity * 1.25));
      grown.policy = new SharedArrayBuffer(capacity * actionSize * 4);
      this.policyCapacity = capacity;
      this.policy = new Float32Array(grown.policy);
    }
    this.input.set(input.subarray(0, count * this.inputSize));
    await this.post({ type: 'run', count, ...(Object.keys(grown).length > 0 ? { buffers: grown } : {}) });
    policyOut.set(this.policy.subarray(0, count * actionSize));
    valueOut.set(this.value.subarray(0, count * numSeats));
  }

  private async runLegalNow(input: Float32Array, count: number, actions: Int32Array, width: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    if (this.failure) throw this.failure;
    const { numSeats } = this.config;
    const entries = count * width;
    const grown: GrownBuffers = {};
    this.growPositions(count, grown);
    if (entries > this.legalCapacity) {
      const capacity = Math.max(entries, Math.ceil(this.legalCapacity * 1.25));
      grown.actions = new SharedArrayBuffer(capacity * 4);
      grown.legalPolicy = new SharedArrayBuffer(capacity * 4);
      this.legalCapacity = capacity;
      this.actions = new Int32Array(grown.actions);
      this.legalPolicy = new Float32Array(grown.legalPolicy);
    }
    this.input.set(input.subarray(0, count * this.inputSize));
    this.actions.set(actions.subarray(0, entries));
    await this.post({ type: 'run', count, width, ...(Object.keys(grown).length > 0 ? { buffers: grown } : {}) });
    policyOut.set(this.legalPolicy.subarray(0, entries));
    valueOut.set(this.value.subarray(0, count * numSeats));
  }

  /** Sends a run to the worker and waits for its answer. */
  private async post(request: OnnxWorkerRequest): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.pending = { resolve, reject };
    });
    this.worker.ref(); // a run under way keeps the process alive
    this.worker.postMessage(request);
    try {
      await done;
    } finally {
      this.worker.unref();
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const pending = this.pending;
    this.pending = null;
    pending?.reject(this.failure);
  }

  release(): void {
    if (this.closing) return;
    this.closing = true;
    // After the runs already asked for; the worker releases the session and ends.
    void this.queue.then(() => {
      if (this.failure === null) this.worker.postMessage({ type: 'close' } satisfies OnnxWorkerRequest);
    });
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Why a session's inputs/outputs do not fit `config`, or null when they do. Besides the network's own
 * input and outputs, the session may have the legal gather's (onnx-legal.ts) and nothing else.
 */
function graphMismatch(session: SessionSignature, config: NetworkConfig): string | null {
  const legal = session.inputNames.length === 2 && session.inputNames.includes(LEGAL_INPUT_NAME) && session.outputNames.includes(LEGAL_OUTPUT_NAME);
  // Named as the graph was given: the legal gather's input is ours, added when the session opened.
  const given = session.inputNames.filter((n) => n !== LEGAL_INPUT_NAME || !session.outputNames.includes(LEGAL_OUTPUT_NAME));
  if (!session.inputNames.includes(ONNX_INPUT_NAME) || session.inputNames.length !== (legal ? 2 : 1)) return `expected one input '${ONNX_INPUT_NAME}', got [${given.join(', ')}]`;
  for (const name of [POLICY_OUTPUT_NAME, VALUE_OUTPUT_NAME]) if (!session.outputNames.includes(name)) return `no output '${name}' (outputs: ${session.outputNames.join(', ')})`;
  const dims = (meta: OnnxValueMetadata | undefined): readonly (number | string)[] | null => (meta && meta.isTensor && meta.shape ? meta.shape : null);
  const inputDims = dims(session.inputMetadata[session.inputNames.indexOf(ONNX_INPUT_NAME)]);
  const want = ['batch', ...config.inputShape];
  if (inputDims && (inputDims.length !== want.length || inputDims.some((d, i) => i > 0 && d !== want[i]))) {
    return `input shape [${inputDims.join(', ')}] is not [batch, ${config.inputShape.join(', ')}]`;
  }
  const outputDims = (name: string): readonly (number | string)[] | null => dims(session.outputMetadata[session.outputNames.indexOf(name)]);
  const policy = outputDims(POLICY_OUTPUT_NAME);
  if (policy && policy[1] !== config.actionSize) return `policy output [${policy.join(', ')}] does not have actionSize ${config.actionSize}`;
  const value = outputDims(VALUE_OUTPUT_NAME);
  if (value && value[1] !== config.numSeats) return `value output [${value.join(', ')}] does not have numSeats ${config.numSeats}`;
  return null;
}

function requireLength(method: string, name: string, buffer: Float32Array | Int32Array, needed: number, count: number, width?: number): void {
  if (buffer.length >= needed) return;
  const what = buffer instanceof Int32Array ? 'indices' : 'floats';
  throw new RangeError(`${method}: ${name} holds ${buffer.length} ${what} but ${count} positions${width === undefined ? '' : ` of width ${width}`} need ${needed}`);
}

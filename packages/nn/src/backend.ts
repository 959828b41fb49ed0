/**
 * Choosing and initialising the tfjs backend.
 *
 * `wasm` (installed with core) and `cpu` (pure JS, part of tfjs) always exist. `node` and `gpu` come from
 * the optional peer packages @tensorflow/tfjs-node and @tensorflow/tfjs-node-gpu, which are loaded with a
 * dynamic import only when asked for: their install downloads libtensorflow from outside the npm registry,
 * so core must work without them.
 */
import { tf } from './tf.js';
import { registerWasmTrainingKernels } from './wasm-kernels.js';

/**
 * A tfjs backend by name, as `--backend` takes it: `cpu` (pure JS), `wasm`, `node` (tfjs-node, CPU) or
 * `gpu` (tfjs-node-gpu, CUDA), or `auto` for the fastest that loads here.
 */
export type BackendName = 'auto' | 'cpu' | 'wasm' | 'node' | 'gpu';
/** A backend that actually runs (what `auto` resolves to). */
export type ResolvedBackendName = Exclude<BackendName, 'auto'>;

/** Every `BackendName`, `auto` first: for validating and listing choices (a CLI's help, an error message). */
export const BACKEND_NAMES: readonly BackendName[] = ['auto', 'cpu', 'wasm', 'node', 'gpu'];

/** The tfjs backend `initBackend` made active, and what `auto` passed over to reach it. */
export interface BackendInfo {
  /** The backend in use (never 'auto'). */
  readonly name: ResolvedBackendName;
  /** tfjs's own name for it: 'cpu', 'wasm' or 'tensorflow' (node and gpu). */
  readonly tfBackend: string;
  /** Backends `auto` tried first and passed over, with why (empty for an explicit choice). */
  readonly skipped: readonly {
    /** The backend passed over. */
    readonly name: ResolvedBackendName;
    /** Why it could not run (its `BackendUnavailableError` message). */
    readonly reason: string;
  }[];
}

/** A backend that cannot run here: its package is missing, or present but its native library fails to load. */
export class BackendUnavailableError extends Error {
  constructor(
    /** The backend that cannot run. */
    readonly backend: ResolvedBackendName,
    message: string,
    /** The npm package the backend needs, when it comes from one. */
    readonly packageName?: string
  ) {
    super(message);
    this.name = 'BackendUnavailableError';
  }
}

interface OptionalBinding {
  readonly packageName: string;
  readonly requirements: string;
}

// Both packages register a tfjs backend called 'tensorflow'; they differ in the libtensorflow build they carry.
const TENSORFLOW_BINDINGS: Readonly<Record<'node' | 'gpu', OptionalBinding>> = {
  node: {
    packageName: '@tensorflow/tfjs-node',
    requirements:
      'its install script downloads libtensorflow (CPU build) from storage.googleapis.com, or from a mirror named by TFJS_NODE_CDN_STORAGE',
  },
  gpu: {
    packageName: '@tensorflow/tfjs-node-gpu',
    requirements:
      'it needs Linux x64 with an NVIDIA GPU, CUDA 11.2 and cuDNN 8.1, and its install script downloads the GPU build of libtensorflow from storage.googleapis.com (or a mirror named by TFJS_NODE_CDN_STORAGE)',
  },
};

type OptionalImporter = (specifier: string) => Promise<unknown>;
// A variable specifier keeps TypeScript and bundlers from requiring the optional packages at build time.
const defaultImporter: OptionalImporter = (specifier) => import(specifier);
let importOptional: OptionalImporter = defaultImporter;

/**
 * Replaces how the optional tfjs-node packages are imported (null restores the default). For tests that
 * simulate a broken native binding; not part of the package's public API.
 */
export function setOptionalPackageImporterForTests(importer: OptionalImporter | null): void {
  importOptional = importer ?? defaultImporter;
}

/** Which optional package supplied the 'tensorflow' backend in this process (only one can). */
let tensorflowBindingLoadedFrom: 'node' | 'gpu' | null = null;
let current: { requested: BackendName; info: BackendInfo } | null = null;
/** Serialises initBackend calls so two concurrent callers never interleave setBackend. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Makes `name` the active tfjs backend and waits until it is ready. `auto` picks the fastest that loads:
 * gpu > node > wasm > cpu, silently passing over optional packages that are absent or broken (listed in
 * `skipped`). An explicit 'node' or 'gpu' whose package is missing or fails to load throws
 * `BackendUnavailableError` saying what to install. Calling again with the same name is a no-op.
 */
export function initBackend(name: BackendName = 'auto'): Promise<BackendInfo> {
  const run = queue.then(() => initBackendNow(name));
  queue = run.catch(() => undefined);
  return run;
}

/** The backend chosen by the last successful `initBackend`, or null before one. */
export function currentBackend(): BackendInfo | null {
  return current && tf.getBackend() === current.info.tfBackend ? current.info : null;
}

async function initBackendNow(name: BackendName): Promise<BackendInfo> {
  if (!BACKEND_NAMES.includes(name)) {
    throw new BackendUnavailableError('cpu', `unknown backend '${String(name)}' (choose one of ${BACKEND_NAMES.join(', ')})`);
  }
  if (current && current.requested === name && tf.getBackend() === current.info.tfBackend) return current.info;
  let info: BackendInfo;
  if (name === 'auto') {
    const skipped: { name: ResolvedBackendName; reason: string }[] = [];
    let chosen: BackendInfo | null = null;
    for (const candidate of ['gpu', 'node', 'wasm', 'cpu'] as const) {
      try {
        chosen = { ...(await activate(candidate)), skipped };
        break;
      } catch (err) {
        if (!(err instanceof BackendUnavailableError) || candidate === 'cpu') throw err;
        skipped.push({ name: candidate, reason: err.message });
      }
    }
    if (!chosen) throw new BackendUnavailableError('cpu', 'no tfjs backend could be initialised');
    info = chosen;
  } else {
    info = await activate(name);
  }
  current = { requested: name, info };
  return info;
}

async function activate(name: ResolvedBackendName): Promise<BackendInfo> {
  switch (name) {
    case 'cpu':
      await setBackendOrThrow('cpu', 'cpu');
      return { name, tfBackend: 'cpu', skipped: [] };
    case 'wasm':
      // Importing the package registers the 'wasm' backend (at top priority) and its kernels; ours replace
      // the missing or slow training kernels.
      await import('@tensorflow/tfjs-backend-wasm');
      registerWasmTrainingKernels();
      await setBackendOrThrow('wasm', 'wasm');
      return { name, tfBackend: 'wasm', skipped: [] };
    case 'node':
    case 'gpu':
      await loadTensorflowBinding(name);
      await setBackendOrThrow(name, 'tensorflow');
      return { name, tfBackend: 'tensorflow', skipped: [] };
  }
}

async function setBackendOrThrow(name: ResolvedBackendName, tfBackend: string): Promise<void> {
  if (tf.getBackend() !== tfBackend || !tf.findBackend(tfBackend)) {
    const ok = await tf.setBackend(tfBackend);
    if (!ok) throw new BackendUnavailableError(name, `the tfjs '${tfBackend}' backend failed to initialise (see the warning tfjs printed above)`);
  }
  await tf.ready();
}

async function loadTensorflowBinding(which: 'node' | 'gpu'): Promise<void> {
  const { packageName, requirements } = TENSORFLOW_BINDINGS[which];
  if (tensorflowBindingLoadedFrom === which) return;
  if (tensorflowBindingLoadedFrom !== null) {
    const other = TENSORFLOW_BINDINGS[tensorflowBindingLoadedFrom].packageName;
    throw new BackendUnavailableError(
      which,
      `backend '${which}' needs ${packageName}, but ${other} is already loaded in this process and both provide the 'tensorflow' backend; use one per process`,
      packageName
    );
  }
  const install = `npm install ${packageName}@${tf.version_core}`;
  try {
    await importOptional(packageName);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isMissingPackage(err, packageName)) {
      throw new BackendUnavailableError(
        which,
        `backend '${which}' needs the optional package ${packageName}, which is not installed. Install it with \`${install}\` (${requirements}), or use --backend wasm`,
        packageName
      );
    }
    throw new BackendUnavailableError(
      which,
      `backend '${which}': ${packageName} is installed but failed to load (usually its native libtensorflow binding is missing because its install script could not download it): ${message}. Reinstall it with \`${install}\` (${requirements}), or use --backend wasm`,
      packageName
    );
  }
  if (!tf.findBackendFactory('tensorflow')) {
    throw new BackendUnavailableError(
      which,
      `${packageName} loaded but registered its backend with a different copy of @tensorflow/tfjs-core than @az/nn uses; install the version matching @tensorflow/tfjs ${tf.version_core} (\`${install}\`)`,
      packageName
    );
  }
  tensorflowBindingLoadedFrom = which;
}

function isMissingPackage(err: unknown, packageName: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  const message = (err as { message?: unknown }).message;
  if (typeof message !== 'string') return false;
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${packageName}'`)) return true;
  // Vite-based loaders (vitest) report a missing package without a code: 'Could not resolve "<pkg>" imported by ...'.
  return message.startsWith(`Could not resolve "${packageName}"`);
}

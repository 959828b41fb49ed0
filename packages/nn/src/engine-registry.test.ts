import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { INFERENCE_ENGINES, INFERENCE_ENGINE_CHOICES, engineCandidates, openCheckpointInference, openInferenceEngine, openOnModel, splitBackendChoice } from './engine-registry.js';
import { EngineUnavailableError, type InferenceEngineEntry, type InferenceEngineName } from './engine.js';
import { buildModel } from './model.js';
import { exportOnnx } from './onnx/onnx-export.js';
import { tf } from './tf.js';
import { ONNX_WORKER_MIN_OUTPUT_BYTES, onnxThreadFor } from './onnx/onnx-engine.js';
import { OnnxUnavailableError, setOnnxRuntimeImporterForTests } from './onnx/onnx-model.js';
import type { InferenceModel, NetworkConfig } from '@az/core';
import { TfjsInferenceModel } from './tfjs/tfjs-model.js';
import { TINY_RESNET, randomArray } from './test-nets.js';

const brokenOrt = async (): Promise<never> => {
  throw new Error('simulated: native library missing');
};

async function outputs(model: InferenceModel, config: NetworkConfig, input: Float32Array, count: number): Promise<Float32Array[]> {
  const policy = new Float32Array(count * config.actionSize);
  const value = new Float32Array(count * config.numSeats);
  await model.predict(input, count, policy, value);
  return [policy, value];
}

function expectClose(a: Float32Array[], b: Float32Array[]): void {
  for (let k = 0; k < a.length; k++) for (let i = 0; i < a[k].length; i++) expect(Math.abs(a[k][i] - b[k][i])).toBeLessThan(1e-5);
}

describe('splitBackendChoice', () => {
  it('maps --backend onto the tfjs backend that trains and the inference engine', () => {
    expect(splitBackendChoice('auto')).toEqual({ training: 'auto', engine: 'auto' });
    expect(splitBackendChoice('onnx')).toEqual({ training: 'auto', engine: 'onnx' });
    expect(splitBackendChoice('onnx-cuda')).toEqual({ training: 'auto', engine: 'onnx-cuda' });
    expect(splitBackendChoice('wasm')).toEqual({ training: 'wasm', engine: 'tfjs' });
    expect(splitBackendChoice('gpu')).toEqual({ training: 'gpu', engine: 'tfjs' });
    expect(() => splitBackendChoice('tpu' as 'cpu')).toThrow(/unknown backend 'tpu'/);
  });
});

/** A registry entry that records what was asked of it and answers as told. */
function fakeEntry(name: InferenceEngineName, priority: number | null, behaviour: { unavailable?: string; fails?: string } = {}): InferenceEngineEntry & { calls: string[] } {
  const calls: string[] = [];
  return {
    name,
    priority,
    calls,
    label: () => `fake ${name}`,
    available: async () => {
      calls.push('available');
      return behaviour.unavailable === undefined ? { available: true } : { available: false, reason: behaviour.unavailable };
    },
    open: async (_model, config) => {
      calls.push('open');
      if (behaviour.fails !== undefined) throw new Error(behaviour.fails);
      return { name, config, backendName: name, weightsVersion: 0, predict: async () => undefined, refresh: async () => undefined, describe: () => name, dispose: () => undefined };
    },
  };
}

describe('the engine registry', () => {
  const model = {} as Parameters<InferenceEngineEntry['open']>[0];

  it('lists onnx, onnx-cuda and tfjs; auto tries onnx then tfjs, never onnx-cuda', () => {
    expect(INFERENCE_ENGINES.map((e) => [e.name, e.priority])).toEqual([
      ['onnx', 100],
      ['onnx-cuda', null],
      ['tfjs', 0],
    ]);
    expect(INFERENCE_ENGINE_CHOICES).toEqual(['auto', 'onnx', 'onnx-cuda', 'tfjs']);
    expect(engineCandidates('auto').map((e) => e.name)).toEqual(['onnx', 'tfjs']);
    expect(engineCandidates('onnx-cuda').map((e) => e.name)).toEqual(['onnx-cuda']);
    expect(() => engineCandidates('fast' as 'onnx')).toThrow("unknown inference engine 'fast' (choose one of auto, onnx, onnx-cuda, tfjs)");
  });

  it('orders auto by priority, highest first, and leaves out engines without one', () => {
    const engines = [fakeEntry('tfjs', 1), fakeEntry('onnx-cuda', null), fakeEntry('onnx', 7)];
    expect(engineCandidates('auto', engines).map((e) => e.name)).toEqual(['onnx', 'tfjs']);
    expect(engineCandidates('onnx-cuda', engines).map((e) => e.name)).toEqual(['onnx-cuda']);
    expect(() => engineCandidates('auto', [fakeEntry('onnx-cuda', null)])).toThrow(/no inference engine for 'auto'/);
  });

  it('passes over an unavailable engine and one that fails to open, saying why; the last is opened without asking', async () => {
    const unavailable = fakeEntry('onnx-cuda', 3, { unavailable: 'no GPU here' });
    const failing = fakeEntry('onnx', 2, { fails: 'graph refused' });
    const last = fakeEntry('tfjs', 1);
    const logs: string[] = [];
    const engine = await openOnModel([unavailable, failing, last], model, TINY_RESNET, { log: (m) => logs.push(m) });
    expect(engine.name).toBe('tfjs');
    expect(logs).toEqual(['inference on fake onnx, not fake onnx-cuda: no GPU here', 'inference on fake tfjs, not fake onnx: graph refused']);
    expect([unavailable.calls, failing.calls, last.calls]).toEqual([['available'], ['available', 'open'], ['open']]);
  });

  it("throws the last engine's error", async () => {
    const only = fakeEntry('onnx', 2, { fails: 'graph refused' });
    await expect(openOnModel([only], model, TINY_RESNET, {})).rejects.toThrow('graph refused');
    expect(only.calls).toEqual(['open']);
  });
});

describe('onnxThreadFor', () => {
  const chess: NetworkConfig = { ...TINY_RESNET, actionSize: 4672 };
  it('runs onnxruntime in a worker thread once full policy rows reach 1 MB a call', () => {
    expect(onnxThreadFor(chess, undefined)).toBe('main');
    expect(onnxThreadFor(chess, { positionsPerCall: 512, fullPolicyRows: true })).toBe('worker');
    expect(onnxThreadFor(chess, { positionsPerCall: 512, fullPolicyRows: false })).toBe('main');
    expect(onnxThreadFor(chess, { positionsPerCall: Math.ceil(ONNX_WORKER_MIN_OUTPUT_BYTES / (4672 * 4)), fullPolicyRows: true })).toBe('worker');
    expect(onnxThreadFor(chess, { positionsPerCall: Math.floor(ONNX_WORKER_MIN_OUTPUT_BYTES / (4672 * 4)), fullPolicyRows: true })).toBe('main');
  });
});

describe('openInferenceEngine', () => {
  const config = TINY_RESNET;
  const input = randomArray(4 * 18, 3);
  beforeAll(async () => {
    await initBackend('cpu');
  });
  afterEach(() => setOnnxRuntimeImporterForTests(null));

  it('auto: onnxruntime with the same outputs as tfjs, on a snapshot of the weights until refresh', async () => {
    const model = buildModel(config, { seed: 4 });
    const reference = new TfjsInferenceModel(model, config, { ownsModel: false });
    const expected = await outputs(reference, config, input, 4);
    const onnx = await openInferenceEngine(model, config, { threads: 1, weightsVersion: 3 });
    const inWorker = await openInferenceEngine(model, config, { threads: 1, onnxThread: 'worker' });
    expect([onnx.name, onnx.backendName, onnx.weightsVersion]).toEqual(['onnx', 'onnx', 3]);
    expect([onnx.describe(), inWorker.describe()]).toEqual(['onnx (onnxruntime, 1 thread, run in the main thread)', 'onnx (onnxruntime, 1 thread, run in a worker thread)']);
    expectClose(await outputs(onnx, config, input, 4), expected);
    expect(await outputs(inWorker, config, input, 4)).toEqual(await outputs(onnx, config, input, 4));
    // Later changes to the tfjs weights reach the session only through refresh, and only with a new version.
    model.setWeights(model.getWeights().map((w) => tf.mul(w, 0.5)));
    const halved = await outputs(reference, config, input, 4);
    await onnx.refresh(3);
    expectClose(await outputs(onnx, config, input, 4), expected);
    await onnx.refresh(4);
    expect(onnx.weightsVersion).toBe(4);
    expect(onnx.describe()).toBe('onnx (onnxruntime, 1 thread, run in the main thread)');
    expectClose(await outputs(onnx, config, input, 4), halved);
    await inWorker.refresh(1);
    expect(inWorker.describe()).toMatch(/run in a worker thread/);
    expectClose(await outputs(inWorker, config, input, 4), halved);
    onnx.dispose();
    inWorker.dispose();
    model.dispose();
  });

  it('picks the onnx thread from the workload', async () => {
    const model = buildModel(config, { seed: 4 });
    const big = await openInferenceEngine(model, config, { threads: 1, workload: { positionsPerCall: Math.ceil(ONNX_WORKER_MIN_OUTPUT_BYTES / (config.actionSize * 4)), fullPolicyRows: true } });
    const compact = await openInferenceEngine(model, config, { threads: 1, workload: { positionsPerCall: 1 << 20, fullPolicyRows: false } });
    expect([big.describe(), compact.describe()]).toEqual(['onnx (onnxruntime, 1 thread, run in a worker thread)', 'onnx (onnxruntime, 1 thread, run in the main thread)']);
    big.dispose();
    compact.dispose();
    model.dispose();
  });

  it('tfjs: the LayersModel itself, always current; ownsModel decides who disposes it', async () => {
    const model = buildModel(config, { seed: 4 });
    const tfjs = await openInferenceEngine(model, config, { engine: 'tfjs', weightsVersion: 2 });
    expect([tfjs.name, tfjs.backendName, tfjs.describe(), tfjs.weightsVersion]).toEqual(['tfjs', 'cpu', 'tfjs cpu', 2]);
    expect(tfjs.predictLegal).toBeUndefined();
    model.setWeights(model.getWeights().map((w) => tf.mul(w, 0.5)));
    expectClose(await outputs(tfjs, config, input, 4), await outputs(new TfjsInferenceModel(model, config, { ownsModel: false }), config, input, 4));
    await tfjs.refresh(3);
    expect(tfjs.weightsVersion).toBe(3);
    tfjs.dispose();
    expect(model.weights[0].read().isDisposed).toBe(false); // ownsModel defaults to false
    const onnx = await openInferenceEngine(model, config, { threads: 1, ownsModel: true });
    expect(onnx.name).toBe('onnx');
    expect(() => model.weights[0].read()).toThrow(); // the graph holds a copy; the tfjs model was freed
    await onnx.refresh(0);
    await expect(onnx.refresh(1)).rejects.toThrow(/runs fixed weights .*open a new engine for weights version 1/);
    onnx.dispose();
  });

  it('auto falls back to tfjs with the reason logged; an explicit onnx fails', async () => {
    setOnnxRuntimeImporterForTests(brokenOrt);
    const model = buildModel(config, { seed: 4 });
    const logs: string[] = [];
    const fallback = await openInferenceEngine(model, config, { log: (m) => logs.push(m) });
    expect(fallback.name).toBe('tfjs');
    expect(logs).toEqual([expect.stringMatching(/^inference on tfjs \(cpu\), not onnxruntime: .*simulated: native library missing/)]);
    await expect(openInferenceEngine(model, config, { engine: 'onnx' })).rejects.toBeInstanceOf(OnnxUnavailableError);
    await expect(openInferenceEngine(model, config, { engine: 'onnx-cuda' })).rejects.toBeInstanceOf(EngineUnavailableError);
    await expect(openInferenceEngine(model, config, { engine: 'fast' as 'onnx' })).rejects.toThrow(/unknown inference engine 'fast'/);
    fallback.dispose();
    model.dispose();
  });
});

describe('checkpoints and onnx', () => {
  const config = TINY_RESNET;
  const input = randomArray(4 * 18, 5);
  let root: string;
  let n = 0;
  const manifest = { gameId: 'g', gameConfig: {}, encoderVersion: 'e1', iteration: 1, weightsVersion: 1, network: config, backend: 'cpu' };
  beforeAll(async () => {
    await initBackend('cpu');
    root = mkdtempSync(join(tmpdir(), 'az-onnx-ckpt-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(() => setOnnxRuntimeImporterForTests(null));

  async function saved(onnx: boolean): Promise<{ dir: string; expected: Float32Array[] }> {
    const dir = join(root, `c${++n}`);
    const model = buildModel(config, { seed: n });
    await saveCheckpoint(dir, model, manifest, undefined, { onnx });
    const expected = await outputs(new TfjsInferenceModel(model, config), config, input, 4);
    model.dispose();
    return { dir, expected };
  }

  it('saveCheckpoint writes model.onnx beside the tfjs files (or the bytes it is given)', async () => {
    const { dir } = await saved(true);
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'model.json', 'model.onnx', 'weights.bin']);
    expect(readdirSync((await saved(false)).dir)).not.toContain('model.onnx');
    const model = buildModel(config, { seed: 1 });
    const bytes = exportOnnx(model, config);
    const given = join(root, 'given');
    await saveCheckpoint(given, model, manifest, undefined, { onnx: bytes });
    const { readFileSync } = await import('node:fs');
    expect(new Uint8Array(readFileSync(join(given, 'model.onnx')))).toEqual(bytes);
    model.dispose();
  });

  it('auto and onnx open model.onnx directly; tfjs loads the tfjs model', async () => {
    const { dir, expected } = await saved(true);
    for (const engine of ['auto', 'onnx'] as const) {
      const opened = await openCheckpointInference(dir, { engine, threads: 1, expect: { gameId: 'g' } });
      expect(opened.source).toBe('model.onnx');
      expect([opened.inference.name, opened.inference.weightsVersion]).toEqual(['onnx', 1]);
      // A checkpoint's weights are fixed.
      await expect(opened.inference.refresh(2)).rejects.toThrow(/runs fixed weights/);
      expect(opened.manifest.iteration).toBe(1);
      expectClose(await outputs(opened.inference, config, input, 4), expected);
      opened.inference.dispose();
    }
    const inWorker = await openCheckpointInference(dir, { engine: 'onnx', threads: 1, onnxThread: 'worker', expect: { gameId: 'g' } });
    expect(inWorker.inference.describe()).toMatch(/run in a worker thread/);
    expectClose(await outputs(inWorker.inference, config, input, 4), expected);
    inWorker.inference.dispose();
    const tfjs = await openCheckpointInference(dir, { engine: 'tfjs' });
    expect(tfjs.source).toBe('tfjs');
    expect([tfjs.inference.name, tfjs.inference.backendName, tfjs.inference.weightsVersion]).toEqual(['tfjs', 'cpu', 1]);
    expectClose(await outputs(tfjs.inference, config, input, 4), expected);
    tfjs.inference.dispose();
    await expect(openCheckpointInference(dir, { expect: { gameId: 'other' } })).rejects.toThrow(/is for game 'g', not 'other'/);
  });

  it('a checkpoint without model.onnx (or with a corrupt one) is exported from its tfjs weights', async () => {
    const { dir, expected } = await saved(false);
    const opened = await openCheckpointInference(dir, { threads: 1 });
    expect(opened.source).toBe('tfjs');
    expect(opened.inference.backendName).toBe('onnx');
    expectClose(await outputs(opened.inference, config, input, 4), expected);
    opened.inference.dispose();

    writeFileSync(join(dir, 'model.onnx'), 'not a graph');
    const logs: string[] = [];
    const rebuilt = await openCheckpointInference(dir, { threads: 1, log: (m) => logs.push(m) });
    expect(rebuilt.inference.backendName).toBe('onnx');
    expect(logs).toEqual([expect.stringMatching(/model\.onnx is unusable .*exporting the checkpoint's tfjs weights instead/)]);
    expectClose(await outputs(rebuilt.inference, config, input, 4), expected);
    rebuilt.inference.dispose();
  });

  it('without onnxruntime: auto runs the checkpoint on tfjs, onnx fails', async () => {
    const { dir, expected } = await saved(true);
    setOnnxRuntimeImporterForTests(brokenOrt);
    const logs: string[] = [];
    const opened = await openCheckpointInference(dir, { log: (m) => logs.push(m) });
    expect(opened.inference.name).toBe('tfjs');
    expect(logs).toEqual([expect.stringMatching(/^inference on tfjs \(cpu\), not onnxruntime: .*simulated: native library missing/)]);
    expectClose(await outputs(opened.inference, config, input, 4), expected);
    opened.inference.dispose();
    await expect(openCheckpointInference(dir, { engine: 'onnx' })).rejects.toBeInstanceOf(OnnxUnavailableError);
    // loadCheckpoint is unaffected by model.onnx.
    (await loadCheckpoint(dir)).model.dispose();
  });
});

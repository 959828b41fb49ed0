import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { createInferenceModelFor, openCheckpointInference, splitBackendChoice } from './engine-registry.js';
import { buildModel } from './model.js';
import { exportOnnx } from './onnx/onnx-export.js';
import { OnnxInferenceModel, OnnxUnavailableError, setOnnxRuntimeImporterForTests } from './onnx/onnx-model.js';
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
  it('maps --backend onto the training and the inference engine', () => {
    expect(splitBackendChoice('auto')).toEqual({ training: 'auto', inference: 'auto' });
    expect(splitBackendChoice('onnx')).toEqual({ training: 'auto', inference: 'onnx' });
    expect(splitBackendChoice('onnx-cuda')).toEqual({ training: 'auto', inference: 'onnx-cuda' });
    expect(splitBackendChoice('wasm')).toEqual({ training: 'wasm', inference: 'tfjs' });
    expect(splitBackendChoice('gpu')).toEqual({ training: 'gpu', inference: 'tfjs' });
    expect(() => splitBackendChoice('tpu' as 'cpu')).toThrow(/unknown backend 'tpu'/);
  });
});

describe('createInferenceModelFor', () => {
  const config = TINY_RESNET;
  const input = randomArray(4 * 18, 3);
  beforeAll(async () => {
    await initBackend('cpu');
  });
  afterEach(() => setOnnxRuntimeImporterForTests(null));

  it('auto: onnxruntime with the same outputs as tfjs; a snapshot of the weights', async () => {
    const model = buildModel(config, { seed: 4 });
    const reference = new TfjsInferenceModel(model, config, { ownsModel: false });
    const expected = await outputs(reference, config, input, 4);
    const onnx = await createInferenceModelFor(model, config, { threads: 1 });
    const inWorker = await createInferenceModelFor(model, config, { threads: 1, onnxThread: 'worker' });
    expect(onnx.backendName).toBe('onnx');
    expect([(onnx as OnnxInferenceModel).thread, (inWorker as OnnxInferenceModel).thread]).toEqual(['main', 'worker']);
    expectClose(await outputs(onnx, config, input, 4), expected);
    expect(await outputs(inWorker, config, input, 4)).toEqual(await outputs(onnx, config, input, 4));
    // Later changes to the tfjs weights do not reach the session.
    model.setWeights(model.getWeights().map((w) => w.mul(0.5)));
    expectClose(await outputs(onnx, config, input, 4), expected);
    onnx.dispose();
    inWorker.dispose();
    model.dispose();
  });

  it('tfjs: the LayersModel itself; ownsModel decides who disposes it', async () => {
    const model = buildModel(config, { seed: 4 });
    const tfjs = await createInferenceModelFor(model, config, { backend: 'tfjs' });
    expect(tfjs).toBeInstanceOf(TfjsInferenceModel);
    expect(tfjs.backendName).toBe('cpu');
    tfjs.dispose();
    expect(model.weights[0].read().isDisposed).toBe(false); // ownsModel defaults to false
    const onnx = await createInferenceModelFor(model, config, { threads: 1, ownsModel: true });
    expect(onnx.backendName).toBe('onnx');
    expect(() => model.weights[0].read()).toThrow(); // the graph holds a copy; the tfjs model was freed
    onnx.dispose();
  });

  it('auto falls back to tfjs with the reason logged; an explicit onnx fails', async () => {
    setOnnxRuntimeImporterForTests(brokenOrt);
    const model = buildModel(config, { seed: 4 });
    const logs: string[] = [];
    const fallback = await createInferenceModelFor(model, config, { log: (m) => logs.push(m) });
    expect(fallback).toBeInstanceOf(TfjsInferenceModel);
    expect(logs).toEqual([expect.stringMatching(/^inference on tfjs \(cpu\), not onnxruntime: .*simulated: native library missing/)]);
    await expect(createInferenceModelFor(model, config, { backend: 'onnx' })).rejects.toBeInstanceOf(OnnxUnavailableError);
    await expect(createInferenceModelFor(model, config, { backend: 'onnx-cuda' })).rejects.toBeInstanceOf(OnnxUnavailableError);
    await expect(createInferenceModelFor(model, config, { backend: 'fast' as 'onnx' })).rejects.toThrow(/unknown inference backend 'fast'/);
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
    for (const backend of ['auto', 'onnx'] as const) {
      const opened = await openCheckpointInference(dir, { backend, threads: 1, expect: { gameId: 'g' } });
      expect(opened.source).toBe('model.onnx');
      expect(opened.inference.backendName).toBe('onnx');
      expect(opened.manifest.iteration).toBe(1);
      expectClose(await outputs(opened.inference, config, input, 4), expected);
      opened.inference.dispose();
    }
    const inWorker = await openCheckpointInference(dir, { backend: 'onnx', threads: 1, onnxThread: 'worker', expect: { gameId: 'g' } });
    expect((inWorker.inference as OnnxInferenceModel).thread).toBe('worker');
    expectClose(await outputs(inWorker.inference, config, input, 4), expected);
    inWorker.inference.dispose();
    const tfjs = await openCheckpointInference(dir, { backend: 'tfjs' });
    expect(tfjs.source).toBe('tfjs');
    expect(tfjs.inference.backendName).toBe('cpu');
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
    expect(opened.inference).toBeInstanceOf(TfjsInferenceModel);
    expect(logs[0]).toMatch(/inference on tfjs, not onnxruntime/);
    expectClose(await outputs(opened.inference, config, input, 4), expected);
    opened.inference.dispose();
    await expect(openCheckpointInference(dir, { backend: 'onnx' })).rejects.toBeInstanceOf(OnnxUnavailableError);
    // loadCheckpoint is unaffected by model.onnx.
    (await loadCheckpoint(dir)).model.dispose();
  });
});

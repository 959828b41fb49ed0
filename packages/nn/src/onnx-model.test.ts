import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { buildModel } from './model.js';
import { exportOnnx } from './onnx-export.js';
import { OnnxInferenceModel, OnnxUnavailableError, onnxRuntimeStatus, setOnnxRuntimeImporterForTests } from './onnx-model.js';
import { TINY_MLP, TINY_RESNET, randomArray } from './test-nets.js';

describe('OnnxInferenceModel', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });
  afterEach(() => setOnnxRuntimeImporterForTests(null));

  it('loads the CPU library shipped in node_modules and runs a session', async () => {
    expect(await onnxRuntimeStatus()).toMatchObject({ available: true, version: expect.stringMatching(/^1\.\d+\.\d+/) });
    const model = buildModel(TINY_RESNET, { seed: 1 });
    const onnx = await OnnxInferenceModel.create(exportOnnx(model, TINY_RESNET), TINY_RESNET, { threads: 2 });
    model.dispose();
    expect(onnx.backendName).toBe('onnx');
    expect(onnx.threads).toBe(2);
    const input = randomArray(3 * 18 + 5, 1); // longer than needed: only `count` positions are read
    const policy = new Float32Array(3 * 5);
    const value = new Float32Array(3 * 2);
    await onnx.predict(input, 3, policy, value);
    expect(policy.some((x) => x !== 0)).toBe(true);
    expect(value.every((v) => v > -1 && v < 1)).toBe(true);
    await onnx.predict(input, 0, policy, value); // nothing to do
    await expect(onnx.predict(input, 4, policy, value)).rejects.toThrow(/input holds 59 floats but 4 positions need 72/);
    onnx.dispose();
    onnx.dispose(); // idempotent
    await expect(onnx.predict(input, 1, policy, value)).rejects.toThrow(/after dispose/);
  });

  it('writes the outputs in place: the same figures as a plain session run, nothing past count touched', async () => {
    const model = buildModel(TINY_RESNET, { seed: 2 });
    const graph = exportOnnx(model, TINY_RESNET);
    model.dispose();
    const onnx = await OnnxInferenceModel.create(graph, TINY_RESNET, { threads: 1 });
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(graph);
    const input = randomArray(4 * 18, 3);
    for (const count of [4, 1, 3]) {
      const policy = new Float32Array(5 * 5).fill(NaN);
      const value = new Float32Array(5 * 2).fill(NaN);
      await onnx.predict(input, count, policy, value);
      const out = await session.run({ input: new ort.Tensor('float32', input.subarray(0, count * 18), [count, ...TINY_RESNET.inputShape]) });
      expect(Array.from(policy.subarray(0, count * 5))).toEqual(Array.from(out.policy_logits.data as Float32Array));
      expect(Array.from(value.subarray(0, count * 2))).toEqual(Array.from(out.value.data as Float32Array));
      expect(policy.subarray(count * 5).every(Number.isNaN)).toBe(true);
      expect(value.subarray(count * 2).every(Number.isNaN)).toBe(true);
    }
    await session.release();
    onnx.dispose();
  });

  it('defaults to the cores available to the process and rejects bad thread counts', async () => {
    const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    const onnx = await OnnxInferenceModel.create(graph, TINY_MLP);
    const { availableParallelism } = await import('node:os');
    expect(onnx.threads).toBe(availableParallelism());
    onnx.dispose();
    await expect(OnnxInferenceModel.create(graph, TINY_MLP, { threads: 0 })).rejects.toThrow(/threads must be a positive integer/);
  });

  it('refuses a graph that does not fit the network config', async () => {
    const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    await expect(OnnxInferenceModel.create(graph, { ...TINY_MLP, actionSize: 6 }, { threads: 1 })).rejects.toThrow(/policy output \[batch, 4\] does not have actionSize 6/);
    await expect(OnnxInferenceModel.create(new Uint8Array([1, 2, 3]), TINY_MLP, { threads: 1 })).rejects.toThrow(/onnxruntime cannot open the network/);
  });

  it('explains a missing CUDA provider and how to install it', async () => {
    const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    const err = await OnnxInferenceModel.create(graph, TINY_MLP, { executionProvider: 'cuda' }).then(
      () => null,
      (e: unknown) => e,
    );
    // This machine has no CUDA provider (the .npmrc skips its download). On a GPU box with it installed, the
    // session either opens or fails with the CUDA libraries' own error, still as OnnxUnavailableError.
    if (err === null) return;
    expect(err).toBeInstanceOf(OnnxUnavailableError);
    expect((err as OnnxUnavailableError).backend).toBe('onnx-cuda');
    const providerMissing = !existsSync(new URL('../../../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so', import.meta.url));
    if (providerMissing && process.platform === 'linux' && process.arch === 'x64') {
      expect((err as Error).message).toMatch(/CUDA provider is not installed.*ONNXRUNTIME_NODE_INSTALL=cuda12 npm rebuild onnxruntime-node.*--backend onnx/);
    }
  });

  it('turns a native library that fails to load into OnnxUnavailableError', async () => {
    setOnnxRuntimeImporterForTests(async () => {
      throw new Error('libonnxruntime.so.1: cannot open shared object file');
    });
    expect(await onnxRuntimeStatus()).toEqual({ available: false, reason: expect.stringMatching(/installed but failed to load \(libonnxruntime\.so\.1: cannot open/) });
    const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    await expect(OnnxInferenceModel.create(graph, TINY_MLP)).rejects.toBeInstanceOf(OnnxUnavailableError);
    setOnnxRuntimeImporterForTests(async () => {
      throw Object.assign(new Error("Cannot find package 'onnxruntime-node' imported from x"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    await expect(OnnxInferenceModel.create(graph, TINY_MLP)).rejects.toThrow(/needs onnxruntime-node, which is not installed .*ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node/);
  });
});

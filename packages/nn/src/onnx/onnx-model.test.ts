import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../backend.js';
import { buildModel } from '../model.js';
import { exportOnnx } from './onnx-export.js';
import { OnnxInferenceModel, OnnxUnavailableError, onnxRuntimeStatus, setOnnxRuntimeImporterForTests, setOnnxWorkerFaultForTests } from './onnx-model.js';
import { TINY_MLP, TINY_RESNET, randomArray } from '../test-nets.js';
import { encodeOnnxGraphExtension } from './onnx-proto.js';

describe('OnnxInferenceModel', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });
  afterEach(() => {
    setOnnxRuntimeImporterForTests(null);
    setOnnxWorkerFaultForTests(undefined);
  });

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
    // A second input of the graph's own: named as the graph has it, without the legal gather's input the session adds.
    const extra = encodeOnnxGraphExtension({ nodes: [], inputs: [{ name: 'extra', dims: ['batch', 1] }], outputs: [] });
    const twoInputs = new Uint8Array([...graph, ...extra]);
    await expect(OnnxInferenceModel.create(twoInputs, TINY_MLP, { threads: 1 })).rejects.toThrow("expected one input 'input', got [input, extra]");
  });

  it('explains a missing CUDA provider and how to install it', async () => {
    const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    const err = await OnnxInferenceModel.create(graph, TINY_MLP, { executionProvider: 'cuda' }).then(
      () => null,
      (e: unknown) => e,
    );
    // This machine has no CUDA provider (npm runs no onnxruntime-node install script here). On a GPU box with it installed, the
    // session either opens or fails with the CUDA libraries' own error, still as OnnxUnavailableError.
    if (err === null) return;
    expect(err).toBeInstanceOf(OnnxUnavailableError);
    expect((err as OnnxUnavailableError).backend).toBe('onnx-cuda');
    const providerMissing = !existsSync(new URL('../../../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so', import.meta.url));
    if (providerMissing && process.platform === 'linux' && process.arch === 'x64') {
      expect((err as Error).message).toMatch(/CUDA provider is not installed.*ONNXRUNTIME_NODE_INSTALL=cuda12 node script\/install\.js.*--backend onnx/);
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

  describe("thread 'worker'", () => {
    it('gives bitwise the same outputs as the in-thread session, at growing and shrinking batch sizes', async () => {
      for (const config of [TINY_RESNET, TINY_MLP]) {
        const model = buildModel(config, { seed: 4 });
        const graph = exportOnnx(model, config);
        model.dispose();
        const main = await OnnxInferenceModel.create(graph, config, { threads: 1 });
        const worker = await OnnxInferenceModel.create(graph, config, { threads: 1, thread: 'worker' });
        expect([main.thread, worker.thread, worker.backendName]).toEqual(['main', 'worker', 'onnx']);
        const inputSize = config.inputShape.reduce((a, b) => a * b, 1);
        const input = randomArray(40 * inputSize, 5);
        for (const count of [3, 1, 40, 7]) {
          const outs = [main, worker].map(() => ({ policy: new Float32Array(41 * config.actionSize).fill(NaN), value: new Float32Array(41 * 2).fill(NaN) }));
          await main.predict(input, count, outs[0]!.policy, outs[0]!.value);
          await worker.predict(input, count, outs[1]!.policy, outs[1]!.value);
          // Bitwise, NaN padding included (toEqual on Float32Arrays compares every element with Object.is).
          expect(new Uint32Array(outs[1]!.policy.buffer)).toEqual(new Uint32Array(outs[0]!.policy.buffer));
          expect(new Uint32Array(outs[1]!.value.buffer)).toEqual(new Uint32Array(outs[0]!.value.buffer));
          expect(outs[1]!.policy.subarray(count * config.actionSize).every(Number.isNaN)).toBe(true);
        }
        main.dispose();
        worker.dispose();
      }
    });

    it('runs overlapping calls one after the other, each with its own buffers', async () => {
      const model = buildModel(TINY_MLP, { seed: 6 });
      const graph = exportOnnx(model, TINY_MLP);
      model.dispose();
      const main = await OnnxInferenceModel.create(graph, TINY_MLP, { threads: 1 });
      const worker = await OnnxInferenceModel.create(graph, TINY_MLP, { threads: 1, thread: 'worker' });
      const inputs = [randomArray(4 * 5, 7), randomArray(9 * 5, 8), randomArray(2 * 5, 9)];
      const counts = [4, 9, 2];
      const run = (m: OnnxInferenceModel): Promise<Float32Array[]> =>
        Promise.all(
          inputs.map(async (input, i) => {
            const policy = new Float32Array(counts[i]! * 4);
            await m.predict(input, counts[i]!, policy, new Float32Array(counts[i]! * 2));
            return policy;
          }),
        );
      expect(await run(worker)).toEqual(await run(main));
      main.dispose();
      worker.dispose();
    });

    it('ends its worker thread on dispose, after the run under way', async () => {
      const { threadId } = await import('node:worker_threads');
      const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
      const onnx = await OnnxInferenceModel.create(graph, TINY_MLP, { threads: 1, thread: 'worker' });
      const runner = (onnx as unknown as { runner: { worker: import('node:worker_threads').Worker } }).runner;
      expect(runner.worker.threadId).not.toBe(threadId);
      const exited = new Promise<number>((resolve) => runner.worker.once('exit', resolve));
      const input = randomArray(2 * 5, 1);
      const running = onnx.predict(input, 2, new Float32Array(8), new Float32Array(4));
      onnx.dispose();
      await running; // asked for before dispose: it completes
      expect(await exited).toBe(0);
      await expect(onnx.predict(input, 1, new Float32Array(4), new Float32Array(2))).rejects.toThrow(/after dispose/);
    });

    it('reports a graph onnxruntime refuses, or one that does not fit the config, as the in-thread path does', async () => {
      await expect(OnnxInferenceModel.create(new Uint8Array([1, 2, 3]), TINY_MLP, { threads: 1, thread: 'worker' })).rejects.toThrow(/onnxruntime cannot open the network/);
      const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
      await expect(OnnxInferenceModel.create(graph, { ...TINY_MLP, actionSize: 6 }, { threads: 1, thread: 'worker' })).rejects.toThrow(/policy output \[batch, 4\] does not have actionSize 6/);
      await expect(OnnxInferenceModel.create(graph, TINY_MLP, { thread: 'gpu' as 'worker' })).rejects.toThrow(/onnx thread must be 'main' or 'worker'/);
    });

    it.each([
      ['run', /onnxruntime failed on net-7 \(worker thread\): injected fault in run/],
      ['crash', /onnxruntime worker thread for net-7 failed: injected crash/],
      ['exit', /onnxruntime worker thread for net-7 ended unexpectedly \(exit code 3\)/],
    ] as const)('turns a worker that fails (%s) into rejected predictions naming the network, not a hang', async (fault, message) => {
      setOnnxWorkerFaultForTests(fault);
      const graph = exportOnnx(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
      const onnx = await OnnxInferenceModel.create(graph, TINY_MLP, { threads: 1, thread: 'worker', name: 'net-7' });
      const input = randomArray(2 * 5, 1);
      await expect(onnx.predict(input, 2, new Float32Array(8), new Float32Array(4))).rejects.toThrow(message);
      // The fault repeats on every run ('run'), or the worker is gone: every later call fails the same way.
      await expect(onnx.predict(input, 1, new Float32Array(4), new Float32Array(2))).rejects.toThrow(message);
      onnx.dispose();
    });
  });
});

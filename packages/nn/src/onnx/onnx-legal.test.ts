// OnnxInferenceModel.predictLegal: the logits of listed actions, gathered inside the graph (onnx-legal.ts),
// in the calling thread and in the worker. onnxruntime-node is a dev dependency, as in onnx-model.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '@az/core';
import type { NetworkConfig } from '@az/core';
import type * as Ort from 'onnxruntime-node';
import { initBackend } from '../backend.js';
import { buildModel } from '../model.js';
import { exportOnnx } from './onnx-export.js';
import { LEGAL_INPUT_NAME, LEGAL_OUTPUT_NAME, withLegalGather } from './onnx-legal.js';
import { OnnxInferenceModel, type OnnxThread } from './onnx-model.js';
import { encodeOnnxModel } from './onnx-proto.js';
import { randomArray } from '../test-nets.js';

// Action spaces far larger than the rows: most of the dense policy is never asked for, as in chess.
const LEGAL_MLP: NetworkConfig = { spec: { kind: 'mlp', hidden: [16, 12] }, inputShape: [7], actionSize: 300, numSeats: 3 };
const LEGAL_RESNET: NetworkConfig = {
  spec: { kind: 'resnet', filters: 8, blocks: 2, policyFilters: 3, valueFilters: 2, valueHidden: 8 },
  inputShape: [4, 5, 3],
  actionSize: 1000,
  numSeats: 2,
};
const THREADS: readonly OnnxThread[] = ['main', 'worker'];

const inputSize = (config: NetworkConfig): number => config.inputShape.reduce((a, b) => a * b, 1);

/** `count` rows of distinct random actions, 1 to `width` of them, each padded to `width` with its own first. */
function randomRows(config: NetworkConfig, count: number, width: number, seed: number): Int32Array {
  const rng = new Rng(seed);
  const rows = new Int32Array(count * width);
  for (let i = 0; i < count; i++) {
    const n = 1 + rng.int(width);
    const row = new Set<number>();
    while (row.size < n) row.add(rng.int(config.actionSize));
    const list = [...row];
    for (let k = 0; k < width; k++) rows[i * width + k] = list[k] ?? list[0]!;
  }
  // Row 0 names both ends of the action space: an off-by-one in the gather cannot hide.
  rows[0] = 0;
  if (width > 1) rows[1] = config.actionSize - 1;
  return rows;
}

/** The dense logits picked at `actions`, row by row. */
function gather(dense: Float32Array, actionSize: number, actions: Int32Array, count: number, width: number): Float32Array {
  const out = new Float32Array(count * width);
  for (let i = 0; i < count * width; i++) out[i] = dense[Math.floor(i / width) * actionSize + actions[i]!]!;
  return out;
}

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** A plain onnxruntime session on the graph as exported (no gather): what `predict` gave before predictLegal. */
async function plainRun(session: Ort.InferenceSession, config: NetworkConfig, input: Float32Array, count: number): Promise<{ policy: Float32Array; value: Float32Array }> {
  const ort = await import('onnxruntime-node');
  const x = new ort.Tensor('float32', input.slice(0, count * inputSize(config)), [count, ...config.inputShape]);
  const out = await session.run({ input: x });
  return { policy: out.policy_logits!.data as Float32Array, value: out.value!.data as Float32Array };
}

describe('OnnxInferenceModel.predictLegal', () => {
  const graphs = new Map<NetworkConfig, Uint8Array>();
  let dir = '';

  beforeAll(async () => {
    await initBackend('cpu');
    for (const [config, seed] of [[LEGAL_MLP, 11], [LEGAL_RESNET, 12]] as const) {
      const model = buildModel(config, { seed });
      graphs.set(config, exportOnnx(model, config));
      model.dispose();
    }
    dir = await mkdtemp(join(tmpdir(), 'az-onnx-legal-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe.each(THREADS)("thread '%s'", (thread) => {
    it.each([
      ['an mlp, 300 actions', LEGAL_MLP],
      ['a resnet, 1000 actions', LEGAL_RESNET],
    ] as const)('gives predict’s logits at the listed actions and its values, bitwise (%s)', async (_name, config) => {
      const onnx = await OnnxInferenceModel.create(graphs.get(config)!, config, { threads: 1, thread });
      expect(onnx.legalInGraph).toBe(true);
      const { actionSize, numSeats } = config;
      const input = randomArray(40 * inputSize(config), 21);
      // Growing and shrinking batches and widths (the worker's buffers grow with both).
      for (const [count, width, seed] of [
        [3, 5, 1],
        [1, 1, 2],
        [40, 37, 3],
        [7, 2, 4],
        [40, 60, 5],
        [12, 9, 6],
      ] as const) {
        const actions = randomRows(config, count, width, seed);
        const policy = new Float32Array(count * width + 3).fill(NaN);
        const value = new Float32Array((count + 1) * numSeats).fill(NaN);
        await onnx.predictLegal(input, count, actions, width, policy, value);
        const dense = new Float32Array(count * actionSize);
        const denseValue = new Float32Array(count * numSeats);
        await onnx.predict(input, count, dense, denseValue);
        expect(bits(policy.subarray(0, count * width))).toEqual(bits(gather(dense, actionSize, actions, count, width)));
        expect(bits(value.subarray(0, count * numSeats))).toEqual(bits(denseValue));
        // Nothing past count is written.
        expect(policy.subarray(count * width).every(Number.isNaN)).toBe(true);
        expect(value.subarray(count * numSeats).every(Number.isNaN)).toBe(true);
      }
      onnx.dispose();
    });

    it('leaves predict bitwise what a plain session on the exported graph gives, interleaved with predictLegal', async () => {
      const ort = await import('onnxruntime-node');
      for (const config of [LEGAL_MLP, LEGAL_RESNET]) {
        const graph = graphs.get(config)!;
        const session = await ort.InferenceSession.create(graph, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
        const onnx = await OnnxInferenceModel.create(graph, config, { threads: 1, thread });
        const { actionSize, numSeats } = config;
        const input = randomArray(20 * inputSize(config), 31);
        for (const [count, width] of [
          [5, 4],
          [20, 30],
          [2, 1],
        ] as const) {
          await onnx.predictLegal(input, count, randomRows(config, count, width, count), width, new Float32Array(count * width), new Float32Array(count * numSeats));
          const policy = new Float32Array(count * actionSize);
          const value = new Float32Array(count * numSeats);
          await onnx.predict(input, count, policy, value);
          const plain = await plainRun(session, config, input, count);
          expect(bits(policy)).toEqual(bits(plain.policy));
          expect(bits(value)).toEqual(bits(plain.value));
        }
        // Overlapping calls of both kinds run one after the other, each with its own buffers.
        const count = 6;
        const width = 8;
        const actions = randomRows(config, count, width, 99);
        const calls = [0, 1, 2, 3].map(async (k) => {
          const x = input.subarray(k * inputSize(config));
          if (k % 2 === 0) {
            const policy = new Float32Array(count * actionSize);
            await onnx.predict(x, count, policy, new Float32Array(count * numSeats));
            return gather(policy, actionSize, actions, count, width);
          }
          const policy = new Float32Array(count * width);
          await onnx.predictLegal(x, count, actions, width, policy, new Float32Array(count * numSeats));
          return policy;
        });
        const results = await Promise.all(calls);
        for (let k = 0; k < 4; k++) {
          const plain = await plainRun(session, config, input.subarray(k * inputSize(config)), count);
          expect(bits(results[k]!)).toEqual(bits(gather(plain.policy, actionSize, actions, count, width)));
        }
        await session.release();
        onnx.dispose();
      }
    });

    it('opens a checkpoint-style model.onnx path with the gather too', async () => {
      const config = LEGAL_RESNET;
      const path = join(dir, `model-${thread}.onnx`);
      await writeFile(path, graphs.get(config)!);
      const fromPath = await OnnxInferenceModel.create(path, config, { threads: 1, thread });
      const fromBytes = await OnnxInferenceModel.create(graphs.get(config)!, config, { threads: 1 });
      expect(fromPath.legalInGraph).toBe(true);
      const count = 9;
      const width = 14;
      const input = randomArray(count * inputSize(config), 41);
      // Views at an offset into larger arrays, as a caller's scratch buffers may be.
      const actions = new Int32Array(5 + count * width);
      actions.set(randomRows(config, count, width, 42), 5);
      const outs = [fromPath, fromBytes].map(() => ({ policy: new Float32Array(count * width), value: new Float32Array(count * 2) }));
      await fromPath.predictLegal(input, count, actions.subarray(5), width, outs[0]!.policy, outs[0]!.value);
      await fromBytes.predictLegal(input, count, actions.subarray(5), width, outs[1]!.policy, outs[1]!.value);
      expect(bits(outs[0]!.policy)).toEqual(bits(outs[1]!.policy));
      expect(bits(outs[0]!.value)).toEqual(bits(outs[1]!.value));
      const dense = new Float32Array(count * config.actionSize);
      await fromPath.predict(input, count, dense, new Float32Array(count * 2));
      expect(bits(outs[0]!.policy)).toEqual(bits(gather(dense, config.actionSize, actions.subarray(5), count, width)));
      fromPath.dispose();
      fromBytes.dispose();
      // A path that is not there still fails with onnxruntime's own words.
      await expect(OnnxInferenceModel.create(join(dir, 'missing.onnx'), config, { threads: 1, thread })).rejects.toThrow(/onnxruntime cannot open the network .*missing\.onnx/);
    });

    it('refuses bad arguments with clear errors, and works on afterwards', async () => {
      const config = LEGAL_MLP; // input 7, 300 actions, 3 seats
      const onnx = await OnnxInferenceModel.create(graphs.get(config)!, config, { threads: 1, thread });
      const count = 4;
      const width = 6;
      const input = randomArray(count * 7, 51);
      const actions = randomRows(config, count, width, 52);
      const policy = new Float32Array(count * width);
      const value = new Float32Array(count * 3);
      const call = (overrides: { input?: Float32Array; count?: number; actions?: Int32Array; width?: number; policy?: Float32Array; value?: Float32Array }): Promise<void> =>
        onnx.predictLegal(overrides.input ?? input, overrides.count ?? count, overrides.actions ?? actions, overrides.width ?? width, overrides.policy ?? policy, overrides.value ?? value);
      const bad = (index: number, action: number): Int32Array => {
        const a = actions.slice();
        a[index] = action;
        return a;
      };
      await expect(call({ input: input.subarray(1) })).rejects.toThrow(/predictLegal: input holds 27 floats but 4 positions need 28/);
      await expect(call({ actions: actions.subarray(0, 23) })).rejects.toThrow(/predictLegal: actions holds 23 indices but 4 positions of width 6 need 24/);
      await expect(call({ policy: new Float32Array(23) })).rejects.toThrow(/predictLegal: policyOut holds 23 floats but 4 positions of width 6 need 24/);
      await expect(call({ value: new Float32Array(11) })).rejects.toThrow(/predictLegal: valueOut holds 11 floats but 4 positions need 12/);
      await expect(call({ width: 0 })).rejects.toThrow(/predictLegal: width must be a positive integer \(got 0\)/);
      await expect(call({ width: 1.5 })).rejects.toThrow(/predictLegal: width must be a positive integer \(got 1.5\)/);
      await expect(call({ count: -1 })).rejects.toThrow(/predictLegal: count must be a non-negative integer/);
      await expect(call({ actions: Array.from(actions) as unknown as Int32Array })).rejects.toThrow(/predictLegal: actions must be an Int32Array/);
      await expect(call({ actions: bad(13, 300) })).rejects.toThrow(/predictLegal: actions\[13\] \(position 2\) is 300, not an action index in \[0, 300\)/);
      await expect(call({ actions: bad(0, -1) })).rejects.toThrow(/predictLegal: actions\[0\] \(position 0\) is -1, not an action index in \[0, 300\)/);
      await call({ count: 0 }); // nothing to do
      // Still works, with the right figures.
      await call({});
      const dense = new Float32Array(count * 300);
      await onnx.predict(input, count, dense, new Float32Array(count * 3));
      expect(bits(policy)).toEqual(bits(gather(dense, 300, actions, count, width)));
      onnx.dispose();
      await expect(call({})).rejects.toThrow(/predictLegal called after dispose/);
    });
  });

  it('reports an index onnxruntime refuses as a run error, without taking the process down', async () => {
    // predictLegal checks indices before running; this is onnxruntime's own guard behind that check.
    const ort = await import('onnxruntime-node');
    const config = LEGAL_MLP;
    const session = await ort.InferenceSession.create(withLegalGather(graphs.get(config)!, 'policy_logits'), { logSeverityLevel: 4 });
    const feeds = (action: number): Record<string, Ort.Tensor> => ({
      input: new ort.Tensor('float32', randomArray(7, 1), [1, 7]),
      [LEGAL_INPUT_NAME]: new ort.Tensor('int32', Int32Array.of(0, action), [1, 2]),
    });
    await expect(session.run(feeds(300), [LEGAL_OUTPUT_NAME])).rejects.toThrow(/GatherElements.*Out of range value in index tensor/);
    const out = await session.run(feeds(299), [LEGAL_OUTPUT_NAME]);
    expect(out[LEGAL_OUTPUT_NAME]!.dims).toEqual([1, 2]);
    await session.release();
  });

  it('accepts a graph that already has the gather', async () => {
    const config = LEGAL_MLP;
    const graph = withLegalGather(graphs.get(config)!, 'policy_logits');
    for (const thread of THREADS) {
      const onnx = await OnnxInferenceModel.create(graph, config, { threads: 1, thread });
      expect(onnx.legalInGraph).toBe(true);
      const actions = randomRows(config, 2, 3, 61);
      const policy = new Float32Array(6);
      const input = randomArray(14, 62);
      await onnx.predictLegal(input, 2, actions, 3, policy, new Float32Array(6));
      const dense = new Float32Array(600);
      await onnx.predict(input, 2, dense, new Float32Array(6));
      expect(bits(policy)).toEqual(bits(gather(dense, 300, actions, 2, 3)));
      onnx.dispose();
    }
  });

  it('falls back to the dense logits for a graph onnxruntime will not open with the gather (opset 10, before GatherElements)', async () => {
    // A hand-written linear network: policy = x W + b, value = tanh(x V + c).
    const config: NetworkConfig = { spec: { kind: 'mlp', hidden: [] }, inputShape: [3], actionSize: 6, numSeats: 2 };
    const graph = encodeOnnxModel({
      graphName: 'opset10',
      nodes: [
        { opType: 'Gemm', name: 'policy_gemm', inputs: ['input', 'W', 'b'], outputs: ['policy_logits'] },
        { opType: 'Gemm', name: 'value_gemm', inputs: ['input', 'V', 'c'], outputs: ['value_linear'] },
        { opType: 'Tanh', name: 'value_tanh', inputs: ['value_linear'], outputs: ['value'] },
      ],
      initializers: [
        { name: 'W', dims: [3, 6], values: randomArray(18, 71) },
        { name: 'b', dims: [6], values: randomArray(6, 72) },
        { name: 'V', dims: [3, 2], values: randomArray(6, 73) },
        { name: 'c', dims: [2], values: randomArray(2, 74) },
      ],
      inputs: [{ name: 'input', dims: ['batch', 3] }],
      outputs: [
        { name: 'policy_logits', dims: ['batch', 6] },
        { name: 'value', dims: ['batch', 2] },
      ],
      irVersion: 5,
      opsetVersion: 10,
      producerName: 'test',
      producerVersion: '1',
    });
    for (const thread of THREADS) {
      const onnx = await OnnxInferenceModel.create(graph, config, { threads: 1, thread });
      expect(onnx.legalInGraph).toBe(false);
      const input = randomArray(4 * 3, 75);
      const actions = Int32Array.of(0, 5, 5, 1, 2, 3, 4, 4, 4, 0, 1, 0);
      const policy = new Float32Array(12);
      const value = new Float32Array(8);
      await onnx.predictLegal(input, 4, actions, 3, policy, value);
      const dense = new Float32Array(24);
      const denseValue = new Float32Array(8);
      await onnx.predict(input, 4, dense, denseValue);
      expect(bits(policy)).toEqual(bits(gather(dense, 6, actions, 4, 3)));
      expect(bits(value)).toEqual(bits(denseValue));
      await expect(onnx.predictLegal(input, 4, Int32Array.of(6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 3, policy, value)).rejects.toThrow(/is 6, not an action index in \[0, 6\)/);
      onnx.dispose();
    }
  });
});

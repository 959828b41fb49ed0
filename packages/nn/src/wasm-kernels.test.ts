import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { buildModel } from './model.js';
import { tf } from './tf.js';
import { NetworkTrainer } from './training.js';
import { TINY_RESNET, randomArray, randomBatch, relativeError } from './test-nets.js';
import { leadingAxesCount, setFastWasmReductions, sumColumnsInto, tileInto, wasmTrainingKernelsRegistered } from './wasm-kernels.js';

type Shape4 = [number, number, number, number];

/** dL/dx and dL/dW of L = sum(conv2d(x, W) * r) on the given backend (r makes dy non-uniform). */
async function convGrads(
  backend: string,
  xShape: Shape4,
  wShape: Shape4,
  pad: 'same' | 'valid',
  seed: number
): Promise<[Float32Array, Float32Array]> {
  await tf.setBackend(backend);
  const size = (s: number[]): number => s.reduce((a, b) => a * b, 1);
  let result: [Float32Array, Float32Array] = [new Float32Array(0), new Float32Array(0)];
  tf.tidy(() => {
    const x = tf.tensor4d(randomArray(size(xShape), seed), xShape);
    const w = tf.tensor4d(randomArray(size(wShape), seed + 1), wShape);
    const outShape = tf.conv2d(x, w, 1, pad).shape;
    const r = tf.tensor(randomArray(size(outShape), seed + 2), outShape);
    const [dx, dw] = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 1, pad), r)))([x, w]);
    result = [dx.dataSync() as Float32Array, dw.dataSync() as Float32Array];
  });
  return result;
}

function wasmDataIds(): number {
  return (tf.backend() as BackendWasm).numDataIds();
}

describe('wasm training kernels', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('are registered when the wasm backend is initialised', () => {
    expect(wasmTrainingKernelsRegistered()).toBe(true);
    expect(tf.getKernel('Conv2DBackpropFilter', 'wasm')).toBeDefined();
  });

  const cases: { name: string; x: Shape4; w: Shape4; pad: 'same' | 'valid' }[] = [
    { name: '3x3 same, batch 2', x: [2, 5, 4, 3], w: [3, 3, 3, 4], pad: 'same' },
    { name: '3x3 valid, batch 3', x: [3, 6, 5, 2], w: [3, 3, 2, 5], pad: 'valid' },
    { name: '1x1 same, batch 4', x: [4, 4, 4, 6], w: [1, 1, 6, 2], pad: 'same' },
    { name: '1x1 valid, batch 1', x: [1, 3, 3, 4], w: [1, 1, 4, 3], pad: 'valid' },
    { name: '2x2 same (uneven padding)', x: [2, 5, 5, 3], w: [2, 2, 3, 2], pad: 'same' },
    { name: '3x3 same, chess-like 8x8x20 -> 8', x: [5, 8, 8, 20], w: [3, 3, 20, 8], pad: 'same' },
  ];
  for (const c of cases) {
    it(`conv2d gradients match the cpu backend: ${c.name}`, async () => {
      const [cpuDx, cpuDw] = await convGrads('cpu', c.x, c.w, c.pad, 11);
      const [wasmDx, wasmDw] = await convGrads('wasm', c.x, c.w, c.pad, 11);
      expect(relativeError(cpuDx, wasmDx)).toBeLessThan(1e-4);
      expect(relativeError(cpuDw, wasmDw)).toBeLessThan(1e-4);
    });
  }

  it('throws a clear error for strided filter gradients instead of computing garbage', async () => {
    await tf.setBackend('wasm');
    const x = tf.tensor4d(randomArray(2 * 6 * 6 * 2, 3), [2, 6, 6, 2]);
    const w = tf.tensor4d(randomArray(3 * 3 * 2 * 2, 4), [3, 3, 2, 2]);
    expect(() => tf.grad((b: tf.Tensor) => tf.sum(tf.conv2d(x, b as tf.Tensor4D, 2, 'same')))(w)).toThrow(/stride 1.*strides 2x2/);
    x.dispose();
    w.dispose();
  });

  it('falls back to the shipped kernel for strided input gradients', async () => {
    const grad = async (backend: string): Promise<Float32Array> => {
      await tf.setBackend(backend);
      return tf.tidy(() => {
        const x = tf.tensor4d(randomArray(2 * 6 * 6 * 2, 3), [2, 6, 6, 2]);
        const w = tf.tensor4d(randomArray(3 * 3 * 2 * 3, 4), [3, 3, 2, 3]);
        return tf
          .grad((a: tf.Tensor) => tf.sum(tf.square(tf.conv2d(a as tf.Tensor4D, w, 2, 'same'))))(x)
          .dataSync() as Float32Array;
      });
    };
    expect(relativeError(await grad('cpu'), await grad('wasm'))).toBeLessThan(1e-4);
  });

  it('leaves no tensors or wasm buffers behind', async () => {
    await convGrads('wasm', [2, 5, 4, 3], [3, 3, 3, 4], 'same', 1); // warm up (first-use allocations)
    const tensorsBefore = tf.memory().numTensors;
    const buffersBefore = wasmDataIds();
    await convGrads('wasm', [2, 5, 4, 3], [3, 3, 3, 4], 'same', 2);
    await convGrads('wasm', [2, 5, 4, 3], [3, 3, 3, 4], 'valid', 3);
    tf.tidy(() => tf.tile(tf.ones([1, 1, 3]), [2, 4, 1])).dispose();
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    expect(wasmDataIds()).toBe(buffersBefore);
  });

  it('tile matches the cpu backend for float32, int32 and bool', async () => {
    const cases: { shape: number[]; reps: number[]; dtype: 'float32' | 'int32' | 'bool' }[] = [
      { shape: [1, 1, 1, 5], reps: [3, 4, 2, 1], dtype: 'float32' },
      { shape: [2, 3], reps: [2, 3], dtype: 'float32' },
      { shape: [3, 1, 2], reps: [1, 4, 3], dtype: 'int32' },
      { shape: [4], reps: [3], dtype: 'bool' },
      { shape: [2, 2], reps: [1, 1], dtype: 'float32' },
    ];
    for (const c of cases) {
      const n = c.shape.reduce((a, b) => a * b, 1);
      const values = Array.from({ length: n }, (_, i) => (c.dtype === 'bool' ? i % 2 : i * 3 - 4));
      const results: number[][] = [];
      for (const backend of ['cpu', 'wasm']) {
        await tf.setBackend(backend);
        results.push(tf.tidy(() => Array.from(tf.tile(tf.tensor(values, c.shape, c.dtype), c.reps).dataSync())));
      }
      expect(results[1]).toEqual(results[0]);
    }
  });

  it('matMul with transposed operands matches the cpu backend, for 2-D and batched inputs, and frees its copies', async () => {
    const cases: { a: number[]; b: number[]; ta: boolean; tb: boolean }[] = [
      { a: [5, 3], b: [4, 3], ta: false, tb: true },
      { a: [3, 5], b: [3, 4], ta: true, tb: false },
      { a: [3, 5], b: [4, 3], ta: true, tb: true },
      { a: [2, 5, 3], b: [2, 4, 3], ta: false, tb: true },
      { a: [1, 6, 7], b: [1, 6, 2], ta: true, tb: false },
      { a: [4, 3], b: [3, 2], ta: false, tb: false },
    ];
    for (const c of cases) {
      const size = (s: number[]): number => s.reduce((x, y) => x * y, 1);
      const results: Float32Array[] = [];
      for (const backend of ['cpu', 'wasm']) {
        await tf.setBackend(backend);
        const tensorsBefore = tf.memory().numTensors;
        const buffersBefore = backend === 'wasm' ? wasmDataIds() : 0;
        results.push(
          tf.tidy(() => tf.matMul(tf.tensor(randomArray(size(c.a), 1), c.a), tf.tensor(randomArray(size(c.b), 2), c.b), c.ta, c.tb).dataSync() as Float32Array)
        );
        expect(tf.memory().numTensors).toBe(tensorsBefore);
        if (backend === 'wasm') expect(wasmDataIds()).toBe(buffersBefore);
      }
      expect(relativeError(results[0], results[1]), JSON.stringify(c)).toBeLessThan(1e-5);
    }
  });

  it('sum and mean match the cpu backend over leading axes (the fast path) and every other axis choice (shipped)', async () => {
    const cases: { shape: number[]; axis: number | number[] | undefined; keepDims: boolean }[] = [
      { shape: [16, 6, 7, 32], axis: [0, 1, 2], keepDims: false }, // batch-norm statistics and gradients
      { shape: [16, 6, 7, 32], axis: [2, 0, 1], keepDims: true },
      { shape: [16, 6, 7, 32], axis: [-4, -3], keepDims: false },
      { shape: [9, 5], axis: 0, keepDims: true },
      { shape: [9, 5], axis: -1, keepDims: false }, // trailing axis: shipped
      { shape: [4, 3, 2], axis: [1, 2], keepDims: false }, // not leading: shipped
      { shape: [4, 3, 2], axis: [0, 2], keepDims: true }, // not a run: shipped
      { shape: [4, 3, 2], axis: undefined, keepDims: false }, // all axes: shipped
      { shape: [0, 3], axis: 0, keepDims: false }, // nothing to add up
    ];
    for (const c of cases) {
      for (const op of ['sum', 'mean'] as const) {
        const size = c.shape.reduce((a, b) => a * b, 1);
        const results: { shape: number[]; values: Float32Array }[] = [];
        for (const backend of ['cpu', 'wasm']) {
          await tf.setBackend(backend);
          const buffersBefore = backend === 'wasm' ? wasmDataIds() : 0;
          results.push(
            tf.tidy(() => {
              const x = tf.tensor(randomArray(size, 3), c.shape);
              const y = op === 'sum' ? tf.sum(x, c.axis, c.keepDims) : tf.mean(x, c.axis, c.keepDims);
              return { shape: y.shape, values: y.dataSync() as Float32Array };
            }),
          );
          if (backend === 'wasm') expect(wasmDataIds()).toBe(buffersBefore);
        }
        const label = `${op} ${JSON.stringify(c)}`;
        expect(results[1].shape, label).toEqual(results[0].shape);
        if (size === 0 && op === 'mean') continue; // 0 / 0 on both
        expect(relativeError(results[0].values, results[1].values), label).toBeLessThan(1e-5);
      }
    }
  });

  it('setFastWasmReductions switches Sum and Mean between ours and the shipped kernels, same results either way', async () => {
    await tf.setBackend('wasm');
    const x = tf.tensor(randomArray(8 * 3 * 4 * 5, 9), [8, 3, 4, 5]);
    const reduce = (): Float32Array[] => [tf.sum(x, [0, 1, 2]), tf.mean(x, [0, 1])].map((t) => {
      const v = t.dataSync() as Float32Array;
      t.dispose();
      return v;
    });
    const ours = reduce();
    const oursKernel = tf.getKernel('Sum', 'wasm')?.kernelFunc;
    try {
      setFastWasmReductions(false);
      expect(tf.getKernel('Sum', 'wasm')?.kernelFunc).not.toBe(oursKernel);
      const shipped = reduce();
      for (let i = 0; i < 2; i++) expect(relativeError(shipped[i], ours[i])).toBeLessThan(1e-5);
    } finally {
      setFastWasmReductions(true);
      x.dispose();
    }
  });

  it('leadingAxesCount takes only a run of leading axes that leaves one; sumColumnsInto adds up columns past the unrolled rows', () => {
    expect(leadingAxesCount([2, 3, 4, 5], [0, 1, 2])).toBe(3);
    expect(leadingAxesCount([2, 3, 4, 5], [1, 0])).toBe(2);
    expect(leadingAxesCount([2, 3, 4, 5], -4)).toBe(1);
    expect(leadingAxesCount([2, 3, 4, 5], [0, 0, 1])).toBe(2);
    expect(leadingAxesCount([2, 3, 4, 5], [0, 1, 2, 3])).toBeNull();
    expect(leadingAxesCount([2, 3, 4, 5], [1, 2])).toBeNull();
    expect(leadingAxesCount([2, 3, 4, 5], [])).toBeNull();
    expect(leadingAxesCount([2, 3, 4, 5], undefined)).toBeNull();
    // 11 rows: one block of eight, then three one by one.
    const rows = 11;
    const src = Float32Array.from({ length: rows * 3 }, (_, i) => (i % 3) * 100 + Math.floor(i / 3));
    const dst = new Float32Array(3);
    sumColumnsInto(src, rows, 3, 0.5, dst);
    expect([...dst]).toEqual([27.5, 577.5, 1127.5]);
  });

  it('tileInto handles scalars and zero-size outputs', () => {
    const out = new Float32Array(1);
    tileInto(new Float32Array([7]), [], [], out);
    expect(out[0]).toBe(7);
    const big = new Float32Array(12);
    tileInto(new Float32Array([1, 2]), [1, 2], [3, 2], big);
    expect(Array.from(big)).toEqual([1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
  });

  it('gradients of a conv + batch-norm network match the cpu backend', async () => {
    await tf.setBackend('cpu');
    const model = buildModel(TINY_RESNET, { seed: 5 });
    const batch = randomBatch(TINY_RESNET, 3, 6);
    const vars = model.trainableWeights.map((w) => w.read() as tf.Variable);
    const gradsOn = async (backend: string): Promise<Map<string, Float32Array>> => {
      await tf.setBackend(backend);
      const out = new Map<string, Float32Array>();
      tf.tidy(() => {
        const x = tf.tensor(batch.inputs, [3, ...TINY_RESNET.inputShape]);
        const r = tf.tensor(randomArray(3 * TINY_RESNET.actionSize, 8), [3, TINY_RESNET.actionSize]);
        const { grads } = tf.variableGrads(() => {
          const [p, v] = model.apply(x, { training: true }) as tf.Tensor[];
          return tf.add(tf.sum(tf.mul(p, r)), tf.sum(tf.square(v))) as tf.Scalar;
        }, vars);
        for (const v of vars) out.set(v.name, grads[v.name].dataSync() as Float32Array);
      });
      return out;
    };
    const cpu = await gradsOn('cpu');
    const wasm = await gradsOn('wasm');
    expect(cpu.size).toBe(vars.length);
    for (const [name, g] of cpu) expect(relativeError(g, wasm.get(name) as Float32Array), name).toBeLessThan(1e-4);
    model.dispose();
  });

  it('trains a small conv net on wasm', async () => {
    await tf.setBackend('wasm');
    const model = buildModel(TINY_RESNET, { seed: 9 });
    const trainer = new NetworkTrainer(model, TINY_RESNET, { learningRate: 1e-2 });
    const batch = randomBatch(TINY_RESNET, 8, 10);
    const tensorsBefore = tf.memory().numTensors;
    const first = trainer.trainBatch(batch.inputs, batch.policyTargets, batch.valueTargets, batch.count);
    let last = first;
    for (let i = 0; i < 15; i++) last = trainer.trainBatch(batch.inputs, batch.policyTargets, batch.valueTargets, batch.count);
    expect(Number.isFinite(last.total)).toBe(true);
    expect(last.total).toBeLessThan(first.total);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    trainer.dispose();
    model.dispose();
  });
});

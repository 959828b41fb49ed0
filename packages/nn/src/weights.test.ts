import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { buildModel } from './model.js';
import { tf } from './tf.js';
import { foldWeightsAverage, loadWeightsInto, serializeWeights, weightsByteLength, WeightsMismatchError } from './weights.js';
import { TINY_MLP, TINY_RESNET, randomArray } from './test-nets.js';

function predictions(model: tf.LayersModel, input: Float32Array, shape: number[]): Float32Array[] {
  return tf.tidy(() => (model.predict(tf.tensor(input, shape)) as tf.Tensor[]).map((t) => t.dataSync() as Float32Array));
}

describe('weights transport', () => {
  // cpu: the backend that keeps the arrays it is given, so aliasing bugs would show here.
  beforeAll(async () => {
    await initBackend('cpu');
  });

  it('round-trips every weight (including batch-norm statistics) through one transferable buffer', () => {
    const source = buildModel(TINY_RESNET, { seed: 1 });
    // Non-default moving statistics, so they are known to travel too.
    const bn = source.getLayer('stem_bn');
    bn.setWeights(bn.getWeights().map((w, i) => (i >= 2 ? tf.fill(w.shape, 0.5 + i) : w)));
    const serialized = serializeWeights(source);
    expect(serialized.specs).toHaveLength(source.weights.length);
    expect(serialized.specs[0]).toEqual({ name: 'stem_conv/kernel', shape: [3, 3, 2, 4] });
    expect(serialized.data.byteLength).toBe(weightsByteLength(source));

    // As a worker or child process would receive it: a structured clone with the buffer transferred.
    const received = structuredClone(serialized, { transfer: [serialized.data] });
    const target = buildModel(TINY_RESNET, { seed: 2 });
    const input = randomArray(3 * 18, 5);
    expect(predictions(target, input, [3, 3, 3, 2])[0]).not.toEqual(predictions(source, input, [3, 3, 3, 2])[0]);
    const tensorsBefore = tf.memory().numTensors;
    loadWeightsInto(target, received);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    expect(predictions(target, input, [3, 3, 3, 2])).toEqual(predictions(source, input, [3, 3, 3, 2]));
    expect(new Float32Array(serializeWeights(target).data)).toEqual(new Float32Array(received.data));

    // The model copied the values: scribbling on the buffer afterwards changes nothing.
    const snapshot = predictions(target, input, [3, 3, 3, 2]);
    new Float32Array(received.data).fill(42);
    expect(predictions(target, input, [3, 3, 3, 2])).toEqual(snapshot);
    source.dispose();
    target.dispose();
  });

  it('refuses weights of another architecture without changing the model', () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const before = new Float32Array(serializeWeights(model).data);
    const wider = buildModel({ ...TINY_MLP, spec: { kind: 'mlp', hidden: [9, 6] } }, { seed: 1 });
    const shallower = buildModel({ ...TINY_MLP, spec: { kind: 'mlp', hidden: [8] } }, { seed: 1 });
    const resnet = buildModel(TINY_RESNET, { seed: 1 });
    expect(() => loadWeightsInto(model, serializeWeights(wider))).toThrow(/'dense_0\/kernel' has shape \[5, 9\] but the model's is \[5, 8\]/);
    expect(() => loadWeightsInto(model, serializeWeights(shallower))).toThrow(/got 6 weights but the model has 8/);
    expect(() => loadWeightsInto(model, serializeWeights(resnet))).toThrow(WeightsMismatchError);
    const good = serializeWeights(model);
    expect(() => loadWeightsInto(model, { specs: good.specs, data: good.data.slice(4) })).toThrow(/bytes but the specs need/);
    expect(new Float32Array(serializeWeights(model).data)).toEqual(before);
    for (const m of [model, wider, shallower, resnet]) m.dispose();
  });

  it('folds a trained model into a moving average, weight by weight, batch-norm statistics included', () => {
    const average = buildModel(TINY_RESNET, { seed: 1 });
    const trained = buildModel(TINY_RESNET, { seed: 2 });
    const bn = trained.getLayer('stem_bn');
    bn.setWeights(bn.getWeights().map((w, i) => (i >= 2 ? tf.fill(w.shape, 0.5 + i) : w)));
    const a = new Float32Array(serializeWeights(average).data);
    const t = new Float32Array(serializeWeights(trained).data);
    foldWeightsAverage(average, trained, 0.75);
    const folded = new Float32Array(serializeWeights(average).data);
    for (let i = 0; i < folded.length; i++) expect(folded[i]).toBeCloseTo(0.75 * a[i] + 0.25 * t[i], 6);
    // decay 0 copies the trained weights exactly; the trained model is never touched.
    foldWeightsAverage(average, trained, 0);
    expect(new Float32Array(serializeWeights(average).data)).toEqual(t);
    expect(new Float32Array(serializeWeights(trained).data)).toEqual(t);
    expect(() => foldWeightsAverage(average, trained, 1)).toThrow(/decay must be in \[0, 1\), got 1/);
    const mlp = buildModel(TINY_MLP, { seed: 1 });
    expect(() => foldWeightsAverage(average, mlp, 0.5)).toThrow(WeightsMismatchError);
    expect(new Float32Array(serializeWeights(average).data)).toEqual(t);
    for (const m of [average, trained, mlp]) m.dispose();
  });
});

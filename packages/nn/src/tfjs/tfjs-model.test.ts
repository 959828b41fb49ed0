import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../backend.js';
import { buildModel } from '../model.js';
import { tf } from '../tf.js';
import { createInferenceModel, ModelShapeError } from './tfjs-model.js';
import { TINY_MLP, TINY_RESNET, randomArray } from '../test-nets.js';

describe('TfjsInferenceModel', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  for (const config of [TINY_MLP, TINY_RESNET]) {
    it(`writes the model's outputs into the caller's buffers (${config.spec.kind})`, async () => {
      const model = buildModel(config, { seed: 3 });
      const inference = createInferenceModel(model, config);
      expect(inference.backendName).toBe('wasm');
      const count = 5;
      const inputSize = config.inputShape.reduce((a, b) => a * b, 1);
      const input = randomArray(count * inputSize + 7, 4); // longer than needed: only count positions are read
      const policy = new Float32Array(count * config.actionSize);
      const value = new Float32Array(count * config.numSeats);
      await inference.predict(input, count, policy, value);
      const [expectedPolicy, expectedValue] = tf.tidy(() =>
        (model.predict(tf.tensor(input.subarray(0, count * inputSize), [count, ...config.inputShape])) as tf.Tensor[]).map(
          (t) => t.dataSync() as Float32Array
        )
      );
      expect(policy).toEqual(expectedPolicy);
      expect(value).toEqual(expectedValue);

      // Each position alone gives the same answer as in the batch (inference-mode batch norm).
      const onePolicy = new Float32Array(config.actionSize);
      const oneValue = new Float32Array(config.numSeats);
      for (let i = 0; i < count; i++) {
        await inference.predict(input.subarray(i * inputSize), 1, onePolicy, oneValue);
        for (let a = 0; a < config.actionSize; a++) expect(onePolicy[a]).toBeCloseTo(policy[i * config.actionSize + a], 5);
        for (let s = 0; s < config.numSeats; s++) expect(oneValue[s]).toBeCloseTo(value[i * config.numSeats + s], 5);
      }
      inference.dispose();
    });
  }

  it('keeps no tensors and no reference to the caller buffers between calls', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const inference = createInferenceModel(model, TINY_MLP);
    const input = randomArray(2 * 5, 9);
    const policy = new Float32Array(2 * 4);
    const value = new Float32Array(2 * 2);
    await inference.predict(input, 2, policy, value); // warm up
    const before = tf.memory().numTensors;
    await inference.predict(input, 2, policy, value);
    const firstPolicy = policy.slice();
    input.fill(0); // reusing the input buffer must not change earlier answers
    expect(policy).toEqual(firstPolicy);
    await inference.predict(input, 2, policy, value);
    expect(policy).not.toEqual(firstPolicy);
    expect(tf.memory().numTensors).toBe(before);
    inference.dispose();
    expect(tf.memory().numTensors).toBeLessThan(before);
  });

  it('does nothing for count 0 and rejects buffers that are too small', async () => {
    const inference = createInferenceModel(buildModel(TINY_MLP, { seed: 1 }), TINY_MLP);
    await inference.predict(new Float32Array(0), 0, new Float32Array(0), new Float32Array(0));
    await expect(inference.predict(new Float32Array(9), 2, new Float32Array(8), new Float32Array(4))).rejects.toThrow(
      /input holds 9 floats but 2 positions need 10/
    );
    await expect(inference.predict(new Float32Array(10), 2, new Float32Array(7), new Float32Array(4))).rejects.toThrow(/policyOut/);
    await expect(inference.predict(new Float32Array(10), 2, new Float32Array(8), new Float32Array(3))).rejects.toThrow(/valueOut/);
    inference.dispose();
    await expect(inference.predict(new Float32Array(10), 2, new Float32Array(8), new Float32Array(4))).rejects.toThrow(/after dispose/);
  });

  it('leaves a shared model alone on dispose when it does not own it', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    createInferenceModel(model, TINY_MLP, { ownsModel: false }).dispose();
    const again = createInferenceModel(model, TINY_MLP);
    await again.predict(new Float32Array(5), 1, new Float32Array(4), new Float32Array(2));
    again.dispose();
  });

  it('refuses a model that does not fit the config', () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    expect(() => createInferenceModel(model, { ...TINY_MLP, actionSize: 5 })).toThrow(ModelShapeError);
    expect(() => createInferenceModel(model, { ...TINY_MLP, numSeats: 3 })).toThrow(/numSeats 3/);
    expect(() => createInferenceModel(model, { ...TINY_MLP, inputShape: [6] })).toThrow(/input shape/);
    model.dispose();
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { buildModel, countParameters, networkWeightShapes, NetworkConfigError } from './model.js';
import type { NetworkConfig } from '@az/core';
import { tf } from './tf.js';
import { serializeWeights } from './weights.js';
import { TINY_MLP, TINY_RESNET } from './test-nets.js';

describe('buildModel', () => {
  beforeAll(async () => {
    await initBackend('cpu');
  });

  it('builds an MLP with stable layer names and [policy, value] outputs', () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    expect(model.layers.map((l) => l.name)).toEqual(['input', 'dense_0', 'dense_1', 'policy_logits', 'value']);
    expect(model.outputs.map((o) => o.shape)).toEqual([
      [null, 4],
      [null, 2],
    ]);
    model.dispose();
    const flat = buildModel({ ...TINY_MLP, inputShape: [3, 3, 3] });
    expect(flat.layers[1].name).toBe('flatten');
    flat.dispose();
  });

  it('builds a ResNet whose weight names are the same on every build', () => {
    const first = buildModel(TINY_RESNET, { seed: 1 });
    const second = buildModel(TINY_RESNET, { seed: 1 });
    const names = first.weights.map((w) => w.originalName);
    expect(second.weights.map((w) => w.originalName)).toEqual(names);
    expect([...names].sort()).toEqual(
      [
        'stem_conv/kernel',
        'stem_bn/gamma',
        'stem_bn/beta',
        'stem_bn/moving_mean',
        'stem_bn/moving_variance',
        'block0_conv1/kernel',
        'block0_bn1/gamma',
        'block0_bn1/beta',
        'block0_bn1/moving_mean',
        'block0_bn1/moving_variance',
        'block0_conv2/kernel',
        'block0_bn2/gamma',
        'block0_bn2/beta',
        'block0_bn2/moving_mean',
        'block0_bn2/moving_variance',
        'policy_conv/kernel',
        'policy_bn/gamma',
        'policy_bn/beta',
        'policy_bn/moving_mean',
        'policy_bn/moving_variance',
        'value_conv/kernel',
        'value_bn/gamma',
        'value_bn/beta',
        'value_bn/moving_mean',
        'value_bn/moving_variance',
        'policy_logits/kernel',
        'policy_logits/bias',
        'value_dense/kernel',
        'value_dense/bias',
        'value/kernel',
        'value/bias',
      ].sort()
    );
    expect(first.getLayer('policy_conv').getWeights()[0].shape).toEqual([1, 1, 4, 2]);
    expect(first.getLayer('value_dense').getWeights()[0].shape).toEqual([3 * 3 * 2, 6]);
    first.dispose();
    second.dispose();
  });

  it("pools the value head over the board with valueHead 'pool' (same weight names, one dense row per channel)", () => {
    const config: NetworkConfig = { ...TINY_RESNET, spec: { ...TINY_RESNET.spec, valueHead: 'pool' } as NetworkConfig['spec'] };
    const pooled = buildModel(config, { seed: 1 });
    const flat = buildModel(TINY_RESNET, { seed: 1 });
    expect(pooled.getLayer('value_pool').getClassName()).toBe('GlobalAveragePooling2D');
    expect(pooled.weights.map((w) => w.originalName)).toEqual(flat.weights.map((w) => w.originalName));
    expect(pooled.getLayer('value_dense').getWeights()[0].shape).toEqual([2, 6]);
    pooled.dispose();
    flat.dispose();
    const bad = { ...TINY_RESNET, spec: { ...TINY_RESNET.spec, valueHead: 'max' } } as unknown as NetworkConfig;
    expect(() => buildModel(bad)).toThrow(NetworkConfigError);
    expect(() => buildModel(bad)).toThrow(/valueHead must be 'flatten' or 'pool'/);
  });

  it('gives identical weights for the same seed and different ones for another', () => {
    const a = buildModel(TINY_RESNET, { seed: 7 });
    const b = buildModel(TINY_RESNET, { seed: 7 });
    const c = buildModel(TINY_RESNET, { seed: 8 });
    const wa = new Float32Array(serializeWeights(a).data);
    expect(new Float32Array(serializeWeights(b).data)).toEqual(wa);
    expect(new Float32Array(serializeWeights(c).data)).not.toEqual(wa);
    for (const m of [a, b, c]) m.dispose();
  });

  it('outputs values in (-1, 1) for every seat', () => {
    const model = buildModel(TINY_RESNET, { seed: 2 });
    const [policy, value] = tf.tidy(() =>
      (model.predict(tf.randomNormal([4, 3, 3, 2], 0, 3, 'float32', 1)) as tf.Tensor[]).map((t) => t.arraySync() as number[][])
    );
    expect(policy).toHaveLength(4);
    expect(policy[0]).toHaveLength(5);
    for (const row of value) for (const v of row) expect(Math.abs(v)).toBeLessThan(1);
    model.dispose();
  });

  it('builds the chess-sized net with the expected parameter count', () => {
    const chess: NetworkConfig = { spec: { kind: 'resnet', filters: 64, blocks: 4 }, inputShape: [8, 8, 20], actionSize: 4672, numSeats: 2 };
    const model = buildModel(chess, { seed: 1 });
    expect(countParameters(model)).toBe(928_410);
    model.dispose();
  });

  it('rejects configs it cannot build, naming the problem', () => {
    expect(() => buildModel({ ...TINY_RESNET, inputShape: [18] })).toThrow(NetworkConfigError);
    expect(() => buildModel({ ...TINY_RESNET, inputShape: [18] })).toThrow(/rank 3/);
    expect(() => buildModel({ ...TINY_MLP, actionSize: 0 })).toThrow(/actionSize/);
    expect(() => buildModel({ ...TINY_MLP, spec: { kind: 'mlp', hidden: [4, 2.5] } })).toThrow(/hidden\[1\]/);
  });

  it('networkWeightShapes lists exactly the weights buildModel makes, for every kind of network', () => {
    const configs: NetworkConfig[] = [
      TINY_MLP,
      { ...TINY_MLP, spec: { kind: 'mlp', hidden: [] }, inputShape: [2, 3] },
      TINY_RESNET,
      { ...TINY_RESNET, spec: { kind: 'resnet', filters: 3, blocks: 0, valueHead: 'pool' } },
      { ...TINY_RESNET, spec: { kind: 'resnet', filters: 2, blocks: 2 }, inputShape: [4, 2, 3] },
    ];
    for (const config of configs) {
      const model = buildModel(config, { seed: 1 });
      const built = new Map(model.weights.map((w) => [w.originalName, [...w.shape]]));
      expect(new Map([...networkWeightShapes(config)].map(([name, shape]) => [name, [...shape]])), JSON.stringify(config.spec)).toEqual(built);
      model.dispose();
    }
    expect(() => networkWeightShapes({ ...TINY_MLP, actionSize: -1 })).toThrow(NetworkConfigError);
  });
});

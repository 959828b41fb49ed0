import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { buildModel } from './model.js';
import { tf } from './tf.js';
import { NetworkTrainer, OptimizerStateError } from './training.js';
import { loadWeightsInto, serializeWeights } from './weights.js';
import { TINY_MLP, TINY_RESNET, randomBatch, relativeError } from './test-nets.js';

function weightsOf(model: tf.LayersModel): Float32Array {
  return new Float32Array(serializeWeights(model).data);
}

describe('NetworkTrainer', () => {
  beforeAll(async () => {
    await initBackend('wasm');
  });

  it('computes cross-entropy, mean squared error and weight decay as documented', () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { weightDecay: 0.01 });
    const b = randomBatch(TINY_MLP, 6, 2);
    const [logits, values] = tf.tidy(() => (model.predict(tf.tensor(b.inputs, [6, 5])) as tf.Tensor[]).map((t) => Array.from(t.dataSync())));
    let policyLoss = 0;
    let valueLoss = 0;
    for (let i = 0; i < 6; i++) {
      const row = logits.slice(i * 4, i * 4 + 4);
      const max = Math.max(...row);
      const logSum = Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0)) + max;
      for (let a = 0; a < 4; a++) policyLoss -= (b.policyTargets[i * 4 + a] * (row[a] - logSum)) / 6;
      for (let s = 0; s < 2; s++) valueLoss += (values[i * 2 + s] - b.valueTargets[i * 2 + s]) ** 2 / 12;
    }
    let squares = 0;
    for (const w of model.trainableWeights)
      if (w.originalName.endsWith('/kernel')) squares += tf.tidy(() => tf.sum(tf.square(w.read())).dataSync()[0]);

    const evaluated = trainer.evaluateBatch(b.inputs, b.policyTargets, b.valueTargets, 6);
    expect(evaluated.policyLoss).toBeCloseTo(policyLoss, 5);
    expect(evaluated.valueLoss).toBeCloseTo(valueLoss, 5);
    expect(evaluated.l2).toBeCloseTo(0.01 * squares, 6);
    expect(evaluated.total).toBeCloseTo(policyLoss + valueLoss + 0.01 * squares, 5);
    // trainBatch reports the loss before its step (no batch norm in an MLP, so the same numbers).
    const trained = trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 6);
    expect(trained.total).toBeCloseTo(evaluated.total, 5);
    expect(trainer.evaluateBatch(b.inputs, b.policyTargets, b.valueTargets, 6).total).toBeLessThan(evaluated.total);
    trainer.dispose();
    model.dispose();
  });

  it('averages the policy loss over the rows that have a policy target: value-only rows do not dilute it', () => {
    const model = buildModel(TINY_MLP, { seed: 3 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { weightDecay: 0 });
    const b = randomBatch(TINY_MLP, 6, 5);
    const full = trainer.evaluateBatch(b.inputs, b.policyTargets, b.valueTargets, 6);
    // The first four rows alone, then the same four with rows 5 and 6 made value-only (no policy target).
    const firstFour = trainer.evaluateBatch(b.inputs.subarray(0, 4 * 5), b.policyTargets.subarray(0, 4 * 4), b.valueTargets.subarray(0, 4 * 2), 4);
    const valueOnly = Float32Array.from(b.policyTargets);
    valueOnly.fill(0, 4 * 4);
    const mixed = trainer.evaluateBatch(b.inputs, valueOnly, b.valueTargets, 6);
    expect(mixed.policyLoss).toBeCloseTo(firstFour.policyLoss, 5);
    expect(mixed.policyLoss).not.toBeCloseTo((firstFour.policyLoss * 4) / 6, 2);
    // The value loss still counts all six rows.
    expect(mixed.valueLoss).toBeCloseTo(full.valueLoss, 6);
    trainer.dispose();
    model.dispose();
  });

  it('with a legal mask, takes the softmax over legal actions only, and leaves illegal logits untouched', () => {
    const model = buildModel(TINY_MLP, { seed: 2 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { weightDecay: 0 });
    const b = randomBatch(TINY_MLP, 6, 3);
    // Actions 0 and 2 legal in even rows, 1, 2 and 3 in odd rows; targets only on legal actions.
    const mask = new Float32Array(6 * 4);
    const targets = new Float32Array(6 * 4);
    for (let i = 0; i < 6; i++) {
      const legal = i % 2 === 0 ? [0, 2] : [1, 2, 3];
      for (const a of legal) mask[i * 4 + a] = 1;
      legal.forEach((a, k) => (targets[i * 4 + a] = (k + 1) / ((legal.length * (legal.length + 1)) / 2)));
    }
    const logits = tf.tidy(() => Array.from((model.predict(tf.tensor(b.inputs, [6, 5])) as tf.Tensor[])[0].dataSync()));
    let expected = 0;
    for (let i = 0; i < 6; i++) {
      const legal = [0, 1, 2, 3].filter((a) => mask[i * 4 + a] === 1);
      const logSum = Math.log(legal.reduce((sum, a) => sum + Math.exp(logits[i * 4 + a]), 0));
      for (const a of legal) expected -= (targets[i * 4 + a] * (logits[i * 4 + a] - logSum)) / 6;
    }
    const masked = trainer.evaluateBatch(b.inputs, targets, b.valueTargets, 6, mask);
    expect(masked.policyLoss).toBeCloseTo(expected, 5);
    // Unmasked, the illegal actions share the softmax: a larger loss for the same targets.
    expect(trainer.evaluateBatch(b.inputs, targets, b.valueTargets, 6).policyLoss).toBeGreaterThan(masked.policyLoss + 1e-3);
    // A masked step moves no logit of an action illegal in every row: here none is, so compare gradients
    // through a row where action 1 is illegal: training only on even rows leaves action 1's output bias alone.
    const even = [0, 2, 4];
    const pick = (src: Float32Array, width: number): Float32Array => Float32Array.from(even.flatMap((i) => Array.from(src.subarray(i * width, (i + 1) * width))));
    const policyBias = (): number[] => {
      const bias = model.trainableWeights.filter((w) => w.originalName.endsWith('/bias')).map((w) => w.read()).find((t) => t.shape[0] === 4);
      return Array.from(bias!.dataSync());
    };
    const before = policyBias();
    trainer.trainBatch(pick(b.inputs, 5), pick(targets, 4), pick(b.valueTargets, 2), 3, pick(mask, 4));
    const after = policyBias();
    expect(after[1]).toBe(before[1]);
    expect(after[3]).toBe(before[3]);
    expect(after[0]).not.toBe(before[0]);
    expect(() => trainer.trainBatch(b.inputs, targets, b.valueTargets, 6, new Float32Array(5))).toThrow(/legalMask holds 5 floats/);
    trainer.dispose();
    model.dispose();
  });

  it('flushes subnormal weights to zero (they would make every later step and inference slow)', () => {
    const model = buildModel(TINY_MLP, { seed: 4 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { weightDecay: 0 });
    const b = randomBatch(TINY_MLP, 6, 5);
    const policyKernel = model.trainableWeights.find((w) => w.originalName.endsWith('/kernel') && w.shape[w.shape.length - 1] === 4)!;
    const kernel = Array.from(policyKernel.read().dataSync());
    // Action 3's column: subnormal weights; the mask makes action 3 illegal everywhere, so no gradient reaches it.
    for (let r = 3; r < kernel.length; r += 4) kernel[r] = 1e-39;
    policyKernel.write(tf.tensor(kernel, policyKernel.read().shape));
    const mask = new Float32Array(6 * 4);
    const targets = new Float32Array(6 * 4);
    for (let i = 0; i < 6; i++) {
      mask.set([1, 1, 1, 0], i * 4);
      targets.set([0.5, 0.25, 0.25, 0], i * 4);
    }
    trainer.trainBatch(b.inputs, targets, b.valueTargets, 6, mask);
    const after = policyKernel.read().dataSync();
    for (let r = 3; r < after.length; r += 4) expect(after[r]).toBe(0);
    // The legal actions' weights did train.
    expect([0, 1, 2].some((a) => after.some((x, r) => r % 4 === a && x !== kernel[r]))).toBe(true);
    trainer.dispose();
    model.dispose();
  });

  it('takes the same steps as tf.train.adam', () => {
    const config = TINY_MLP;
    const ours = buildModel(config, { seed: 4 });
    const reference = buildModel(config, { seed: 4 });
    const b = randomBatch(config, 8, 5);
    const trainer = new NetworkTrainer(ours, config, { learningRate: 0.01, weightDecay: 0 });
    const adam = tf.train.adam(0.01);
    for (let step = 0; step < 3; step++) {
      trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 8);
      tf.tidy(() => {
        const x = tf.tensor(b.inputs, [8, 5]);
        const pt = tf.tensor(b.policyTargets, [8, 4]);
        const vt = tf.tensor(b.valueTargets, [8, 2]);
        adam.minimize(() => {
          const [p, v] = reference.apply(x, { training: true }) as tf.Tensor[];
          const policyLoss = tf.neg(tf.mean(tf.sum(tf.mul(pt, tf.logSoftmax(p)), -1)));
          return tf.add(policyLoss, tf.mean(tf.squaredDifference(v, vt))) as tf.Scalar;
        });
      });
    }
    expect(relativeError(weightsOf(reference), weightsOf(ours))).toBeLessThan(1e-5);
    adam.dispose();
    trainer.dispose();
    ours.dispose();
    reference.dispose();
  });

  it('resumes from a saved optimizer state exactly', () => {
    const b = randomBatch(TINY_RESNET, 4, 8);
    const a = buildModel(TINY_RESNET, { seed: 1 });
    const trainerA = new NetworkTrainer(a, TINY_RESNET, { learningRate: 3e-3 });
    for (let i = 0; i < 3; i++) trainerA.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    const state = trainerA.getOptimizerState();
    expect(state.step).toBe(3);
    expect(state.variables.map((v) => v.name)).toEqual(a.trainableWeights.map((w) => w.originalName));

    const resumed = buildModel(TINY_RESNET, { seed: 99 });
    loadWeightsInto(resumed, serializeWeights(a));
    const trainerB = new NetworkTrainer(resumed, TINY_RESNET);
    trainerB.setOptimizerState(state);
    expect(trainerB.step).toBe(3);
    expect(trainerB.learningRate).toBe(3e-3);

    const before = tf.memory().numTensors;
    const lossA = trainerA.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    const lossB = trainerB.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(lossB).toEqual(lossA);
    expect(weightsOf(resumed)).toEqual(weightsOf(a));
    expect(tf.memory().numTensors).toBe(before);

    // Without the state (fresh moments, step 1) the same step lands elsewhere: the state mattered.
    const fresh = buildModel(TINY_RESNET, { seed: 99 });
    loadWeightsInto(fresh, serializeWeights(a));
    const trainerC = new NetworkTrainer(fresh, TINY_RESNET, { learningRate: 3e-3 });
    trainerA.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    trainerC.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(weightsOf(fresh)).not.toEqual(weightsOf(a));
    for (const m of [a, resumed, fresh]) m.dispose();
    for (const t of [trainerA, trainerB, trainerC]) t.dispose();
  });

  it('refuses an optimizer state for another architecture', () => {
    const mlp = buildModel(TINY_MLP, { seed: 1 });
    const wider = buildModel({ ...TINY_MLP, spec: { kind: 'mlp', hidden: [9, 6] } }, { seed: 1 });
    const state = new NetworkTrainer(mlp, TINY_MLP).getOptimizerState();
    const trainer = new NetworkTrainer(wider, TINY_MLP);
    expect(() => trainer.setOptimizerState(state)).toThrow(OptimizerStateError);
    expect(() => trainer.setOptimizerState(state)).toThrow(/dense_0\/kernel/);
    expect(() => trainer.setOptimizerState({ ...state, variables: trainer.getOptimizerState().variables })).toThrow(/bytes/);
    mlp.dispose();
    wider.dispose();
  });

  it('uses the learning rate set between steps', () => {
    const model = buildModel(TINY_MLP, { seed: 2 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { learningRate: 0 });
    const b = randomBatch(TINY_MLP, 4, 3);
    const initial = weightsOf(model);
    trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(weightsOf(model)).toEqual(initial);
    trainer.learningRate = 0.05;
    trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(weightsOf(model)).not.toEqual(initial);
    trainer.dispose();
    model.dispose();
  });

  it('updates batch-norm moving statistics when training, not when evaluating', () => {
    const model = buildModel(TINY_RESNET, { seed: 3 });
    const trainer = new NetworkTrainer(model, TINY_RESNET, { learningRate: 0 });
    const b = randomBatch(TINY_RESNET, 4, 4);
    const movingMean = (): number[] => Array.from(model.getLayer('stem_bn').getWeights()[2].dataSync());
    const initial = movingMean();
    expect(initial.every((v) => v === 0)).toBe(true);
    trainer.evaluateBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(movingMean()).toEqual(initial);
    trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4);
    expect(movingMean().some((v) => v !== 0)).toBe(true);
    trainer.dispose();
    model.dispose();
  });

  it('learns a fixed batch and rejects short buffers', () => {
    const model = buildModel(TINY_MLP, { seed: 5 });
    const trainer = new NetworkTrainer(model, TINY_MLP, { learningRate: 0.03 });
    const b = randomBatch(TINY_MLP, 16, 6);
    const first = trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 16);
    let last = first;
    for (let i = 0; i < 30; i++) last = trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 16);
    expect(last.policyLoss).toBeLessThan(first.policyLoss);
    expect(last.valueLoss).toBeLessThan(first.valueLoss * 0.5);
    expect(() => trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 17)).toThrow(/inputs holds 80 floats but 17 examples need 85/);
    expect(() => trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 0)).toThrow(/positive integer/);
    trainer.dispose();
    model.dispose();
  });
});

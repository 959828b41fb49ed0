/**
 * One gradient step at a time on a policy/value LayersModel.
 *
 * loss = softmax cross-entropy(policy targets, logits)        (targets are probability vectors; with a
 *                                                             legal mask, the softmax is over legal actions;
 *                                                             averaged over the rows that have one)
 *      + mean squared error(value targets, values)             (averaged over batch and seats)
 *      + weightDecay * sum of squared kernel weights           (conv and dense kernels; not biases or BN)
 *
 * Adam is implemented here rather than with tf.train.adam so the learning rate can change between steps
 * and the optimizer state has a plain, named, serialisable form for checkpoints and resuming.
 */
import type { NetworkConfig } from '@az/core';
import { tf } from './tf.js';
import { checkModelMatchesConfig } from './tfjs/tfjs-model.js';

/** A `NetworkTrainer`'s optimiser settings: Adam with L2 weight decay on the kernels. */
export interface TrainerOptions {
  /** Adam step size (default 1e-3). Can be changed between steps with `learningRate`. */
  readonly learningRate?: number;
  /** L2 coefficient on kernel weights (default 1e-4). */
  readonly weightDecay?: number;
  /** Adam's decay rate of the first moment, the running mean of the gradients (default 0.9). */
  readonly beta1?: number;
  /** Adam's decay rate of the second moment, the running mean of the squared gradients (default 0.999). */
  readonly beta2?: number;
  /** Added to sqrt(v) (default 1e-7, as tfjs and Keras). */
  readonly epsilon?: number;
}

/** The loss of one batch and its parts, as `trainBatch` and `evaluateBatch` return it: what training logs and charts. */
export interface TrainLosses {
  /** Softmax cross-entropy between the policy targets and the logits, averaged over the rows that have a policy target. */
  readonly policyLoss: number;
  /** Mean squared error between the value targets and the values, averaged over the batch and the seats. */
  readonly valueLoss: number;
  /** The weight-decay term as added to the loss (weightDecay * sum of squared kernels). */
  readonly l2: number;
  /** The loss minimised: `policyLoss + valueLoss + l2`. */
  readonly total: number;
}

/**
 * Adam's state, serialisable: scalars plus the first and second moments of every trainable weight as one
 * float32 buffer, laid out per weight as [m..., v...] in `variables` order.
 */
export interface OptimizerState {
  /** What the state is, checked when it is restored. */
  readonly format: 'az-adam';
  /** The layout's version, checked when it is restored. */
  readonly formatVersion: 1;
  /** Adam steps taken so far (for bias correction). */
  readonly step: number;
  /** The trainer's learning rate when the state was taken (restored with it). */
  readonly learningRate: number;
  /** The trainer's weight decay when the state was taken (restored with it). */
  readonly weightDecay: number;
  /** `TrainerOptions.beta1` of the trainer the state comes from (for the record: not restored). */
  readonly beta1: number;
  /** `TrainerOptions.beta2` of the trainer the state comes from (for the record: not restored). */
  readonly beta2: number;
  /** `TrainerOptions.epsilon` of the trainer the state comes from (for the record: not restored). */
  readonly epsilon: number;
  /** The model's trainable weights in the order of `data`: restoring checks they match the model's. */
  readonly variables: readonly {
    /** The weight's layer-qualified name, e.g. "stem_conv/kernel". */
    readonly name: string;
    /** The weight's shape. */
    readonly shape: readonly number[];
  }[];
  /** The moments as float32s: per variable, its first moments then its second, each in the weight's element order. */
  readonly data: ArrayBuffer;
}

/**
 * An optimizer state that does not fit the trainer's model (another format, other weights or shapes, or
 * the wrong byte count): resuming it would train with moments of the wrong weights.
 */
export class OptimizerStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptimizerStateError';
  }
}

interface Slot {
  readonly name: string;
  readonly variable: tf.Variable;
  readonly m: tf.Variable;
  readonly v: tf.Variable;
  readonly size: number;
}

/** How far below the rest a masked (illegal) logit goes: far enough that its softmax share is 0. */
const ILLEGAL_LOGIT_OFFSET = 1e4;

/**
 * Trains a policy/value network in place, one batch per call, with Adam on the loss policy cross-entropy
 * + value mean squared error + L2 weight decay on the kernels (`TrainLosses` has each part). It keeps
 * Adam's moments as tensors beside the model; `getOptimizerState` and `setOptimizerState` carry them
 * through checkpoints so a resumed run continues where it stopped.
 */
export class NetworkTrainer {
  /** Adam's step size for the next steps: a schedule may change it between steps. */
  learningRate: number;
  /** The L2 coefficient on kernel weights for the next steps. */
  weightDecay: number;
  /** Adam's first-moment decay rate (`TrainerOptions.beta1`). */
  readonly beta1: number;
  /** Adam's second-moment decay rate (`TrainerOptions.beta2`). */
  readonly beta2: number;
  /** Added to sqrt(v) in each Adam update (`TrainerOptions.epsilon`). */
  readonly epsilon: number;
  private stepCount = 0;
  private readonly slots: Slot[];
  private readonly kernels: tf.Variable[];
  private readonly inputSize: number;
  private disposed = false;

  /** Throws `ModelShapeError` unless `model` matches `config`; the moments start at zero. */
  constructor(
    /** The network trained: its weights change with every `trainBatch`. */
    readonly model: tf.LayersModel,
    /** The network's shape: input, action count and seats (the batches' layout). */
    readonly config: NetworkConfig,
    options: TrainerOptions = {},
  ) {
    checkModelMatchesConfig(model, config);
    this.learningRate = options.learningRate ?? 1e-3;
    this.weightDecay = options.weightDecay ?? 1e-4;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.epsilon = options.epsilon ?? 1e-7;
    this.inputSize = config.inputShape.reduce((a, b) => a * b, 1);
    this.slots = model.trainableWeights.map((w) => {
      const variable = w.read() as tf.Variable;
      return {
        name: w.originalName,
        variable,
        m: tf.variable(tf.zerosLike(variable), false),
        v: tf.variable(tf.zerosLike(variable), false),
        size: variable.size,
      };
    });
    // Kernels of conv and dense layers carry the weight decay; biases, BN gamma/beta do not.
    this.kernels = this.slots.filter((s) => s.name.endsWith('/kernel')).map((s) => s.variable);
  }

  /** Adam steps taken so far. */
  get step(): number {
    return this.stepCount;
  }

  /**
   * One Adam step on `count` examples: inputs are encoded positions back to back, policyTargets `count *
   * actionSize` probabilities, valueTargets `count * numSeats` values in [-1, 1]. Batch norm uses batch
   * statistics and updates its moving averages. Returns the losses before the step.
   *
   * `legalMask` (optional, `count * actionSize`, 1 = legal, 0 = not) restricts each example's softmax to
   * its legal actions, as the search does when it turns logits into priors. Without it the network also
   * has to learn which actions are legal, and actions that are rarely legal (chess: a capture onto a
   * given square) get pushed down in every position where they are not, so even a free queen gets a
   * tiny prior when it can be taken.
   */
  trainBatch(inputs: Float32Array, policyTargets: Float32Array, valueTargets: Float32Array, count: number, legalMask?: Float32Array): TrainLosses {
    this.checkBatch(inputs, policyTargets, valueTargets, count, legalMask);
    const vars = this.slots.map((s) => s.variable);
    const losses = tf.tidy(() => {
      const { x, pt, vt, mask } = this.batchTensors(inputs, policyTargets, valueTargets, count, legalMask);
      let parts: tf.Tensor | null = null;
      const { grads } = tf.variableGrads(() => {
        const [logits, values] = this.model.apply(x, { training: true }) as tf.Tensor[];
        const terms = this.lossTerms(logits, values, pt, vt, mask);
        // keep: the loss parts must outlive variableGrads' scope; they leave the tidy as its result and readLosses frees them.
        parts = tf.keep(tf.stack(terms));
        return terms[3] as tf.Scalar;
      }, vars);
      this.applyAdam(grads);
      return parts as unknown as tf.Tensor;
    });
    return readLosses(losses);
  }

  /** The same losses as `trainBatch` without changing anything (BN in inference mode), e.g. for validation. */
  evaluateBatch(inputs: Float32Array, policyTargets: Float32Array, valueTargets: Float32Array, count: number, legalMask?: Float32Array): TrainLosses {
    this.checkBatch(inputs, policyTargets, valueTargets, count, legalMask);
    const losses = tf.tidy(() => {
      const { x, pt, vt, mask } = this.batchTensors(inputs, policyTargets, valueTargets, count, legalMask);
      const [logits, values] = this.model.apply(x, { training: false }) as tf.Tensor[];
      return tf.stack(this.lossTerms(logits, values, pt, vt, mask));
    });
    return readLosses(losses);
  }

  /** A copy of Adam's state (moments, step, learning rate and weight decay), for a checkpoint. */
  getOptimizerState(): OptimizerState {
    this.checkNotDisposed();
    const total = this.slots.reduce((sum, s) => sum + 2 * s.size, 0);
    const out = new Float32Array(total);
    let offset = 0;
    for (const slot of this.slots) {
      out.set(slot.m.dataSync() as Float32Array, offset);
      out.set(slot.v.dataSync() as Float32Array, offset + slot.size);
      offset += 2 * slot.size;
    }
    return {
      format: 'az-adam',
      formatVersion: 1,
      step: this.stepCount,
      learningRate: this.learningRate,
      weightDecay: this.weightDecay,
      beta1: this.beta1,
      beta2: this.beta2,
      epsilon: this.epsilon,
      variables: this.slots.map((s) => ({ name: s.name, shape: [...s.variable.shape] })),
      data: out.buffer,
    };
  }

  /**
   * Restores a state from `getOptimizerState` (of a model with the same architecture): moments, step,
   * learning rate and weight decay. Set `learningRate` afterwards to override a restored one.
   */
  setOptimizerState(state: OptimizerState): void {
    this.checkNotDisposed();
    if (state.format !== 'az-adam' || state.formatVersion !== 1) {
      throw new OptimizerStateError(`optimizer state has format ${String(state.format)} v${String(state.formatVersion)}; expected az-adam v1`);
    }
    if (state.variables.length !== this.slots.length) {
      throw new OptimizerStateError(
        `optimizer state covers ${state.variables.length} variables but the model has ${this.slots.length} trainable weights`
      );
    }
    this.slots.forEach((slot, i) => {
      const v = state.variables[i];
      const same = v.name === slot.name && v.shape.length === slot.variable.shape.length && v.shape.every((d, k) => d === slot.variable.shape[k]);
      if (!same) {
        throw new OptimizerStateError(
          `optimizer state variable ${i} is '${v.name}' [${v.shape.join(', ')}] but the model's is '${slot.name}' [${slot.variable.shape.join(', ')}]`
        );
      }
    });
    const floats = this.slots.reduce((sum, s) => sum + 2 * s.size, 0);
    if (state.data.byteLength !== floats * 4) {
      throw new OptimizerStateError(`optimizer state data holds ${state.data.byteLength} bytes; expected ${floats * 4}`);
    }
    const all = new Float32Array(state.data.slice(0));
    let offset = 0;
    tf.tidy(() => {
      for (const slot of this.slots) {
        slot.m.assign(tf.tensor(all.slice(offset, offset + slot.size), slot.variable.shape));
        slot.v.assign(tf.tensor(all.slice(offset + slot.size, offset + 2 * slot.size), slot.variable.shape));
        offset += 2 * slot.size;
      }
    });
    this.stepCount = state.step;
    this.learningRate = state.learningRate;
    this.weightDecay = state.weightDecay;
  }

  /** Frees the optimizer's moment tensors (not the model). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const slot of this.slots) {
      slot.m.dispose();
      slot.v.dispose();
    }
  }

  private lossTerms(logits: tf.Tensor, values: tf.Tensor, pt: tf.Tensor, vt: tf.Tensor, mask: tf.Tensor | null): tf.Scalar[] {
    // Illegal logits are pushed ILLEGAL_LOGIT_OFFSET down: their softmax share is exactly 0 in float32, and
    // their targets are 0, so 0 * (a large finite log-probability) adds nothing and no gradient reaches them.
    const masked = mask ? tf.add(logits, tf.mul(tf.sub(mask, 1), ILLEGAL_LOGIT_OFFSET)) : logits;
    // Averaged over the rows that have a policy target: value-only rows (a root child's search value,
    // `SelfPlayOptions.childValueWorlds`) have none and do not dilute it.
    const rowPolicyLoss = tf.neg(tf.sum(tf.mul(pt, tf.logSoftmax(masked)), -1));
    const policyRows = tf.maximum(tf.sum(tf.cast(tf.greater(tf.sum(pt, -1), 0), 'float32')), 1);
    const policyLoss = tf.div(tf.sum(rowPolicyLoss), policyRows) as tf.Scalar;
    const valueLoss = tf.mean(tf.squaredDifference(values, vt)) as tf.Scalar;
    const l2 =
      this.kernels.length > 0 && this.weightDecay !== 0
        ? (tf.mul(tf.addN(this.kernels.map((k) => tf.sum(tf.square(k)))), this.weightDecay) as tf.Scalar)
        : tf.scalar(0);
    const total = tf.add(tf.add(policyLoss, valueLoss), l2) as tf.Scalar;
    return [policyLoss, valueLoss, l2, total];
  }

  private applyAdam(grads: tf.NamedTensorMap): void {
    this.stepCount++;
    const t = this.stepCount;
    const { beta1, beta2, epsilon } = this;
    const lr = this.learningRate;
    const correction1 = 1 - Math.pow(beta1, t);
    const correction2 = 1 - Math.pow(beta2, t);
    for (const slot of this.slots) {
      const g = grads[slot.variable.name];
      if (!g) continue;
      const m = flushDenormals(tf.add(tf.mul(slot.m, beta1), tf.mul(g, 1 - beta1)));
      const v = flushDenormals(tf.add(tf.mul(slot.v, beta2), tf.mul(tf.square(g), 1 - beta2)));
      slot.m.assign(m);
      slot.v.assign(v);
      const update = tf.div(tf.div(m, correction1), tf.add(tf.sqrt(tf.div(v, correction2)), epsilon));
      slot.variable.assign(flushDenormals(tf.sub(slot.variable, tf.mul(update, lr))));
    }
  }

  private batchTensors(
    inputs: Float32Array,
    policyTargets: Float32Array,
    valueTargets: Float32Array,
    count: number,
    legalMask: Float32Array | undefined
  ): { x: tf.Tensor; pt: tf.Tensor; vt: tf.Tensor; mask: tf.Tensor | null } {
    const { actionSize, numSeats, inputShape } = this.config;
    return {
      x: tf.tensor(inputs.subarray(0, count * this.inputSize), [count, ...inputShape], 'float32'),
      pt: tf.tensor2d(policyTargets.subarray(0, count * actionSize), [count, actionSize], 'float32'),
      vt: tf.tensor2d(valueTargets.subarray(0, count * numSeats), [count, numSeats], 'float32'),
      mask: legalMask ? tf.tensor2d(legalMask.subarray(0, count * actionSize), [count, actionSize], 'float32') : null,
    };
  }

  private checkBatch(inputs: Float32Array, policyTargets: Float32Array, valueTargets: Float32Array, count: number, legalMask?: Float32Array): void {
    this.checkNotDisposed();
    if (!Number.isInteger(count) || count <= 0) throw new RangeError(`trainBatch: count must be a positive integer (got ${count})`);
    const need = (name: string, buffer: Float32Array, perItem: number): void => {
      if (buffer.length < count * perItem)
        throw new RangeError(`trainBatch: ${name} holds ${buffer.length} floats but ${count} examples need ${count * perItem}`);
    };
    need('inputs', inputs, this.inputSize);
    need('policyTargets', policyTargets, this.config.actionSize);
    need('valueTargets', valueTargets, this.config.numSeats);
    if (legalMask) need('legalMask', legalMask, this.config.actionSize);
  }

  private checkNotDisposed(): void {
    if (this.disposed) throw new Error('NetworkTrainer used after dispose()');
  }
}

/** The smallest normal float32; below it (but not 0) values are subnormal. */
const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;

/**
 * `t` with its subnormal entries set to 0 (flush-to-zero, which wasm and onnxruntime's default CPU
 * settings do not do). Weights and Adam moments that stop getting gradient decay geometrically (weight
 * decay, beta1, beta2) into the subnormal range, where every multiply is far slower: with the policy
 * softmax over legal actions, the chess policy head's weights for never-legal moves (a rook move off the
 * board) went subnormal within a run, and from then on both training steps and onnxruntime inference
 * slowed several-fold (docs/performance.md, "Figures behind decisions in the code").
 */
function flushDenormals(t: tf.Tensor): tf.Tensor {
  return tf.mul(t, tf.cast(tf.greaterEqual(tf.abs(t), FLOAT32_MIN_NORMAL), 'float32'));
}

function readLosses(losses: tf.Tensor): TrainLosses {
  try {
    const [policyLoss, valueLoss, l2, total] = losses.dataSync();
    return { policyLoss, valueLoss, l2, total };
  } finally {
    losses.dispose();
  }
}

/**
 * Compact binary weights for sending a network between processes: one ArrayBuffer of float32 values plus
 * a list of (name, shape). Serialising and loading are synchronous and copy each weight once.
 */
import { tf } from './tf.js';

/** One weight of a network in `SerializedWeights`: which it is and the shape of its values. */
export interface WeightSpec {
  /** The weight's stable name, e.g. 'stem_conv/kernel' (tfjs `originalName`, without uniquifying suffixes). */
  readonly name: string;
  /** Its dimensions; its values in `SerializedWeights.data` are their product, as float32s. */
  readonly shape: readonly number[];
}

/**
 * Every weight of a network in one transferable buffer: what a trainer sends its self-play workers after
 * each training phase, cheaper to move between threads or processes than a checkpoint.
 */
export interface SerializedWeights {
  /** In `model.weights` order (trainable and non-trainable, e.g. batch-norm moving statistics). */
  readonly specs: readonly WeightSpec[];
  /** The float32 values of every weight, back to back in spec order (platform byte order). */
  readonly data: ArrayBuffer;
}

/** Weights that do not fit a model: a different architecture, or a corrupt buffer. */
export class WeightsMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WeightsMismatchError';
  }
}

/** Copies every weight of `model` (including batch-norm statistics) into one buffer. */
export function serializeWeights(model: tf.LayersModel): SerializedWeights {
  const weights = model.weights;
  const specs: WeightSpec[] = weights.map((w) => ({ name: w.originalName, shape: [...w.shape] as number[] }));
  const total = specs.reduce((sum, s) => sum + elementCount(s.shape), 0);
  const out = new Float32Array(total);
  let offset = 0;
  for (const w of weights) {
    if (w.dtype !== 'float32')
      throw new WeightsMismatchError(`serializeWeights: weight ${w.originalName} has dtype ${w.dtype}; only float32 is supported`);
    const values = w.read().dataSync() as Float32Array;
    out.set(values, offset);
    offset += values.length;
  }
  return { specs, data: out.buffer };
}

/**
 * Writes serialized weights into `model`. The specs must match the model's weights in order, name and
 * shape (same architecture); otherwise nothing is changed and WeightsMismatchError explains the first
 * difference. The values are copied, so the caller may reuse or transfer `serialized.data` afterwards.
 */
export function loadWeightsInto(model: tf.LayersModel, serialized: SerializedWeights): void {
  const weights = model.weights;
  const { specs, data } = serialized;
  if (specs.length !== weights.length) {
    throw new WeightsMismatchError(`loadWeightsInto: got ${specs.length} weights but the model has ${weights.length} (different architecture?)`);
  }
  let expectedFloats = 0;
  weights.forEach((w, i) => {
    const spec = specs[i];
    if (spec.name !== w.originalName) {
      throw new WeightsMismatchError(
        `loadWeightsInto: weight ${i} is '${spec.name}' but the model's is '${w.originalName}' (different architecture?)`
      );
    }
    if (spec.shape.length !== w.shape.length || spec.shape.some((d, k) => d !== w.shape[k])) {
      throw new WeightsMismatchError(
        `loadWeightsInto: weight '${spec.name}' has shape [${spec.shape.join(', ')}] but the model's is [${w.shape.join(', ')}]`
      );
    }
    expectedFloats += elementCount(spec.shape);
  });
  if (data.byteLength !== expectedFloats * 4) {
    throw new WeightsMismatchError(`loadWeightsInto: data holds ${data.byteLength} bytes but the specs need ${expectedFloats * 4}`);
  }
  const tensors: tf.Tensor[] = [];
  try {
    let offset = 0;
    for (const spec of specs) {
      const n = elementCount(spec.shape);
      // slice copies: the cpu backend keeps the array it is given, which must not alias the caller's buffer.
      const values = new Float32Array(data.slice(offset * 4, (offset + n) * 4));
      tensors.push(tf.tensor(values, [...spec.shape], 'float32'));
      offset += n;
    }
    model.setWeights(tensors);
  } finally {
    for (const t of tensors) t.dispose();
  }
}

/** Byte size of serialized weights for a model, without copying anything. */
export function weightsByteLength(model: tf.LayersModel): number {
  return model.weights.reduce((sum, w) => sum + elementCount(w.shape as number[]) * 4, 0);
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * One step of an exponential moving average of weights: every weight of `average` (including batch-norm
 * statistics) becomes decay * average + (1 - decay) * trained. decay 0 copies `trained`. The two models
 * must have the same architecture (WeightsMismatchError otherwise, with `average` unchanged).
 */
export function foldWeightsAverage(average: tf.LayersModel, trained: tf.LayersModel, decay: number): void {
  if (!(decay >= 0 && decay < 1)) throw new RangeError(`foldWeightsAverage: decay must be in [0, 1), got ${decay}`);
  const current = serializeWeights(trained);
  const sum = new Float32Array(current.data);
  const previous = serializeWeights(average);
  if (previous.data.byteLength !== sum.byteLength) {
    throw new WeightsMismatchError(`foldWeightsAverage: the average holds ${previous.data.byteLength} bytes of weights but the trained model ${sum.byteLength} (different architecture?)`);
  }
  if (decay > 0) {
    const old = new Float32Array(previous.data);
    for (let i = 0; i < sum.length; i++) sum[i] = decay * old[i] + (1 - decay) * sum[i];
  }
  // The trained model's specs: loadWeightsInto checks each name and shape against the average's.
  loadWeightsInto(average, { specs: current.specs, data: sum.buffer });
}

/**
 * `InferenceModel` over a tfjs LayersModel: what the search calls to evaluate positions.
 */
import type { InferenceModel, NetworkConfig } from '@az/core';
import { tf } from '../tf.js';

/** How a `TfjsInferenceModel` treats the LayersModel it wraps. */
export interface TfjsInferenceOptions {
  /**
   * Whether `dispose()` also disposes the LayersModel (default true). Pass false when the model is shared,
   * e.g. a trainer's model also used for self-play in the same process.
   */
  readonly ownsModel?: boolean;
}

/** Thrown when a model's input or output shapes do not match the NetworkConfig it is used with. */
export class ModelShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelShapeError';
  }
}

/**
 * The search's `InferenceModel` run by tfjs itself, on the current tfjs backend: it evaluates with the
 * weights the LayersModel holds at each call, so a model being trained needs no export or refresh. The
 * tfjs engine of the registry wraps one; onnx engines are faster for search.
 */
export class TfjsInferenceModel implements InferenceModel {
  private readonly inputSize: number;
  private readonly ownsModel: boolean;
  private disposed = false;

  /** Throws `ModelShapeError` unless `model` matches `config`. */
  constructor(
    /** The network evaluated (shared with a trainer when `ownsModel` is false). */
    readonly model: tf.LayersModel,
    /** The network's shape: input, action count and seats. */
    readonly config: NetworkConfig,
    options: TfjsInferenceOptions = {},
  ) {
    checkModelMatchesConfig(model, config);
    this.inputSize = config.inputShape.reduce((a, b) => a * b, 1);
    this.ownsModel = options.ownsModel ?? true;
  }

  /** The tfjs backend running the model now ('wasm', 'cpu', 'tensorflow'). */
  get backendName(): string {
    return tf.getBackend();
  }

  /** Promise-returning form required by `InferenceModel`; the work is done synchronously. */
  async predict(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): Promise<void> {
    this.predictSync(input, count, policyOut, valueOut);
  }

  /**
   * Evaluates `count` positions stored back to back in `input`, writing `count * actionSize` logits to
   * `policyOut` and `count * numSeats` values to `valueOut`. Nothing is kept between calls: the input
   * tensor is disposed before returning, so the caller may reuse all three buffers at once.
   */
  predictSync(input: Float32Array, count: number, policyOut: Float32Array, valueOut: Float32Array): void {
    if (this.disposed) throw new Error('TfjsInferenceModel.predict called after dispose()');
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`predict: count must be a non-negative integer (got ${count})`);
    if (count === 0) return;
    const { actionSize, numSeats } = this.config;
    requireLength('input', input, count * this.inputSize, count);
    requireLength('policyOut', policyOut, count * actionSize, count);
    requireLength('valueOut', valueOut, count * numSeats, count);
    const [policy, value] = tf.tidy(() => {
      // subarray, not slice: the backend copies on write (wasm, tensorflow) or only reads the view before
      // the tensor is disposed at the end of this call (cpu), so the caller's buffer is never retained.
      const x = tf.tensor(input.subarray(0, count * this.inputSize), [count, ...this.config.inputShape], 'float32');
      // apply runs the graph directly: measurably faster than predict/predictOnBatch, which re-validate inputs.
      return this.model.apply(x, { training: false }) as tf.Tensor[];
    });
    try {
      policyOut.set(policy.dataSync() as Float32Array);
      valueOut.set(value.dataSync() as Float32Array);
    } finally {
      policy.dispose();
      value.dispose();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.ownsModel) this.model.dispose();
  }
}

/** Wraps a LayersModel (from `buildModel` or a checkpoint) as an `InferenceModel`. */
export function createInferenceModel(model: tf.LayersModel, config: NetworkConfig, options: TfjsInferenceOptions = {}): TfjsInferenceModel {
  return new TfjsInferenceModel(model, config, options);
}

/** Throws ModelShapeError unless `model` takes `config.inputShape` and outputs [actionSize] logits and [numSeats] values. */
export function checkModelMatchesConfig(model: tf.LayersModel, config: NetworkConfig): void {
  const inputs = model.inputs;
  const outputs = model.outputs;
  const fmt = (shape: readonly (number | null)[]): string => `[${shape.map((d) => (d === null ? 'batch' : d)).join(', ')}]`;
  if (inputs.length !== 1) throw new ModelShapeError(`model has ${inputs.length} inputs; expected 1`);
  const inShape = inputs[0].shape.slice(1);
  if (inShape.length !== config.inputShape.length || inShape.some((d, i) => d !== config.inputShape[i])) {
    throw new ModelShapeError(
      `model input shape ${fmt(inputs[0].shape)} does not match the network config's input shape [batch, ${config.inputShape.join(', ')}]`
    );
  }
  if (outputs.length !== 2) throw new ModelShapeError(`model has ${outputs.length} outputs; expected 2 (policy logits, value)`);
  const [policy, value] = outputs;
  if (policy.shape.length !== 2 || policy.shape[1] !== config.actionSize) {
    throw new ModelShapeError(`model policy output ${fmt(policy.shape)} does not match actionSize ${config.actionSize}`);
  }
  if (value.shape.length !== 2 || value.shape[1] !== config.numSeats) {
    throw new ModelShapeError(`model value output ${fmt(value.shape)} does not match numSeats ${config.numSeats}`);
  }
}

function requireLength(name: string, buffer: Float32Array, needed: number, count: number): void {
  if (buffer.length < needed) throw new RangeError(`predict: ${name} holds ${buffer.length} floats but ${count} positions need ${needed}`);
}

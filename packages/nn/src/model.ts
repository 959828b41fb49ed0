/**
 * Builds the policy/value network described by a `NetworkConfig` as a tfjs LayersModel.
 *
 * Every layer gets an explicit name (tfjs would otherwise number layers with a process-wide counter), so
 * weight names are the same in every process and build. The ONNX exporter and `loadWeightsInto` rely on
 * these names; change them only together with a checkpoint format version bump.
 *
 * MLP:    input -> [flatten] -> dense_<i> (relu) ... -> policy_logits (linear) | value (tanh)
 * ResNet: input -> stem_conv (3x3, no bias) -> stem_bn -> stem_relu
 *         -> block<i>_conv1 -> block<i>_bn1 -> block<i>_relu1 -> block<i>_conv2 -> block<i>_bn2
 *            -> block<i>_add (+ skip) -> block<i>_relu2                       (i = 0..blocks-1)
 *         policy: policy_conv (1x1) -> policy_bn -> policy_relu -> policy_flatten -> policy_logits
 *         value:  value_conv (1x1) -> value_bn -> value_relu -> value_flatten -> value_dense (relu) -> value (tanh)
 *                 (valueHead 'pool': value_pool, a global average over the board, in place of value_flatten)
 * Convolutions feeding a batch norm have no bias (the norm's beta is the bias); the exporter folds each
 * BN into its convolution.
 */
import type { MlpSpec, NetworkConfig, ResNetSpec } from '@az/core';
import { tf } from './tf.js';

/** The epsilon every BN layer adds to the variance (the ONNX exporter folds each BN with the same). */
export const BATCH_NORM_EPSILON = 1e-3;
/** The moving-average momentum of every BN layer's mean and variance (tfjs's and Keras's default). */
export const BATCH_NORM_MOMENTUM = 0.99;

/** The policy head's 1x1 convolution filters when a ResNet spec leaves `policyFilters` out. */
export const DEFAULT_POLICY_FILTERS = 2;
/** The value head's 1x1 convolution filters when a ResNet spec leaves `valueFilters` out. */
export const DEFAULT_VALUE_FILTERS = 4;
/** The value head's dense width when a ResNet spec leaves `valueHidden` out. */
export const DEFAULT_VALUE_HIDDEN = 64;

/**
 * The name of the network's first output, the policy logits (one per action), and of its layer: the ONNX
 * graph and checkpoint weights carry it.
 */
export const POLICY_OUTPUT_NAME = 'policy_logits';
/** The name of the network's second output, the value (one per seat, in (-1, 1)), and of its layer. */
export const VALUE_OUTPUT_NAME = 'value';

/** How `buildModel` initialises the network it builds. */
export interface BuildModelOptions {
  /**
   * Seed for the weight initialisers: the same seed gives the same initial weights. Without one, tfjs
   * draws from Math.random.
   */
  readonly seed?: number;
}

/** A bad NetworkConfig (wrong input rank for a ResNet, non-positive sizes...). */
export class NetworkConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkConfigError';
  }
}

/** Builds the network with outputs [policyLogits [batch, actionSize], value [batch, numSeats] in (-1, 1)]. */
export function buildModel(config: NetworkConfig, options: BuildModelOptions = {}): tf.LayersModel {
  validateNetworkConfig(config);
  let layerIndex = 0;
  // One seed per initialised layer, derived from the build seed, so layers do not share random streams.
  const init = (): GlorotInit | undefined =>
    options.seed === undefined ? undefined : tf.initializers.glorotUniform({ seed: (options.seed >>> 0) * 1000 + ++layerIndex });
  const input = tf.input({ shape: [...config.inputShape], name: 'input' });
  const [policy, value] = config.spec.kind === 'mlp' ? mlpHeads(config, config.spec, input, init) : resnetHeads(config, config.spec, input, init);
  return tf.model({ inputs: input, outputs: [policy, value], name: config.spec.kind === 'mlp' ? 'az_mlp' : 'az_resnet' });
}

/** Throws NetworkConfigError unless the config describes a network this builder can make. */
export function validateNetworkConfig(config: NetworkConfig): void {
  const positiveInt = (value: number, what: string): void => {
    if (!Number.isInteger(value) || value <= 0) throw new NetworkConfigError(`network: ${what} must be a positive integer (got ${value})`);
  };
  if (!Array.isArray(config.inputShape) || config.inputShape.length === 0)
    throw new NetworkConfigError('network: inputShape must be a non-empty array');
  config.inputShape.forEach((d, i) => positiveInt(d, `inputShape[${i}]`));
  positiveInt(config.actionSize, 'actionSize');
  positiveInt(config.numSeats, 'numSeats');
  const spec = config.spec;
  if (spec.kind === 'mlp') {
    spec.hidden.forEach((w, i) => positiveInt(w, `mlp hidden[${i}]`));
  } else if (spec.kind === 'resnet') {
    if (config.inputShape.length !== 3) {
      throw new NetworkConfigError(
        `network: a resnet needs an HWC input shape of rank 3, got [${config.inputShape.join(', ')}] (use an mlp for flat inputs)`
      );
    }
    positiveInt(spec.filters, 'resnet filters');
    if (!Number.isInteger(spec.blocks) || spec.blocks < 0)
      throw new NetworkConfigError(`network: resnet blocks must be a non-negative integer (got ${spec.blocks})`);
    positiveInt(spec.policyFilters ?? DEFAULT_POLICY_FILTERS, 'resnet policyFilters');
    positiveInt(spec.valueFilters ?? DEFAULT_VALUE_FILTERS, 'resnet valueFilters');
    positiveInt(spec.valueHidden ?? DEFAULT_VALUE_HIDDEN, 'resnet valueHidden');
    if (spec.valueHead !== undefined && spec.valueHead !== 'flatten' && spec.valueHead !== 'pool')
      throw new NetworkConfigError(`network: resnet valueHead must be 'flatten' or 'pool' (got '${String(spec.valueHead)}')`);
  } else {
    throw new NetworkConfigError(`network: unknown spec kind '${(spec as { kind: unknown }).kind}' (expected mlp or resnet)`);
  }
}

/** Number of trainable and non-trainable parameters. */
export function countParameters(model: tf.LayersModel): number {
  return model.weights.reduce((sum, w) => sum + w.shape.reduce((a: number, b) => a * (b ?? 1), 1), 0);
}

/**
 * The name and shape of every weight `buildModel(config)` makes, in no particular order, computed without
 * building anything: what a checkpoint's weights must be before a byte of them is allocated. Keep in step
 * with the builders below (a test compares the two for every kind of network).
 */
export function networkWeightShapes(config: NetworkConfig): Map<string, readonly number[]> {
  validateNetworkConfig(config);
  const shapes = new Map<string, readonly number[]>();
  const dense = (name: string, inputs: number, units: number): void => {
    shapes.set(`${name}/kernel`, [inputs, units]);
    shapes.set(`${name}/bias`, [units]);
  };
  const convBn = (name: string, bnName: string, kernelSize: number, inputs: number, filters: number): void => {
    shapes.set(`${name}/kernel`, [kernelSize, kernelSize, inputs, filters]);
    for (const w of ['gamma', 'beta', 'moving_mean', 'moving_variance']) shapes.set(`${bnName}/${w}`, [filters]);
  };
  const spec = config.spec;
  if (spec.kind === 'mlp') {
    let width = config.inputShape.reduce((a, b) => a * b, 1);
    spec.hidden.forEach((units, i) => {
      dense(`dense_${i}`, width, units);
      width = units;
    });
    dense(POLICY_OUTPUT_NAME, width, config.actionSize);
    dense(VALUE_OUTPUT_NAME, width, config.numSeats);
    return shapes;
  }
  const [height, width, channels] = config.inputShape;
  const policyFilters = spec.policyFilters ?? DEFAULT_POLICY_FILTERS;
  const valueFilters = spec.valueFilters ?? DEFAULT_VALUE_FILTERS;
  const valueHidden = spec.valueHidden ?? DEFAULT_VALUE_HIDDEN;
  convBn('stem_conv', 'stem_bn', 3, channels, spec.filters);
  for (let b = 0; b < spec.blocks; b++) {
    convBn(`block${b}_conv1`, `block${b}_bn1`, 3, spec.filters, spec.filters);
    convBn(`block${b}_conv2`, `block${b}_bn2`, 3, spec.filters, spec.filters);
  }
  convBn('policy_conv', 'policy_bn', 1, spec.filters, policyFilters);
  dense(POLICY_OUTPUT_NAME, height * width * policyFilters, config.actionSize);
  convBn('value_conv', 'value_bn', 1, spec.filters, valueFilters);
  dense('value_dense', spec.valueHead === 'pool' ? valueFilters : height * width * valueFilters, valueHidden);
  dense(VALUE_OUTPUT_NAME, valueHidden, config.numSeats);
  return shapes;
}

type GlorotInit = ReturnType<typeof tf.initializers.glorotUniform>;
type Init = () => GlorotInit | undefined;
type Sym = tf.SymbolicTensor;

function mlpHeads(config: NetworkConfig, spec: MlpSpec, input: Sym, init: Init): [Sym, Sym] {
  let x: Sym = input;
  if (config.inputShape.length > 1) x = tf.layers.flatten({ name: 'flatten' }).apply(x) as Sym;
  spec.hidden.forEach((units, i) => {
    x = tf.layers.dense({ units, activation: 'relu', kernelInitializer: init(), name: `dense_${i}` }).apply(x) as Sym;
  });
  const policy = tf.layers.dense({ units: config.actionSize, kernelInitializer: init(), name: POLICY_OUTPUT_NAME }).apply(x) as Sym;
  const value = tf.layers.dense({ units: config.numSeats, activation: 'tanh', kernelInitializer: init(), name: VALUE_OUTPUT_NAME }).apply(x) as Sym;
  return [policy, value];
}

function resnetHeads(config: NetworkConfig, spec: ResNetSpec, input: Sym, init: Init): [Sym, Sym] {
  const convBn = (x: Sym, filters: number, kernelSize: number, name: string, bnName: string): Sym => {
    const conv = tf.layers.conv2d({ filters, kernelSize, padding: 'same', useBias: false, kernelInitializer: init(), name }).apply(x) as Sym;
    return tf.layers.batchNormalization({ axis: -1, epsilon: BATCH_NORM_EPSILON, momentum: BATCH_NORM_MOMENTUM, name: bnName }).apply(conv) as Sym;
  };
  const relu = (x: Sym, name: string): Sym => tf.layers.activation({ activation: 'relu', name }).apply(x) as Sym;

  let x = relu(convBn(input, spec.filters, 3, 'stem_conv', 'stem_bn'), 'stem_relu');
  for (let b = 0; b < spec.blocks; b++) {
    const skip = x;
    let y = relu(convBn(x, spec.filters, 3, `block${b}_conv1`, `block${b}_bn1`), `block${b}_relu1`);
    y = convBn(y, spec.filters, 3, `block${b}_conv2`, `block${b}_bn2`);
    y = tf.layers.add({ name: `block${b}_add` }).apply([y, skip]) as Sym;
    x = relu(y, `block${b}_relu2`);
  }

  let p = relu(convBn(x, spec.policyFilters ?? DEFAULT_POLICY_FILTERS, 1, 'policy_conv', 'policy_bn'), 'policy_relu');
  p = tf.layers.flatten({ name: 'policy_flatten' }).apply(p) as Sym;
  p = tf.layers.dense({ units: config.actionSize, kernelInitializer: init(), name: POLICY_OUTPUT_NAME }).apply(p) as Sym;

  let v = relu(convBn(x, spec.valueFilters ?? DEFAULT_VALUE_FILTERS, 1, 'value_conv', 'value_bn'), 'value_relu');
  v = (spec.valueHead === 'pool' ? tf.layers.globalAveragePooling2d({ name: 'value_pool' }) : tf.layers.flatten({ name: 'value_flatten' })).apply(v) as Sym;
  v = tf.layers
    .dense({ units: spec.valueHidden ?? DEFAULT_VALUE_HIDDEN, activation: 'relu', kernelInitializer: init(), name: 'value_dense' })
    .apply(v) as Sym;
  v = tf.layers.dense({ units: config.numSeats, activation: 'tanh', kernelInitializer: init(), name: VALUE_OUTPUT_NAME }).apply(v) as Sym;
  return [p, v];
}

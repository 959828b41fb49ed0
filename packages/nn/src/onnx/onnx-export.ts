/**
 * Exports a network made by `buildModel` to ONNX (ModelProto bytes) for onnxruntime, which runs inference
 * several times faster than tfjs on a CPU. Training stays in tfjs; after each training phase the trainer
 * exports the new weights and swaps the session.
 *
 * The graph takes exactly what `InferenceModel.predict` takes: `[batch, ...inputShape]` float32 in the
 * encoder's layout (NHWC for spatial inputs), with a symbolic batch dimension, and outputs
 * `policy_logits [batch, actionSize]` and `value [batch, numSeats]` (tanh).
 *
 * Layout. tfjs convolutions are NHWC; ONNX Conv is NCHW. The ResNet graph transposes its input once
 * (a few KB per position, negligible next to the convolutions) and runs NCHW from there. tfjs flattens
 * the heads' feature maps in HWC order, ONNX's Flatten of an NCHW tensor in CHW order, so the rows of the
 * first dense kernel after each flatten are permuted to CHW order instead of transposing back at run time.
 *
 * Batch norm. Inference-mode BN is an affine map per channel, so it is folded into the convolution before
 * it (which has no bias): W' = W * s, b' = beta - mean * s with s = gamma / sqrt(var + eps), computed in
 * float64 and rounded once.
 *
 * Weights are read by their stable layer names (see model.ts), from a LayersModel or from
 * `SerializedWeights` (a self-play process can export what it was sent without a tfjs model).
 */
import { BATCH_NORM_EPSILON, DEFAULT_POLICY_FILTERS, DEFAULT_VALUE_FILTERS, DEFAULT_VALUE_HIDDEN, POLICY_OUTPUT_NAME, VALUE_OUTPUT_NAME, validateNetworkConfig } from '../model.js';
import { encodeOnnxModel, type OnnxAttribute, type OnnxInitializer, type OnnxNode } from './onnx-proto.js';
import type { MlpSpec, NetworkConfig, ResNetSpec } from '@az/core';
import type { tf } from '../tf.js';
import type { SerializedWeights } from '../weights.js';

/** Name of the ONNX graph's input. */
export const ONNX_INPUT_NAME = 'input';
/** ONNX opset the graph is written for (every op used exists unchanged since opset 13). */
export const ONNX_OPSET_VERSION = 13;
/** IR version matching opset 13. */
const ONNX_IR_VERSION = 7;

/** Weights that do not fit the network config, or a network the exporter cannot express. */
export class OnnxExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OnnxExportError';
  }
}

interface NamedWeight {
  readonly shape: readonly number[];
  readonly values: Float32Array;
}

/**
 * ONNX ModelProto bytes for `config`'s network with the weights of `source` (a model from `buildModel`
 * or a checkpoint, or its serialized weights). Throws OnnxExportError when a weight is missing or has
 * the wrong shape for `config`.
 */
export function exportOnnx(source: tf.LayersModel | SerializedWeights, config: NetworkConfig): Uint8Array {
  validateNetworkConfig(config);
  const weights = collectWeights(source);
  const g = new GraphBuilder(weights);
  if (config.spec.kind === 'mlp') buildMlp(g, config, config.spec);
  else buildResnet(g, config, config.spec);
  return encodeOnnxModel({
    graphName: config.spec.kind === 'mlp' ? 'az_mlp' : 'az_resnet',
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [{ name: ONNX_INPUT_NAME, dims: ['batch', ...config.inputShape] }],
    outputs: [
      { name: POLICY_OUTPUT_NAME, dims: ['batch', config.actionSize] },
      { name: VALUE_OUTPUT_NAME, dims: ['batch', config.numSeats] },
    ],
    irVersion: ONNX_IR_VERSION,
    opsetVersion: ONNX_OPSET_VERSION,
    producerName: '@az/nn',
    producerVersion: '1',
    docString: `az ${config.spec.kind} network: input [batch, ${config.inputShape.join(', ')}] (encoder layout), outputs policy_logits [batch, ${config.actionSize}] and value [batch, ${config.numSeats}]`,
  });
}

function collectWeights(source: tf.LayersModel | SerializedWeights): Map<string, NamedWeight> {
  const out = new Map<string, NamedWeight>();
  if ('specs' in source && 'data' in source) {
    let offset = 0;
    const all = new Float32Array(source.data);
    for (const spec of source.specs) {
      const n = spec.shape.reduce((a, b) => a * b, 1);
      if (offset + n > all.length) throw new OnnxExportError(`serialized weights are truncated at '${spec.name}'`);
      out.set(spec.name, { shape: spec.shape, values: all.subarray(offset, offset + n) });
      offset += n;
    }
    return out;
  }
  for (const w of source.weights) {
    if (w.dtype !== 'float32') throw new OnnxExportError(`weight ${w.originalName} has dtype ${w.dtype}; only float32 is exported`);
    out.set(w.originalName, { shape: w.shape as number[], values: w.read().dataSync() as Float32Array });
  }
  return out;
}

class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxInitializer[] = [];

  constructor(private readonly weights: ReadonlyMap<string, NamedWeight>) {}

  /** The weight `name`, checked against the shape the config implies. */
  weight(name: string, shape: readonly number[]): Float32Array {
    const w = this.weights.get(name);
    if (!w) throw new OnnxExportError(`the model has no weight '${name}' (was it built by buildModel for this network config?)`);
    if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i])) {
      throw new OnnxExportError(`weight '${name}' has shape [${w.shape.join(', ')}] but the network config implies [${shape.join(', ')}]`);
    }
    return w.values;
  }

  init(name: string, dims: readonly number[], values: Float32Array): string {
    this.initializers.push({ name, dims, values });
    return name;
  }

  node(opType: string, name: string, inputs: readonly string[], attributes: readonly OnnxAttribute[] = [], output = name): string {
    this.nodes.push({ opType, name, inputs, outputs: [output], attributes });
    return output;
  }

  /** tfjs Dense (kernel [in, out], bias [out]) as Gemm; `rowOrder` permutes the kernel's rows first. */
  dense(x: string, layer: string, inSize: number, units: number, output = layer, rowOrder?: Int32Array): string {
    let kernel = this.weight(`${layer}/kernel`, [inSize, units]);
    if (rowOrder) {
      const permuted = new Float32Array(kernel.length);
      for (let row = 0; row < inSize; row++) permuted.set(kernel.subarray(rowOrder[row] * units, (rowOrder[row] + 1) * units), row * units);
      kernel = permuted;
    }
    const bias = this.weight(`${layer}/bias`, [units]);
    const k = this.init(`${layer}/kernel`, [inSize, units], kernel);
    const b = this.init(`${layer}/bias`, [units], bias);
    return this.node('Gemm', `${layer}_gemm`, [x, k, b], [], output);
  }

  /** A bias-free tfjs Conv2D ('same' padding, stride 1) followed by BatchNormalization, folded into one NCHW Conv. */
  convBn(x: string, conv: string, bn: string, cin: number, cout: number, k: number): string {
    const kernel = this.weight(`${conv}/kernel`, [k, k, cin, cout]); // tfjs: [kh, kw, in, out]
    const gamma = this.weight(`${bn}/gamma`, [cout]);
    const beta = this.weight(`${bn}/beta`, [cout]);
    const mean = this.weight(`${bn}/moving_mean`, [cout]);
    const variance = this.weight(`${bn}/moving_variance`, [cout]);
    const w = new Float32Array(cout * cin * k * k); // ONNX: [out, in, kh, kw]
    const b = new Float32Array(cout);
    for (let o = 0; o < cout; o++) {
      const scale = gamma[o] / Math.sqrt(variance[o] + BATCH_NORM_EPSILON);
      b[o] = beta[o] - mean[o] * scale;
      for (let i = 0; i < cin; i++) {
        for (let kh = 0; kh < k; kh++) {
          for (let kw = 0; kw < k; kw++) w[((o * cin + i) * k + kh) * k + kw] = kernel[((kh * k + kw) * cin + i) * cout + o] * scale;
        }
      }
    }
    // 'same' with an odd kernel and stride 1 pads (k-1)/2 on every side, as tfjs does.
    const pad = (k - 1) / 2;
    return this.node('Conv', conv, [x, this.init(`${conv}/folded_kernel`, [cout, cin, k, k], w), this.init(`${conv}/folded_bias`, [cout], b)], [
      { name: 'kernel_shape', ints: [k, k] },
      { name: 'pads', ints: [pad, pad, pad, pad] },
      { name: 'strides', ints: [1, 1] },
      { name: 'dilations', ints: [1, 1] },
      { name: 'group', int: 1 },
    ]);
  }

  relu(x: string, name: string): string {
    return this.node('Relu', name, [x]);
  }

  flatten(x: string, name: string): string {
    return this.node('Flatten', name, [x], [{ name: 'axis', int: 1 }]);
  }
}

function buildMlp(g: GraphBuilder, config: NetworkConfig, spec: MlpSpec): void {
  let x = ONNX_INPUT_NAME;
  // Row-major flatten of [batch, ...shape]: the same order as tfjs's flatten and the encoder's buffer.
  if (config.inputShape.length > 1) x = g.flatten(x, 'flatten');
  let width = config.inputShape.reduce((a, b) => a * b, 1);
  spec.hidden.forEach((units, i) => {
    x = g.relu(g.dense(x, `dense_${i}`, width, units, `dense_${i}/linear`), `dense_${i}`);
    width = units;
  });
  g.dense(x, POLICY_OUTPUT_NAME, width, config.actionSize);
  g.node('Tanh', 'value_tanh', [g.dense(x, VALUE_OUTPUT_NAME, width, config.numSeats, 'value/linear')], [], VALUE_OUTPUT_NAME);
}

function buildResnet(g: GraphBuilder, config: NetworkConfig, spec: ResNetSpec): void {
  const [H, W, C] = config.inputShape;
  const F = spec.filters;
  // NHWC (the encoder's layout) -> NCHW (ONNX Conv's).
  let x = g.node('Transpose', 'input_nchw', [ONNX_INPUT_NAME], [{ name: 'perm', ints: [0, 3, 1, 2] }]);
  x = g.relu(g.convBn(x, 'stem_conv', 'stem_bn', C, F, 3), 'stem_relu');
  for (let b = 0; b < spec.blocks; b++) {
    const skip = x;
    let y = g.relu(g.convBn(x, `block${b}_conv1`, `block${b}_bn1`, F, F, 3), `block${b}_relu1`);
    y = g.convBn(y, `block${b}_conv2`, `block${b}_bn2`, F, F, 3);
    y = g.node('Add', `block${b}_add`, [y, skip]);
    x = g.relu(y, `block${b}_relu2`);
  }

  const pf = spec.policyFilters ?? DEFAULT_POLICY_FILTERS;
  let p = g.relu(g.convBn(x, 'policy_conv', 'policy_bn', F, pf, 1), 'policy_relu');
  p = g.flatten(p, 'policy_flatten');
  g.dense(p, POLICY_OUTPUT_NAME, H * W * pf, config.actionSize, POLICY_OUTPUT_NAME, chwToHwcRows(H, W, pf));

  const vf = spec.valueFilters ?? DEFAULT_VALUE_FILTERS;
  const hidden = spec.valueHidden ?? DEFAULT_VALUE_HIDDEN;
  let v = g.relu(g.convBn(x, 'value_conv', 'value_bn', F, vf, 1), 'value_relu');
  if (spec.valueHead === 'pool') {
    // [batch, vf, 1, 1] -> [batch, vf]: channel order, which is tfjs's pooled order too (no row permutation).
    v = g.flatten(g.node('GlobalAveragePool', 'value_pool', [v]), 'value_pool_flatten');
    v = g.relu(g.dense(v, 'value_dense', vf, hidden, 'value_dense/linear'), 'value_dense');
  } else {
    v = g.flatten(v, 'value_flatten');
    v = g.relu(g.dense(v, 'value_dense', H * W * vf, hidden, 'value_dense/linear', chwToHwcRows(H, W, vf)), 'value_dense');
  }
  g.node('Tanh', 'value_tanh', [g.dense(v, VALUE_OUTPUT_NAME, hidden, config.numSeats, 'value/linear')], [], VALUE_OUTPUT_NAME);
}

/**
 * For each position j of ONNX's CHW flatten (j = c*H*W + h*W + w), the row of tfjs's HWC-flattened dense
 * kernel holding the same feature ((h*W + w)*C + c).
 */
function chwToHwcRows(H: number, W: number, C: number): Int32Array {
  const rows = new Int32Array(H * W * C);
  for (let c = 0; c < C; c++) for (let h = 0; h < H; h++) for (let w = 0; w < W; w++) rows[(c * H + h) * W + w] = (h * W + w) * C + c;
  return rows;
}

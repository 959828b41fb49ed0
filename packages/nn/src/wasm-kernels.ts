/**
 * Kernels that let the tfjs wasm backend train convolutional nets at a useful speed.
 *
 * tfjs-backend-wasm 4.22 ships no Conv2DBackpropFilter (training a conv net fails outright), a slow
 * Conv2DBackpropInput (most of a training step) and a Tile far slower than the same broadcast
 * (batch-norm's gradient tiles the inverse standard deviation over the whole activation). The
 * replacements below are built on the backend's own Conv2D (XNNPACK), Transpose and heap memory:
 *
 * - dW = correlation of the input with dy: channels of x become the batch (x -> [Cin, H, W, B]) and dy
 *   becomes the filter (dy -> [Ho, Wo, B, Cout]); a Conv2D with the forward padding gives [Cin, kh, kw, Cout].
 * - dx = convolution of dy with the spatially flipped filter, in and out channels swapped, padded by
 *   (k - 1 - forward padding) on each side.
 *
 * Only NHWC, stride 1 and dilation 1 (all the model builder uses) are handled; the filter gradient throws a
 * clear error otherwise, the input gradient falls back to the shipped kernel (which handles strides).
 *
 * Sum and Mean over leading axes (batch norm's statistics and the gradients of every broadcast over channels:
 * [B, H, W, C] reduced to [C]) are slow in the shipped kernels, which transpose the reduced axes to the end
 * first; adding up the columns of x seen as a [B*H*W, C] matrix in one pass over the heap is several times
 * faster. Other reductions go to the shipped kernels.
 *
 * BatchMatMul with a transposed operand (every dense layer's gradients: dx = dy W^T, dW = x^T dy) is
 * slower in the shipped kernel than transposing that operand first and multiplying plainly, so the
 * replacement does exactly that.
 *
 * The measurements: docs/performance.md, "Figures behind decisions in the code".
 */
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { tf } from './tf.js';

type KernelArgs = Parameters<tf.KernelFunc>[0];
type Pad = 'valid' | 'same' | number | tf.backend_util.ExplicitPadding;

interface SavedKernels {
  conv2d: tf.KernelFunc;
  transpose: tf.KernelFunc;
  /** The shipped kernels we replace, kept as fallbacks for cases ours do not handle. */
  backpropInput: tf.KernelConfig | null;
  tile: tf.KernelConfig;
  batchMatMul: tf.KernelConfig;
  sum: tf.KernelConfig;
  mean: tf.KernelConfig;
}

let saved: SavedKernels | null = null;
/** Backends on which a replaced kernel's setupFunc has run (see runShipped). */
const shippedSetupDone = new WeakMap<tf.KernelConfig, WeakSet<object>>();

/**
 * Registers the fast wasm kernels (Conv2DBackpropFilter, Conv2DBackpropInput, Tile, BatchMatMul, Sum, Mean) in place of
 * the shipped ones. Call after @tensorflow/tfjs-backend-wasm has been imported; calling again does nothing.
 */
export function registerWasmTrainingKernels(): void {
  if (saved) return;
  const kernel = (name: string): tf.KernelConfig | null => {
    try {
      return tf.getKernel(name, 'wasm') ?? null;
    } catch {
      return null;
    }
  };
  const conv2d = kernel('Conv2D');
  const transpose = kernel('Transpose');
  const tile = kernel('Tile');
  const batchMatMul = kernel('BatchMatMul');
  const sum = kernel('Sum');
  const mean = kernel('Mean');
  if (!conv2d || !transpose || !tile || !batchMatMul || !sum || !mean) {
    throw new Error('registerWasmTrainingKernels: the wasm backend is not loaded (import @tensorflow/tfjs-backend-wasm first)');
  }
  saved = { conv2d: conv2d.kernelFunc, transpose: transpose.kernelFunc, tile, batchMatMul, sum, mean, backpropInput: kernel('Conv2DBackpropInput') };
  replaceKernel('Conv2DBackpropFilter', conv2DBackpropFilter);
  replaceKernel('Conv2DBackpropInput', conv2DBackpropInput);
  replaceKernel('Tile', fastTile);
  replaceKernel('BatchMatMul', batchMatMulTransposingFirst);
  setFastWasmReductions(true);
}

/**
 * Sum and Mean over leading axes: ours (true, what `registerWasmTrainingKernels` installs) or the shipped
 * kernels (false), so a benchmark can compare the two in one process.
 */
export function setFastWasmReductions(fast: boolean): void {
  const k = kernels();
  replaceKernel('Sum', fast ? (args) => reduceLeadingAxes(args, 'sum') : (args) => runShipped(k.sum, args));
  replaceKernel('Mean', fast ? (args) => reduceLeadingAxes(args, 'mean') : (args) => runShipped(k.mean, args));
}

/** True once `registerWasmTrainingKernels` has run. */
export function wasmTrainingKernelsRegistered(): boolean {
  return saved !== null;
}

function replaceKernel(kernelName: string, kernelFunc: (args: KernelArgs) => tf.TensorInfo): void {
  if (tf.getKernel(kernelName, 'wasm')) tf.unregisterKernel(kernelName, 'wasm');
  tf.registerKernel({ kernelName, backendName: 'wasm', kernelFunc: kernelFunc as tf.KernelFunc });
}

function kernels(): SavedKernels {
  if (!saved) throw new Error('wasm training kernels used before registerWasmTrainingKernels()');
  return saved;
}

/** Runs a saved wasm kernel that returns a single tensor. */
function run(kernelFunc: tf.KernelFunc, backend: BackendWasm, inputs: tf.NamedTensorInfoMap, attrs: tf.NamedAttrMap): tf.TensorInfo {
  const out = kernelFunc({ inputs, backend, attrs });
  if (Array.isArray(out)) throw new Error('wasm kernel returned several tensors where one was expected');
  return out;
}

/**
 * Runs a shipped kernel we unregistered. tfjs calls a kernel's setupFunc (which binds its wasm function)
 * only for kernels registered when the backend initialises, so an unregistered one is set up here, once
 * per backend instance.
 */
function runShipped(config: tf.KernelConfig, args: KernelArgs): tf.TensorInfo {
  let done = shippedSetupDone.get(config);
  if (!done) shippedSetupDone.set(config, (done = new WeakSet()));
  if (!done.has(args.backend)) {
    config.setupFunc?.(args.backend as tf.KernelBackend);
    done.add(args.backend);
  }
  return run(config.kernelFunc, args.backend as BackendWasm, args.inputs, args.attrs ?? {});
}

function transposeInfo(backend: BackendWasm, x: tf.TensorInfo, perm: number[]): tf.TensorInfo {
  return run(kernels().transpose, backend, { x }, { perm });
}

/** Conv2D (NHWC, stride 1, dilation 1) with explicit [top, bottom, left, right] padding. */
function conv2dExplicit(
  backend: BackendWasm,
  x: tf.TensorInfo,
  filter: tf.TensorInfo,
  pad: readonly [number, number, number, number]
): tf.TensorInfo {
  const explicit: tf.backend_util.ExplicitPadding = [
    [0, 0],
    [pad[0], pad[1]],
    [pad[2], pad[3]],
    [0, 0],
  ];
  return run(kernels().conv2d, backend, { x, filter }, {
    strides: [1, 1],
    pad: explicit,
    dataFormat: 'NHWC',
    dilations: [1, 1],
  } as unknown as tf.NamedAttrMap);
}

interface ConvAttrs {
  strides: number | [number, number];
  pad: Pad;
  dataFormat: 'NHWC' | 'NCHW';
  dimRoundingMode?: 'floor' | 'round' | 'ceil';
}

/** Validates what the fast kernels support and returns the forward convolution's geometry. */
function convGeometry(
  xShape: [number, number, number, number],
  filterShape: [number, number, number, number],
  attrs: ConvAttrs
): tf.backend_util.Conv2DInfo | string {
  if (attrs.dataFormat !== undefined && attrs.dataFormat !== 'NHWC') return `dataFormat ${attrs.dataFormat} (only NHWC)`;
  const info = tf.backend_util.computeConv2DInfo(xShape, filterShape, attrs.strides, 1, attrs.pad, attrs.dimRoundingMode, false, 'channelsLast');
  if (info.strideHeight !== 1 || info.strideWidth !== 1) return `strides ${info.strideHeight}x${info.strideWidth} (only 1x1)`;
  if (info.dilationHeight !== 1 || info.dilationWidth !== 1) return `dilations ${info.dilationHeight}x${info.dilationWidth} (only 1x1)`;
  if (info.padInfo.top < 0 || info.padInfo.left < 0 || info.padInfo.bottom < 0 || info.padInfo.right < 0) return `negative padding`;
  return info;
}

function conv2DBackpropFilter(args: KernelArgs): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const x = args.inputs.x as tf.TensorInfo;
  const dy = args.inputs.dy as tf.TensorInfo;
  const attrs = args.attrs as unknown as ConvAttrs & { filterShape: [number, number, number, number] };
  const info = convGeometry(x.shape as [number, number, number, number], attrs.filterShape, attrs);
  if (typeof info === 'string') {
    throw new Error(`az wasm Conv2DBackpropFilter supports NHWC, stride 1, dilation 1 and 'same'/'valid' padding only; got ${info}`);
  }
  const { top, bottom, left, right } = info.padInfo;
  // x as a batch of Cin single-"channel" images whose channels are the B examples; dy as the filter.
  const xT = transposeInfo(backend, x, [3, 1, 2, 0]); // [Cin, H, W, B]
  const dyT = transposeInfo(backend, dy, [1, 2, 0, 3]); // [Ho, Wo, B, Cout]
  try {
    const corr = conv2dExplicit(backend, xT, dyT, [top, bottom, left, right]); // [Cin, kh, kw, Cout]
    try {
      return transposeInfo(backend, corr, [1, 2, 0, 3]); // [kh, kw, Cin, Cout]
    } finally {
      backend.disposeData(corr.dataId);
    }
  } finally {
    backend.disposeData(xT.dataId);
    backend.disposeData(dyT.dataId);
  }
}

function conv2DBackpropInput(args: KernelArgs): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const dy = args.inputs.dy as tf.TensorInfo;
  const filter = args.inputs.filter as tf.TensorInfo;
  const attrs = args.attrs as unknown as ConvAttrs & { inputShape: [number, number, number, number] };
  const info = convGeometry(attrs.inputShape, filter.shape as [number, number, number, number], attrs);
  if (typeof info === 'string') {
    const shipped = kernels().backpropInput;
    if (shipped) return runShipped(shipped, args);
    throw new Error(`az wasm Conv2DBackpropInput supports NHWC, stride 1, dilation 1 and 'same'/'valid' padding only; got ${info}`);
  }
  const [kh, kw, cin, cout] = filter.shape;
  const { top, bottom, left, right } = info.padInfo;
  // Flipped filter with in/out channels swapped: flipped[p, q, o, c] = filter[kh-1-p, kw-1-q, c, o]. The
  // filter is small (k*k*Cin*Cout), so a plain loop over the heap beats two kernel launches.
  const flipped = backend.makeOutput([kh, kw, cout, cin], 'float32');
  try {
    const src = backend.typedArrayFromHeap(filter) as Float32Array;
    const dst = backend.typedArrayFromHeap(flipped) as Float32Array;
    for (let p = 0; p < kh; p++) {
      for (let q = 0; q < kw; q++) {
        const srcBase = ((kh - 1 - p) * kw + (kw - 1 - q)) * cin * cout;
        const dstBase = (p * kw + q) * cout * cin;
        for (let c = 0; c < cin; c++) {
          const srcRow = srcBase + c * cout;
          for (let o = 0; o < cout; o++) dst[dstBase + o * cin + c] = src[srcRow + o];
        }
      }
    }
    return conv2dExplicit(backend, dy, flipped, [kh - 1 - top, kh - 1 - bottom, kw - 1 - left, kw - 1 - right]);
  } finally {
    backend.disposeData(flipped.dataId);
  }
}

/**
 * BatchMatMul that never asks the shipped kernel to transpose: a transposed operand is materialised with the
 * (fast) Transpose kernel over its last two axes, then multiplied with both flags off.
 */
function batchMatMulTransposingFirst(args: KernelArgs): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const a = args.inputs.a as tf.TensorInfo;
  const b = args.inputs.b as tf.TensorInfo;
  const attrs = (args.attrs ?? {}) as unknown as { transposeA?: boolean; transposeB?: boolean };
  const shipped = kernels().batchMatMul;
  if (!attrs.transposeA && !attrs.transposeB) return runShipped(shipped, args);
  const swapLast = (rank: number): number[] => [...Array.from({ length: rank - 2 }, (_, i) => i), rank - 1, rank - 2];
  const aT = attrs.transposeA ? transposeInfo(backend, a, swapLast(a.shape.length)) : a;
  const bT = attrs.transposeB ? transposeInfo(backend, b, swapLast(b.shape.length)) : b;
  try {
    return runShipped(shipped, { inputs: { a: aT, b: bT }, backend: args.backend, attrs: { ...attrs, transposeA: false, transposeB: false } as unknown as tf.NamedAttrMap });
  } finally {
    if (aT !== a) backend.disposeData(aT.dataId);
    if (bT !== b) backend.disposeData(bT.dataId);
  }
}

/**
 * Tile by block copies on the heap: each dimension's first copy is built from the one below, then
 * replicated with doubling copyWithin, so the work is one pass over the output.
 */
function fastTile(args: KernelArgs): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const x = args.inputs.x as tf.TensorInfo;
  const reps = (args.attrs as unknown as { reps: number[] }).reps;
  if (x.dtype === 'string' || x.dtype === 'complex64') return runShipped(kernels().tile, args);
  const outShape = x.shape.map((size, i) => size * reps[i]);
  const out = backend.makeOutput(outShape, x.dtype);
  if (outShape.some((size) => size === 0)) return out;
  // Views are taken after makeOutput: allocating may grow the heap and detach earlier views.
  const src = backend.typedArrayFromHeap(x);
  const dst = backend.typedArrayFromHeap(out);
  tileInto(src, x.shape, reps, dst);
  return out;
}

type HeapArray = Float32Array | Int32Array | Uint8Array;

/** Writes `src` (of `shape`) tiled `reps` times along each axis into `dst`. Exported for tests. */
export function tileInto(src: tf.backend_util.TypedArray, shape: readonly number[], reps: readonly number[], dst: tf.backend_util.TypedArray): void {
  const rank = shape.length;
  const s = src as HeapArray;
  const d = dst as HeapArray;
  if (rank === 0) {
    d[0] = s[0];
    return;
  }
  const inStrides = new Array<number>(rank);
  const outStrides = new Array<number>(rank);
  inStrides[rank - 1] = 1;
  outStrides[rank - 1] = 1;
  for (let i = rank - 2; i >= 0; i--) {
    inStrides[i] = inStrides[i + 1] * shape[i + 1];
    outStrides[i] = outStrides[i + 1] * shape[i + 1] * reps[i + 1];
  }
  const fill = (axis: number, inOffset: number, outOffset: number): void => {
    const n = shape[axis];
    if (axis === rank - 1) {
      d.set(s.subarray(inOffset, inOffset + n), outOffset);
    } else {
      for (let i = 0; i < n; i++) fill(axis + 1, inOffset + i * inStrides[axis], outOffset + i * outStrides[axis]);
    }
    const block = n * outStrides[axis];
    const total = block * reps[axis];
    for (let filled = block; filled < total; ) {
      const len = Math.min(filled, total - filled);
      d.copyWithin(outOffset + filled, outOffset, outOffset + len);
      filled += len;
    }
  };
  fill(0, 0, 0);
}

/** Per-column sums in float64, reused between calls (kernels run one at a time). */
let reduceScratch = new Float64Array(0);

/**
 * Sum or Mean of a float32 tensor over a leading run of its axes (0..k-1, some axes left): x seen as a
 * [rows, width] matrix, its columns added up in one pass over the heap. Anything else (other axes, all axes,
 * other dtypes) runs the shipped kernel. (Not a GEMM with a row of ones: XNNPACK packs the right-hand matrix
 * anew for every new buffer, which made it slower than the shipped Sum inside a training step.)
 */
function reduceLeadingAxes(args: KernelArgs, kind: 'sum' | 'mean'): tf.TensorInfo {
  const backend = args.backend as BackendWasm;
  const x = args.inputs.x as tf.TensorInfo;
  const attrs = (args.attrs ?? {}) as unknown as { axis?: number | number[] | null; keepDims?: boolean };
  const k = leadingAxesCount(x.shape, attrs.axis);
  if (x.dtype !== 'float32' || k === null) return runShipped(kind === 'sum' ? kernels().sum : kernels().mean, args);
  const rows = x.shape.slice(0, k).reduce((a, b) => a * b, 1);
  const width = x.shape.slice(k).reduce((a, b) => a * b, 1);
  const outShape = attrs.keepDims ? x.shape.map((size, i) => (i < k ? 1 : size)) : x.shape.slice(k);
  const out = backend.makeOutput(outShape, 'float32');
  // Views after makeOutput: allocating may grow the heap and detach earlier views.
  const src = backend.typedArrayFromHeap(x) as Float32Array;
  const dst = backend.typedArrayFromHeap(out) as Float32Array;
  sumColumnsInto(src, rows, width, kind === 'mean' ? 1 / rows : 1, dst);
  return out;
}

/**
 * How many leading axes `axis` (a Sum/Mean attribute) reduces when they are exactly 0..k-1 and at least one
 * axis remains, else null. Exported for tests.
 */
export function leadingAxesCount(shape: readonly number[], axis: number | readonly number[] | null | undefined): number | null {
  const rank = shape.length;
  if (axis === null || axis === undefined) return null;
  const axes = [...new Set((typeof axis === 'number' ? [axis] : axis).map((a) => (a < 0 ? a + rank : a)))].sort((a, b) => a - b);
  if (axes.length === 0 || axes.length >= rank) return null;
  return axes.every((a, i) => a === i) ? axes.length : null;
}

/**
 * dst[c] = scale * (sum over r of src[r * width + c]), in float64. Eight rows at a time: one read-modify-
 * write of the accumulator per eight values, not one per value (docs/performance.md). Exported for tests.
 */
export function sumColumnsInto(src: Float32Array, rows: number, width: number, scale: number, dst: Float32Array): void {
  if (reduceScratch.length < width) reduceScratch = new Float64Array(width);
  const acc = reduceScratch;
  acc.fill(0, 0, width);
  const w = width;
  let r = 0;
  let o = 0;
  for (; r + 8 <= rows; r += 8, o += 8 * w) {
    for (let c = 0; c < w; c++) {
      const b = o + c;
      acc[c] += src[b] + src[b + w] + src[b + 2 * w] + src[b + 3 * w] + src[b + 4 * w] + src[b + 5 * w] + src[b + 6 * w] + src[b + 7 * w];
    }
  }
  for (; r < rows; r++, o += w) for (let c = 0; c < w; c++) acc[c] += src[o + c];
  for (let c = 0; c < w; c++) dst[c] = acc[c] * scale;
}

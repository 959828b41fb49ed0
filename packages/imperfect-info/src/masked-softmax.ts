/**
 * Softmax of `logits[logitOffset ..+ A]` over the actions `mask[maskOffset ..+ A]` allows, into `out[0 ..A)`
 * (0 for the others; all 0 when nothing is allowed). Returns `out`.
 */
export function maskedSoftmax<T extends Float32Array | Float64Array>(logits: Float32Array, logitOffset: number, mask: Uint8Array, maskOffset: number, A: number, out: T): T {
  let max = -Infinity;
  for (let a = 0; a < A; a++) if (mask[maskOffset + a] && logits[logitOffset + a] > max) max = logits[logitOffset + a];
  let sum = 0;
  for (let a = 0; a < A; a++) {
    out[a] = mask[maskOffset + a] ? Math.exp(logits[logitOffset + a] - max) : 0;
    sum += out[a];
  }
  if (sum > 0) for (let a = 0; a < A; a++) out[a] /= sum;
  return out;
}

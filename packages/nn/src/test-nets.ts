// Tiny networks and data shared by the network tests (excluded from the build by the test-* pattern).
import { Rng } from '@az/core';
import type { NetworkConfig } from '@az/core';

export const TINY_MLP: NetworkConfig = { spec: { kind: 'mlp', hidden: [8, 6] }, inputShape: [5], actionSize: 4, numSeats: 2 };
export const TINY_RESNET: NetworkConfig = {
  spec: { kind: 'resnet', filters: 4, blocks: 1, policyFilters: 2, valueFilters: 2, valueHidden: 6 },
  inputShape: [3, 3, 2],
  actionSize: 5,
  numSeats: 2,
};

export interface Batch {
  inputs: Float32Array;
  policyTargets: Float32Array;
  valueTargets: Float32Array;
  count: number;
}

/** A seeded batch: uniform inputs in [-1, 1), Dirichlet policy targets, values in [-1, 1). */
export function randomBatch(config: NetworkConfig, count: number, seed: number): Batch {
  const rng = new Rng(seed);
  const inputSize = config.inputShape.reduce((a, b) => a * b, 1);
  const inputs = new Float32Array(count * inputSize).map(() => rng.next() * 2 - 1);
  const policyTargets = new Float32Array(count * config.actionSize);
  for (let i = 0; i < count; i++) rng.dirichlet(0.5, policyTargets.subarray(i * config.actionSize, (i + 1) * config.actionSize));
  const valueTargets = new Float32Array(count * config.numSeats).map(() => rng.next() * 2 - 1);
  return { inputs, policyTargets, valueTargets, count };
}

/** Seeded values in [-1, 1). */
export function randomArray(n: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return new Float32Array(n).map(() => rng.next() * 2 - 1);
}

/** max |a - b| / max |a| (or the absolute difference when a is all zeros). */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(a[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

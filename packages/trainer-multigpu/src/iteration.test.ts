// What a diverged training step blames: the batch's data, named by position, before the learning rate.
import { describe, expect, it } from 'vitest';
import { batchProblem, type TrainingBatch } from './iteration.js';

const shape = { inputSize: 3, actionSize: 4, numSeats: 2, policyWidth: 4 };

/** Two sound positions: inputs 0/1, a policy over the legal actions, values in [-1, 1]. */
function soundBatch(): TrainingBatch {
  return {
    count: 2,
    inputs: Float32Array.from([0, 1, 0, 1, 0, 0.5]),
    policy: Float32Array.from([0.5, 0.5, 0, 0, 0, 0, 1, 0]),
    values: Float32Array.from([1, -1, 0.25, -0.25]),
    legal: Float32Array.from([1, 1, 0, 1, 0, 1, 1, 0]),
  };
}

describe('batchProblem', () => {
  it('finds nothing in a sound batch, and names the position and value of each kind of bad data', () => {
    expect(batchProblem(soundBatch(), shape)).toBeUndefined();
    const spoiled = (change: (b: TrainingBatch) => void): string | undefined => {
      const b = soundBatch();
      change(b);
      return batchProblem(b, shape);
    };
    expect(spoiled((b) => (b.values[3] = 1e30))).toBe('position 1 of the batch has a value target of 1e+30 (seat 1; targets lie in [-1, 1])');
    expect(spoiled((b) => (b.policy[6] = 1e30))).toBe('position 1 of the batch has a policy probability of 1e+30 (action 2; probabilities lie in [0, 1])');
    expect(spoiled((b) => (b.policy[2] = 0.25))).toBe('position 0 of the batch puts policy mass 0.25 on action 2, which is not legal there');
    expect(spoiled((b) => (b.inputs[4] = 1e30))).toBe('position 1 of the batch has an input of 1e+30 (input 1; inputs lie within ±10000)');
    expect(spoiled((b) => (b.inputs[0] = NaN))).toMatch(/^position 0 of the batch has an input of NaN/);
  });
});

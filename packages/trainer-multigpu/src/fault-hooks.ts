/**
 * The training-side seam of the fault-injection suite (apps/cli/src/fault-injection.test.ts,
 * run-dir.test.ts): internal to the trainer (not exported from its index), inert unless AZ_FAULT_NAN is
 * set. The file-system kill points are `faultPoint` from `@az/nn/testing`.
 *
 * AZ_FAULT_NAN=weights|replay|gradient|value-1e30, optionally `#N` (in iteration N; default the first
 * this process trains), asks for a NaN where such a fault would put one: into a weight before training,
 * into the sampled minibatch, or into a weight right after the first step; or a value target of 1e30 into
 * the minibatch's last position (a record no check refused).
 */
import { tf } from '@az/nn';

export type InjectedFault = 'weights' | 'replay' | 'gradient' | 'value-1e30';

const FAULTS: readonly InjectedFault[] = ['weights', 'replay', 'gradient', 'value-1e30'];
const firstTrained = new WeakMap<object, number>();

/** The fault AZ_FAULT_NAN asks for in this training phase of `session`, or null. */
export function injectedFault(session: object, iteration: number): InjectedFault | null {
  if (!firstTrained.has(session)) firstTrained.set(session, iteration);
  const spec = process.env.AZ_FAULT_NAN;
  if (!spec) return null;
  const [what, at] = spec.split('#');
  const kind = FAULTS.find((f) => f === what);
  if (kind === undefined) return null;
  return iteration === (at === undefined ? firstTrained.get(session) : Number(at)) ? kind : null;
}

/** Sets the model's first weight value to NaN, as a diverged step would. */
export function poisonFirstWeight(model: tf.LayersModel): void {
  const variable = model.weights[0];
  const values = Float32Array.from(variable.read().dataSync());
  values[0] = NaN;
  const poisoned = tf.tensor(values, variable.shape as number[]);
  variable.write(poisoned);
  poisoned.dispose();
}

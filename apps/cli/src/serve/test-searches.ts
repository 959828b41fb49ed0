import { RolloutEvaluator, type LeafBatch } from '@az/mcts';
import { vi } from 'vitest';

/** A computer move's search held in flight: `begun` resolves once it has started; `release()` lets it go on. */
export interface HeldSearch {
  readonly begun: Promise<void>;
  release(): void;
  /** Puts the rollouts back as they were. */
  restore(): void;
}

/**
 * Holds the first rollout call of an `mcts` opponent (in this process's server) until `release()`: a
 * search stays in flight, its start known by `begun`, with no timer. Later calls run as usual.
 */
export function holdFirstRollout(): HeldSearch {
  const rollouts = RolloutEvaluator.prototype.evaluate;
  let calls = 0;
  let begin = (): void => undefined;
  let release = (): void => undefined;
  const begun = new Promise<void>((resolve) => (begin = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const spy = vi.spyOn(RolloutEvaluator.prototype, 'evaluate').mockImplementation(async function (this: RolloutEvaluator<unknown>, batch: LeafBatch<unknown>) {
    if (++calls === 1) {
      begin();
      await released;
    }
    rollouts.call(this, batch);
  });
  return { begun, release, restore: () => spy.mockRestore() };
}

import type { Rng } from '@az/core';

/**
 * Samples full states of a hidden-information game that are consistent with what one seat knows.
 *
 * Determinized search (perfect-information MCTS run on sampled "worlds", as in PIMC / ISMCTS) calls
 * `sample` once per world: the result must agree with `seat`'s information state exactly (own hand,
 * everything public, everything revealed by play) and fill the hidden parts at random, ideally
 * uniformly over the deals that are still possible.
 */
export interface Determinizer<S> {
  /**
   * A full state consistent with what `seat` knows in `state`. When `out` is given it is overwritten
   * and returned (so a search can reuse one scratch state per world); otherwise a new state is made.
   * `state` itself is never modified.
   */
  sample(state: S, seat: number, rng: Rng, out?: S): S;
}

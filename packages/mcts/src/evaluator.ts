import type { Game, InferenceModel } from '@az/core';
import { Rng, randomPlayoutReturns } from '@az/core';

/**
 * The leaves of one search step, for one evaluator call. Buffers are owned by the search and reused
 * between calls; an evaluator reads `count` entries and writes `policyLogits` and `values`.
 */
export interface LeafBatch<S> {
  readonly count: number;
  readonly actionSize: number;
  readonly numSeats: number;
  /** `states[i]` is leaf i (do not keep or mutate). */
  readonly states: readonly S[];
  /** Seat to move at leaf i; the encoding perspective. */
  readonly perspectives: Int32Array;
  /** `count * encoder.size` encoded inputs; only filled when the evaluator sets `needsInputs`. */
  readonly inputs: Float32Array;
  /**
   * `count * actionSize` legal-action masks (1 legal). Left unfilled when the evaluator sets `needsMasks`
   * to false and the game lists its legal actions (the search then reads those instead).
   */
  readonly masks: Uint8Array;
  /** Out: `count * actionSize` policy logits (illegal entries are ignored). */
  readonly policyLogits: Float32Array;
  /** Out: `count * numSeats` values in [-1, 1], in absolute seat order. */
  readonly values: Float32Array;
}

/** Scores leaves: a network, a uniform prior, random rollouts, or a test double. */
export interface Evaluator<S> {
  /** True when the search must encode the leaves into `inputs` before calling `evaluate`. */
  readonly needsInputs: boolean;
  /**
   * False when the evaluator never reads `masks`, so the search need not fill them (4,672 bytes a leaf
   * for chess); absent or true, they are filled. Wrappers pass their inner evaluator's on.
   */
  readonly needsMasks?: boolean;
  evaluate(batch: LeafBatch<S>): Promise<void> | void;
}

/** Uniform prior and zero value: search guided only by terminal outcomes. */
export class UniformEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = false;
  readonly needsMasks = false;
  evaluate(batch: LeafBatch<S>): void {
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    batch.values.fill(0, 0, batch.count * batch.numSeats);
  }
}

/** Uniform prior and the returns of one uniformly random playout (classic MCTS, no network). */
export class RolloutEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = false;
  readonly needsMasks = false;
  private readonly rng: Rng;
  private readonly mask: Uint8Array;

  constructor(
    private readonly game: Game<S>,
    seed = 0,
  ) {
    this.rng = new Rng(seed);
    this.mask = new Uint8Array(game.masker.actionSize);
  }

  evaluate(batch: LeafBatch<S>): void {
    const { game, rng, mask } = this;
    const P = batch.numSeats;
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    for (let i = 0; i < batch.count; i++) {
      batch.values.set(randomPlayoutReturns(game, batch.states[i], rng, mask).subarray(0, P), i * P);
    }
  }
}

/**
 * A network behind the `InferenceModel` interface. The network's values are relative to the encoded
 * perspective (index 0 = perspective seat); this rotates them into absolute seat order.
 */
export class NetworkEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = true;
  /** The network writes every action's logit; the search masks them itself. */
  readonly needsMasks = false;
  private relativeValues = new Float32Array(0);
  private current: InferenceModel;

  constructor(model: InferenceModel) {
    this.current = model;
  }

  /** The network evaluating leaves now. */
  get model(): InferenceModel {
    return this.current;
  }

  /**
   * Swaps the network between searches, e.g. for a session on freshly exported weights after a training
   * phase, so the searches and agents holding this evaluator follow without being rebuilt. Returns the
   * previous model; disposing it is the caller's business (it may be shared).
   */
  setModel(model: InferenceModel): InferenceModel {
    const previous = this.current;
    this.current = model;
    return previous;
  }

  async evaluate(batch: LeafBatch<S>): Promise<void> {
    const P = batch.numSeats;
    const model = this.current;
    if (model.config.numSeats !== P) {
      throw new Error(`network predicts ${model.config.numSeats} seat values but the game has ${P} seats`);
    }
    if (model.config.actionSize !== batch.actionSize) {
      throw new Error(`network has ${model.config.actionSize} policy outputs but the game has ${batch.actionSize} actions`);
    }
    if (this.relativeValues.length < batch.count * P) this.relativeValues = new Float32Array(batch.values.length);
    const rel = this.relativeValues;
    await model.predict(batch.inputs, batch.count, batch.policyLogits, rel);
    const values = batch.values;
    for (let i = 0; i < batch.count; i++) {
      const persp = batch.perspectives[i];
      const base = i * P;
      for (let j = 0; j < P; j++) values[base + ((persp + j) % P)] = rel[base + j];
    }
  }
}

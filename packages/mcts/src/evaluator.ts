import type { Game, InferenceModel } from '@az/core';
import { Rng, randomPlayoutReturns } from '@az/core';

/**
 * The leaves of one search step, for one evaluator call. Buffers are owned by the search and reused
 * between calls; an evaluator reads `count` entries and writes `policyLogits` and `values`.
 */
export interface LeafBatch<S> {
  /** Leaves in this call; the buffers may be longer (they are sized for the largest batch). */
  readonly count: number;
  /** The game's action count: the row width of `masks` and `policyLogits`. */
  readonly actionSize: number;
  /** The game's seat count: the row width of `values`. */
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
  /**
   * Leaf i's legal actions, given only to an evaluator that declares `legalLogits` (and only by a search
   * whose game lists them): it then writes leaf i's logits compactly, see `policyLogits`.
   */
  readonly legalActions?: readonly ArrayLike<number>[];
  /**
   * Out: `count * actionSize` policy logits (illegal entries are ignored). With `legalActions` given, leaf
   * i's row holds the logits of its legal actions in list order instead: entry `i * actionSize + k` is
   * the logit of `legalActions[i][k]` (the rest of the row is ignored).
   */
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
  /**
   * True when the evaluator writes compact rows of logits for a batch that carries `legalActions`: the
   * search then hands it the lists (read before each call, so it may change between calls). Absent or
   * false, rows are full. Wrappers that copy rows of logits must leave it unset or handle both layouts.
   */
  readonly legalLogits?: boolean;
  /** Writes the batch's policy logits and values for its first `count` leaves; the search awaits it before backing up. */
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
  private current: InferenceModel;
  /**
   * Buffers the model writes into (and, for compact calls, reads the padded legal lists from) until its
   * promise settles, which may be after another call has started (e.g. two games served at once sharing
   * one evaluator): a call that finds them in use gets buffers of its own.
   */
  private scratch = emptyScratch();
  private scratchInUse = false;

  constructor(model: InferenceModel) {
    this.current = model;
  }

  /** Compact logits whenever the current model can return the listed actions' logits only. */
  get legalLogits(): boolean {
    return this.current.predictLegal !== undefined;
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
    const shared = !this.scratchInUse;
    const scratch = shared ? this.scratch : emptyScratch();
    if (shared) this.scratchInUse = true;
    try {
      if (scratch.values.length < batch.count * P) scratch.values = new Float32Array(batch.values.length);
      const rel = scratch.values;
      const lists = batch.legalActions;
      if (lists) await this.predictCompact(model, batch, lists, scratch);
      else await model.predict(batch.inputs, batch.count, batch.policyLogits, rel);
      const values = batch.values;
      for (let i = 0; i < batch.count; i++) {
        const persp = batch.perspectives[i];
        const base = i * P;
        for (let j = 0; j < P; j++) values[base + ((persp + j) % P)] = rel[base + j];
      }
    } finally {
      if (shared) this.scratchInUse = false;
    }
  }

  /**
   * Writes the batch's compact rows: through the model's `predictLegal` (the listed actions' logits only),
   * or, should the model have none (swapped after the search asked), its full rows gathered.
   */
  private async predictCompact(model: InferenceModel, batch: LeafBatch<S>, lists: readonly ArrayLike<number>[], scratch: Scratch): Promise<void> {
    const { count, actionSize: A } = batch;
    let width = 1;
    for (let i = 0; i < count; i++) if (lists[i].length > width) width = lists[i].length;
    if (scratch.index.length < count * width) {
      scratch.index = new Int32Array(count * width);
      scratch.out = new Float32Array(count * width);
    }
    const index = scratch.index;
    for (let i = 0, o = 0; i < count; i++, o += width) {
      const list = lists[i];
      const n = list.length;
      for (let k = 0; k < n; k++) index[o + k] = list[k];
      // Padding repeats a listed action (0 for a row with none: a terminal leaf's logits are never read).
      const pad = n > 0 ? list[0] : 0;
      for (let k = n; k < width; k++) index[o + k] = pad;
    }
    const out = scratch.out;
    const logits = batch.policyLogits;
    if (model.predictLegal) {
      await model.predictLegal(batch.inputs, count, index.subarray(0, count * width), width, out.subarray(0, count * width), scratch.values);
    } else {
      await model.predict(batch.inputs, count, logits, scratch.values);
      for (let i = 0; i < count * width; i++) out[i] = logits[Math.floor(i / width) * A + index[i]];
    }
    for (let i = 0; i < count; i++) {
      const n = lists[i].length;
      const from = i * width;
      for (let k = 0; k < n; k++) logits[i * A + k] = out[from + k];
    }
  }
}

/** A NetworkEvaluator call's buffers: the perspective-relative values, and for compact rows the padded lists and the model's rows. */
interface Scratch {
  values: Float32Array;
  index: Int32Array;
  out: Float32Array;
}

/** Buffers that grow on a call's first use. */
function emptyScratch(): Scratch {
  return { values: new Float32Array(0), index: new Int32Array(0), out: new Float32Array(0) };
}

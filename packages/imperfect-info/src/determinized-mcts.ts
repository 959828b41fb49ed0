import { Rng, type Determinizer, type Game } from '@az/core';
import { BatchedMcts, type Evaluator, type RootChildVisitor, type SearchConfig, type SearchEngine, type SearchStats } from '@az/mcts';
import { DEFAULT_DETERMINIZATIONS } from './search-settings.js';

/** Options of determinized search. */
export interface DeterminizedSearchOptions {
  /** Worlds (determinizations) sampled for every slot and searched side by side (>= 1). */
  readonly determinizations: number;
}

/**
 * Determinized search (PIMC): for each slot (a game being played), the seat to move's view is
 * completed `D` times by the game's `Determinizer` and each sampled world is searched as a
 * perfect-information game; the move is chosen from the visit counts summed over the worlds.
 *
 * Batching by construction: all `slots * D` trees live in ONE `BatchedMcts` (tree `slot * D + d` is
 * world d of that slot), so every evaluator call carries up to `slots * D * leavesPerTree` leaves.
 * Nothing waits on a queue; the previous project's cross-worker batching server averaged 3.3
 * positions per call because its determinizations ran one after another.
 *
 * `config.simulations` is per world: D=3 and 30 simulations is 90 simulations per move. Values are
 * per seat (each seat maximises its own), as `BatchedMcts` backs them up.
 *
 * Gumbel root search (`rootSelection: 'gumbel'`) runs one Gumbel root per world: each world's tree does
 * its own Gumbel-top-m and sequential halving, the policy target is the mean of the worlds' improved
 * policies and the move is one world's pick, drawn uniformly (a sample of that mean). A root shared by
 * the worlds would need every halving step to wait for Q summed over trees that are searched
 * asynchronously in one batch; per world keeps the search inside `BatchedMcts` unchanged, and the
 * aggregation the same as for visit counts (PIMC sums the worlds' answers either way).
 */
export class DeterminizedMcts<S> implements SearchEngine<S> {
  /** Slots (games), as every `SearchEngine` counts them; the inner search has `numTrees * D` trees. */
  readonly numTrees: number;
  readonly determinizations: number;
  /** The one batched search over every world of every slot: tree `slot * D + d` is world d of `slot`. */
  readonly trees: BatchedMcts<S>;

  private readonly determinizer: Determinizer<S>;
  private readonly rng: Rng;
  /** One scratch world, overwritten by each sample (`BatchedMcts.setRoot` copies it). */
  private world: S | undefined;
  private readonly counts: Float32Array;
  private readonly values: Float32Array;

  constructor(
    readonly game: Game<S>,
    evaluator: Evaluator<S>,
    slots: number,
    config: Partial<SearchConfig> = {},
    options: DeterminizedSearchOptions = { determinizations: DEFAULT_DETERMINIZATIONS },
  ) {
    const D = options.determinizations;
    if (!(Number.isInteger(D) && D >= 1)) throw new RangeError(`DeterminizedMcts: determinizations must be a positive integer, got ${D}`);
    if (!(Number.isInteger(slots) && slots >= 1)) throw new RangeError(`DeterminizedMcts: slots must be a positive integer, got ${slots}`);
    if (!game.determinizer) throw missingDeterminizer(game);
    this.determinizer = game.determinizer;
    this.numTrees = slots;
    this.determinizations = D;
    this.trees = new BatchedMcts(game, evaluator, slots * D, config);
    // Its own stream, so the worlds do not shift when the tree's chance draws change (and vice versa).
    this.rng = new Rng(`determinize:${config.seed ?? 0}`);
    this.counts = new Float32Array(game.masker.actionSize);
    this.values = new Float32Array(game.numPlayers);
  }

  get stats(): SearchStats {
    return this.trees.stats;
  }

  get averageBatchSize(): number {
    return this.trees.averageBatchSize;
  }

  /** Samples D worlds from the view of the seat to move in `state` and roots one tree in each. */
  setRoot(slot: number, state: S): void {
    const { game, determinizations: D } = this;
    this.checkSlot(slot);
    if (game.isTerminal(state)) {
      // Nothing is left to decide; the trees only report the outcome.
      for (let d = 0; d < D; d++) this.trees.setRoot(slot * D + d, state);
      return;
    }
    const seat = game.currentPlayer(state);
    for (let d = 0; d < D; d++) {
      this.world = this.determinizer.sample(state, seat, this.rng, this.world);
      this.trees.setRoot(slot * D + d, this.world);
    }
  }

  clearTree(slot: number): void {
    this.checkSlot(slot);
    for (let d = 0; d < this.determinizations; d++) this.trees.clearTree(slot * this.determinizations + d);
  }

  hasTree(slot: number): boolean {
    return this.trees.hasTree(slot * this.determinizations);
  }

  /**
   * Re-determinizes from the new real state. Trees are not carried over: a world sampled for one
   * seat assumes hidden cards that the next seat to move may know are wrong (its own hand), and the
   * real move may have revealed something (a void) that the sampled world contradicts.
   */
  advance(slot: number, _action: number, nextState: S): void {
    this.setRoot(slot, nextState);
  }

  /** `simulations[slot]`, when given, is the budget of each of the slot's worlds. */
  search(simulations?: ArrayLike<number>): Promise<void> {
    if (simulations === undefined) return this.trees.search();
    const D = this.determinizations;
    const perTree = new Int32Array(this.numTrees * D);
    for (let t = 0; t < perTree.length; t++) perTree[t] = simulations[Math.floor(t / D)];
    return this.trees.search(perTree);
  }

  /**
   * Root visit counts summed over the slot's worlds. Legal actions are the same in every world (they
   * depend only on the mover's own cards and public facts, which every sample keeps), so the sum is
   * over one action set.
   */
  visitCounts(slot: number, out: Float32Array): Float32Array {
    const A = this.game.masker.actionSize;
    out.fill(0, 0, A);
    const counts = this.counts;
    for (let d = 0; d < this.determinizations; d++) {
      this.trees.visitCounts(slot * this.determinizations + d, counts);
      for (let a = 0; a < A; a++) out[a] += counts[a];
    }
    return out;
  }

  /**
   * The mean over the slot's worlds of each world's policy target (visit shares, pruned ones, or Gumbel's
   * improved policy: each world is its own Gumbel root).
   */
  policyTarget(slot: number, out: Float32Array): Float32Array {
    const A = this.game.masker.actionSize;
    const D = this.determinizations;
    out.fill(0, 0, A);
    for (let d = 0; d < D; d++) {
      this.trees.policyTarget(slot * D + d, this.counts);
      for (let a = 0; a < A; a++) out[a] += this.counts[a] / D;
    }
    return out;
  }

  /**
   * With Gumbel root search, the move one world (drawn uniformly) picked: each world's pick is a sample
   * of its improved policy, so this is a sample of their mean, the policy target. -1 otherwise.
   */
  selectedAction(slot: number): number {
    const D = this.determinizations;
    if (this.trees.selectedAction(slot * D) < 0) return -1;
    return this.trees.selectedAction(slot * D + this.rng.int(D));
  }

  /** Each world's searched root children, `world` = the world's index among the slot's D (see `SearchEngine.forEachRootChild`). */
  forEachRootChild(slot: number, visit: RootChildVisitor<S>): void {
    const D = this.determinizations;
    for (let d = 0; d < D; d++) this.trees.forEachRootChild(slot * D + d, visit, d);
  }

  /** Mean over the slot's worlds of each world's root value, per seat in absolute seat order. */
  rootValue(slot: number, out: Float32Array = new Float32Array(this.game.numPlayers)): Float32Array {
    const P = this.game.numPlayers;
    const D = this.determinizations;
    out.fill(0, 0, P);
    for (let d = 0; d < D; d++) {
      this.trees.rootValue(slot * D + d, this.values);
      for (let j = 0; j < P; j++) out[j] += this.values[j] / D;
    }
    return out;
  }

  private checkSlot(slot: number): void {
    if (!(Number.isInteger(slot) && slot >= 0 && slot < this.numTrees)) throw new RangeError(`DeterminizedMcts: slot ${slot} is not in 0..${this.numTrees - 1}`);
  }
}

/** The error for an imperfect-information game that cannot be searched by determinization. */
export function missingDeterminizer<S>(game: Game<S>): Error {
  return new Error(
    `${game.traits.id} is an imperfect-information game without a determinizer (Game.determinizer), so it cannot be searched by determinization`,
  );
}

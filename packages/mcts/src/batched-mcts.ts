// Over 450 lines: the tree layout and every step that reads or writes it (select, expand, back up, solve) stay together, so the invariants can be checked in one place.
import type { Game } from '@az/core';
import { Rng } from '@az/core';
import type { Evaluator, LeafBatch } from './evaluator.js';
import { forcedPlayouts, prunedRootVisits } from './forced-playouts.js';
import { GumbelSearch, type TreeArrays } from './gumbel.js';
import { normalizeVisits } from './policy.js';

/**
 * Every setting of one search: the budget, the exploration terms and the root-selection rule. Callers pass
 * a `Partial` and get the rest from {@link defaultSearchConfig}.
 */
export interface SearchConfig {
  /** New simulations per tree per `search` call. */
  readonly simulations: number;
  /** Leaves collected per tree before each network call (virtual loss keeps them apart). */
  readonly leavesPerTree: number;
  /** Exploration constant in PUCT. */
  readonly cPuct: number;
  /** Dirichlet noise at the root: concentration (0 disables). */
  readonly dirichletAlpha: number;
  /** Dirichlet noise at the root: mixing weight (0 disables). */
  readonly dirichletEpsilon: number;
  /** Value subtracted per pending visit, for the seat choosing the edge. */
  readonly virtualLoss: number;
  /** Unvisited children are valued at the parent's mean value minus this (first-play urgency). */
  readonly fpuReduction: number;
  /** Nodes per tree. When a tree is full, leaves are still evaluated and backed up but not expanded. */
  readonly nodeCapacity: number;
  /** Seed for chance inside the tree and for the root noise. */
  readonly seed: number;
  /**
   * How many levels below the root have their children's states computed when they are expanded (one
   * clone and move per child), so terminal children are known before their first visit: 1 = the root's
   * children (a win in one then takes every simulation), 2 = also their children (a reply that ends the
   * game, a mate or a repetition draw, is seen at once). An unvisited terminal child is valued at its
   * exact return instead of the first-play estimate. Each level multiplies the cost by the branching
   * factor: self-play keeps 1, agents that play a game for real use 2.
   */
  readonly resolveDepth: number;
  /**
   * The evaluator's values are multiplied by this before they are backed up; the exact returns of
   * terminal nodes are not. Below 1, a result the search has found (a mate, a forced draw) outranks any
   * estimate: a net whose estimates saturate at the win value (chess, far ahead on material) otherwise
   * sees no difference between mating and staying ahead, and only mates when a mate in one turns up.
   * 1 (the default) backs up the values as they are; agents that play for real may set less
   * (`TrainingHints.playValueScale`).
   */
  readonly networkValueScale: number;
  /**
   * Proves results inside the tree (an MCTS solver): a node is solved once a child gives the seat to move
   * there the best possible return (1: a mate found deeper in the tree), or once all its children are
   * solved (the best of them for that seat). A solved node's value is exact: selection uses it, a proven
   * win is always chosen, and a simulation reaching a solved node backs its value up without asking the
   * evaluator. Ignored for games with chance (a child's state is then one sample). Off, only the root is
   * solved, by a child that ends the game with a return of 1 (the decisive-move rule, which always
   * holds). Agents that play for real turn it on; self-play keeps it off.
   */
  readonly solve: boolean;
  /**
   * How the root chooses where simulations go and what the search teaches. 'puct' (default): PUCT with
   * Dirichlet noise, the policy target is the visit counts. 'gumbel' (Danihelka et al. 2022): Gumbel-top-m
   * root actions searched by sequential halving, the deterministic improved-policy rule below the root,
   * no Dirichlet noise; the policy target is softmax(logits + σ(completed Q)) and the move the search
   * picks (`selectedAction`) is a sample of it. See gumbel.ts and docs/training.md.
   */
  readonly rootSelection: RootSelection;
  /** Gumbel: root actions considered (m; min(m, legal) are sampled). */
  readonly gumbelConsideredActions: number;
  /** Gumbel: c_visit of σ(q) = (c_visit + max N) · c_scale · q. */
  readonly gumbelCVisit: number;
  /** Gumbel: c_scale of σ(q), Q mapped from [-1, 1] to [0, 1] (the paper uses 1). */
  readonly gumbelCScale: number;
  /**
   * PUCT: k of KataGo's forced playouts at the root (0 = off; KataGo uses 2 in self-play): a visited root
   * child with fewer than sqrt(k · P(c) · Σ N) visits is chosen outright, and those forced visits are
   * pruned from the policy target (`policyTarget`).
   */
  readonly forcedPlayouts: number;
}

/** How the root spends simulations: see `SearchConfig.rootSelection`. */
export type RootSelection = 'puct' | 'gumbel';

/** The self-play settings, which any field a caller leaves out is taken from. */
export const defaultSearchConfig: SearchConfig = {
  simulations: 64,
  leavesPerTree: 8,
  cPuct: 1.5,
  dirichletAlpha: 0.3,
  dirichletEpsilon: 0.25,
  virtualLoss: 1,
  fpuReduction: 0.2,
  nodeCapacity: 4096,
  seed: 0,
  resolveDepth: 1,
  networkValueScale: 1,
  solve: false,
  rootSelection: 'puct',
  gumbelConsideredActions: 16,
  gumbelCVisit: 50,
  gumbelCScale: 1,
  forcedPlayouts: 0,
};

/**
 * Nodes per tree for a search of `simulations` per move, the one rule every caller uses. Each simulation
 * expands at most one leaf into its legal moves (a step never collects more leaves than the budget
 * left, so leaves per step add nothing), and `advance` keeps the previous move's nodes in place until
 * they fill half the tree: 64 a simulation is room for about 32 moves per expansion twice over. At least
 * 1024, since a small budget cannot average out a few positions with many moves.
 */
export function nodeCapacityFor(simulations: number): number {
  return Math.max(1024, simulations * 64);
}

/**
 * How an agent that plays a game for real searches (`az play`, `az eval`, the trainer's evaluation), over
 * the self-play defaults: no root noise, replies that end the game seen two levels deep, results proven in
 * the tree. The network value scale is the game's (`TrainingHints.playValueScale`).
 */
export const playSearchConfig: Readonly<Pick<SearchConfig, 'dirichletEpsilon' | 'resolveDepth' | 'solve'>> = {
  dirichletEpsilon: 0,
  resolveDepth: 2,
  solve: true,
};

/** Running totals, for logs and benchmarks. */
export interface SearchStats {
  /** Positions sent to the evaluator. */
  evaluations: number;
  /** Evaluator calls. */
  evaluatorCalls: number;
  /** Completed simulations (including those ending on terminal nodes). */
  simulations: number;
  /** Picks that landed on a leaf already waiting in the batch (wasted selections). */
  collisions: number;
  /** Leaves that could not be expanded because their tree was full. */
  capacityHits: number;
}

/**
 * Search over many roots at once, one slot per game (or per determinized world) being played.
 * `BatchedMcts` implements it for perfect information; @az/imperfect-info's determinized search
 * implements it over several worlds per slot. Self-play, agents and arenas only use this.
 */
export interface SearchEngine<S> {
  /** How many slots (games searched side by side) the engine holds. */
  readonly numTrees: number;
  /** Running totals since the engine was built. */
  readonly stats: SearchStats;
  /** Average positions per evaluator call so far: how well the batching works. */
  readonly averageBatchSize: number;
  /** Starts the slot's search afresh at a copy of `state`. */
  setRoot(slot: number, state: S): void;
  /** Takes the slot out of the search (e.g. its game ended), so `search` skips it. */
  clearTree(slot: number): void;
  /** Whether the slot has a root, i.e. takes part in `search`. */
  hasTree(slot: number): boolean;
  /** The real game moved on by `action` to `nextState`; keep what can be kept. */
  advance(slot: number, action: number, nextState: S): void;
  /**
   * Runs the configured simulations for every slot with a live root, or `simulations[slot]` for each slot
   * when given (playout cap randomization searches some moves with a small budget).
   */
  search(simulations?: ArrayLike<number>): Promise<void>;
  /** Root visit counts per action (zeros for unvisited or illegal actions). */
  visitCounts(slot: number, out: Float32Array): Float32Array;
  /** Mean root value per seat, absolute seat order. */
  rootValue(slot: number, out?: Float32Array): Float32Array;
  /**
   * The policy the search teaches, a distribution over actions into `out[0..actionSize)`: the visit
   * counts, less forced playouts when they are on, or Gumbel's improved policy.
   */
  policyTarget(slot: number, out: Float32Array): Float32Array;
  /** The action the search itself picked (Gumbel), or -1 when the caller chooses from the visit counts. */
  selectedAction(slot: number): number;
  /**
   * Calls `visit` for each child of the slot's root that the search visited: its state, its visits and
   * its mean value per seat (absolute seat order; a proven child's exact value), in the tree's own scale.
   * Hidden-information engines visit every world's root, `world` telling them apart (0 for one tree).
   * The state and the array belong to the engine: read them before the next call. Optional: self-play
   * records these as value targets of the root's children (`SelfPlayOptions.childValueWorlds`).
   */
  forEachRootChild?(slot: number, visit: RootChildVisitor<S>): void;
}

/** See `SearchEngine.forEachRootChild`. */
export type RootChildVisitor<S> = (state: S, visits: number, value: Float32Array, world: number) => void;

const FLAG_EXPANDED = 1;
const FLAG_TERMINAL = 2;
const FLAG_PENDING = 4;
/** The node's exact value is in `terminalValue`: terminal, or proven from its children (see `SearchConfig.solve`). */
const FLAG_SOLVED = 8;
const NO_ACTIONS: ArrayLike<number> = new Int32Array(0);

/**
 * A batch of AlphaZero search trees in flat typed arrays, stepped in lock-step: each step selects up
 * to `leavesPerTree` leaves in every tree (virtual loss spreads them), encodes all of them into one
 * Float32Array, makes one evaluator call, then expands and backs up. Batching comes from the
 * construction (many trees x several leaves), never from waiting on a queue.
 *
 * Node `n` of tree `t` lives at index `t * nodeCapacity + n`; node 0 of a tree's region is its root.
 * Children of a node are contiguous (`firstChild .. firstChild + childCount`). Values are per seat.
 * Nodes are allocated from the front of the region (`nextFree`); the nodes at or past `nextFree` are free
 * and hold no state (`states[n]` undefined), so expansion writes a child's fields but never clears its state.
 */
export class BatchedMcts<S> implements SearchEngine<S> {
  /** How many trees (one per game or world searched) this instance holds. */
  readonly numTrees: number;
  /** The settings in force: {@link defaultSearchConfig} with the constructor's overrides. */
  readonly config: SearchConfig;
  /** Running totals since construction. */
  readonly stats: SearchStats = { evaluations: 0, evaluatorCalls: 0, simulations: 0, collisions: 0, capacityHits: 0 };

  private readonly P: number;
  private readonly A: number;
  private readonly cap: number;
  private readonly rng: Rng;

  // Per node (numTrees * cap).
  private readonly parent: Int32Array;
  private readonly actionOf: Int32Array;
  private readonly firstChild: Int32Array;
  private readonly childCount: Int32Array;
  private readonly visits: Int32Array;
  private readonly pendingVisits: Int32Array;
  private readonly prior: Float32Array;
  private readonly toPlay: Int8Array;
  private readonly flags: Uint8Array;
  private readonly valueSum: Float32Array; // * P
  private readonly terminalValue: Float32Array; // * P
  private readonly states: (S | undefined)[];

  // Per tree.
  private readonly nextFree: Int32Array;
  /** Global index of each tree's root: node 0 of its region after a reset or compaction. */
  private readonly rootOf: Int32Array;
  private readonly hasRoot: Uint8Array;
  private readonly rootNoised: Uint8Array;
  /** Since the root was set or advanced: simulations, the sum and the largest of their leaves' depths (see `searchDepth`). */
  private readonly depthSims: Float64Array;
  private readonly depthSum: Float64Array;
  private readonly depthMax: Int32Array;

  // Batch buffers (numTrees * leavesPerTree entries).
  private readonly maxBatch: number;
  private readonly leafNode: Int32Array;
  private readonly batchStates: S[];
  /** `config.solve`, and the game has no chance: results are proven below the root. */
  private readonly solveBelowRoot: boolean;
  /** Leaf i's legal-action list, when the game's masker provides `legalActions` (null otherwise). */
  private readonly leafLegal: ArrayLike<number>[] | null;
  /** Without `legalActions`: the legal actions read off one leaf's mask, for `expand`. */
  private readonly maskActions: Int32Array;
  /** Whether `evaluateBatch` fills the masks: the evaluator reads them, or `expand` does (no `legalActions`). */
  private readonly fillMasks: boolean;
  /** `legalActions` set (for the evaluator's call and the expansions after it) when the rows are compact. */
  private readonly batch: LeafBatch<S> & { count: number; legalActions?: readonly ArrayLike<number>[] };

  // Scratch.
  private readonly noise: Float64Array;
  private readonly oldOf: Int32Array;
  private readonly newOf: Int32Array;
  /** Compaction scratch: one tree's kept entries of a per-node array (cap * P values). */
  private readonly gather: Float64Array;
  /** Compaction scratch: one tree's kept states (all undefined between compactions). */
  private readonly stateScratch: (S | undefined)[];
  private readonly valueScratch: Float32Array;
  /** `forEachRootChild`'s value per seat, handed to its visitor. */
  private readonly childValue: Float32Array;
  /** The per-node arrays, for the root-selection modules (gumbel.ts, forced-playouts.ts). */
  private readonly arrays: TreeArrays;
  /** Gumbel root search state (`rootSelection: 'gumbel'`), else null. */
  private readonly gumbel: GumbelSearch | null;

  /**
   * @param game The rules searched.
   * @param evaluator Scores the leaves of every step in one call.
   * @param numTrees How many roots are searched side by side.
   * @param config Overrides of {@link defaultSearchConfig}.
   */
  constructor(
    readonly game: Game<S>,
    readonly evaluator: Evaluator<S>,
    numTrees: number,
    config: Partial<SearchConfig> = {},
  ) {
    this.config = { ...defaultSearchConfig, ...config };
    const c = this.config;
    if (!(numTrees >= 1)) throw new RangeError('BatchedMcts: numTrees must be >= 1');
    if (!(c.simulations >= 1)) throw new RangeError('BatchedMcts: simulations must be >= 1');
    if (!(c.leavesPerTree >= 1)) throw new RangeError('BatchedMcts: leavesPerTree must be >= 1');
    if (!(c.networkValueScale > 0 && c.networkValueScale <= 1)) throw new RangeError(`BatchedMcts: networkValueScale must be in (0, 1], got ${c.networkValueScale}`);
    this.numTrees = numTrees;
    this.P = game.numPlayers;
    this.A = game.masker.actionSize;
    this.cap = Math.max(2, c.nodeCapacity);
    this.rng = new Rng(c.seed);
    const total = numTrees * this.cap;
    this.parent = new Int32Array(total);
    this.actionOf = new Int32Array(total);
    this.firstChild = new Int32Array(total);
    this.childCount = new Int32Array(total);
    this.visits = new Int32Array(total);
    this.pendingVisits = new Int32Array(total);
    this.prior = new Float32Array(total);
    this.toPlay = new Int8Array(total);
    this.flags = new Uint8Array(total);
    this.valueSum = new Float32Array(total * this.P);
    this.terminalValue = new Float32Array(total * this.P);
    this.states = new Array<S | undefined>(total).fill(undefined);
    this.nextFree = new Int32Array(numTrees);
    this.rootOf = Int32Array.from({ length: numTrees }, (_, t) => t * this.cap);
    this.hasRoot = new Uint8Array(numTrees);
    this.solveBelowRoot = c.solve && !game.traits.chance;
    this.rootNoised = new Uint8Array(numTrees);
    this.depthSims = new Float64Array(numTrees);
    this.depthSum = new Float64Array(numTrees);
    this.depthMax = new Int32Array(numTrees);
    this.maxBatch = numTrees * c.leavesPerTree;
    this.leafNode = new Int32Array(this.maxBatch);
    this.batchStates = new Array<S>(this.maxBatch);
    this.leafLegal = game.masker.legalActions ? new Array<ArrayLike<number>>(this.maxBatch).fill(NO_ACTIONS) : null;
    this.maskActions = new Int32Array(this.leafLegal ? 0 : this.A);
    this.fillMasks = evaluator.needsMasks !== false || this.leafLegal === null;
    this.batch = {
      count: 0,
      actionSize: this.A,
      numSeats: this.P,
      states: this.batchStates,
      perspectives: new Int32Array(this.maxBatch),
      inputs: new Float32Array(evaluator.needsInputs ? this.maxBatch * game.encoder.size : 0),
      masks: new Uint8Array(this.maxBatch * this.A),
      policyLogits: new Float32Array(this.maxBatch * this.A),
      values: new Float32Array(this.maxBatch * this.P),
    };
    this.noise = new Float64Array(this.A);
    this.oldOf = new Int32Array(this.cap);
    this.newOf = new Int32Array(this.cap).fill(-1);
    this.gather = new Float64Array(this.cap * Math.max(1, this.P));
    this.stateScratch = new Array<S | undefined>(this.cap).fill(undefined);
    this.valueScratch = new Float32Array(this.P);
    this.childValue = new Float32Array(this.P);
    if (c.rootSelection !== 'puct' && c.rootSelection !== 'gumbel') throw new RangeError(`BatchedMcts: rootSelection must be 'puct' or 'gumbel', got ${String(c.rootSelection)}`);
    if (!(c.forcedPlayouts >= 0)) throw new RangeError(`BatchedMcts: forcedPlayouts must be >= 0, got ${c.forcedPlayouts}`);
    this.arrays = {
      P: this.P, actionOf: this.actionOf, firstChild: this.firstChild, childCount: this.childCount, visits: this.visits, pendingVisits: this.pendingVisits,
      prior: this.prior, toPlay: this.toPlay, flags: this.flags, valueSum: this.valueSum, terminalValue: this.terminalValue, solvedFlag: FLAG_SOLVED, virtualLoss: c.virtualLoss,
    };
    this.gumbel = c.rootSelection === 'gumbel' ? new GumbelSearch(this.arrays, c, numTrees, this.A, c.seed) : null;
  }

  /** Average positions per evaluator call so far. */
  get averageBatchSize(): number {
    return this.stats.evaluatorCalls ? this.stats.evaluations / this.stats.evaluatorCalls : 0;
  }

  /** Starts tree `tree` afresh at a copy of `state`. */
  setRoot(tree: number, state: S): void {
    const base = tree * this.cap;
    for (let n = base, end = base + this.nextFree[tree]; n < end; n++) this.states[n] = undefined;
    this.initNode(base, -1, -1, 0);
    this.states[base] = this.game.clone(state);
    this.markStateKnown(base);
    this.nextFree[tree] = 1;
    this.rootOf[tree] = base;
    this.hasRoot[tree] = 1;
    this.rootNoised[tree] = 0;
    this.resetDepth(tree);
  }

  /** Removes tree `tree` from the search (e.g. its game ended). */
  clearTree(tree: number): void {
    const base = tree * this.cap;
    for (let n = base, end = base + this.nextFree[tree]; n < end; n++) this.states[n] = undefined;
    this.nextFree[tree] = 0;
    this.rootOf[tree] = base;
    this.hasRoot[tree] = 0;
    this.resetDepth(tree);
  }

  /** Whether tree `tree` has a root (has been set and not cleared). */
  hasTree(tree: number): boolean {
    return this.hasRoot[tree] === 1;
  }

  /**
   * Moves tree `tree`'s root along `action`, keeping the searched subtree below it when the game has
   * no chance (with chance the tree's sampled outcome may differ from the real one, so it restarts
   * from `nextState`).
   */
  advance(tree: number, action: number, nextState: S): void {
    const child = this.game.traits.chance ? -1 : this.findChild(this.rootOf[tree], action);
    if (child < 0 || this.states[child] === undefined) {
      this.setRoot(tree, nextState);
      return;
    }
    // Re-rooting is a pointer move; the dropped siblings are reclaimed by compaction only once the
    // tree's region is half used, so most moves cost nothing.
    this.parent[child] = -1;
    this.rootOf[tree] = child;
    this.rootNoised[tree] = 0;
    this.resetDepth(tree);
    if (this.nextFree[tree] > this.cap / 2) this.compactSubtree(tree, child);
  }

  /** Runs `simulations` new simulations (or `simulations[t]` for tree t) in every tree that has a non-terminal root. */
  async search(simulations?: ArrayLike<number>): Promise<void> {
    const { numTrees } = this;
    const sims = this.config.simulations;
    if (simulations !== undefined && simulations.length < numTrees) throw new RangeError(`BatchedMcts.search: ${simulations.length} budgets for ${numTrees} trees`);
    const remaining = new Int32Array(numTrees);
    for (let t = 0; t < numTrees; t++) {
      const root = this.rootOf[t];
      if (!this.hasRoot[t] || this.flags[root] & FLAG_TERMINAL) continue;
      remaining[t] = simulations === undefined ? sims : simulations[t];
      this.gumbel?.beginSearch(t, remaining[t], (this.flags[root] & FLAG_EXPANDED) !== 0);
      if (this.flags[root] & FLAG_EXPANDED) {
        // After a re-root the new root's children (and theirs) may not have been resolved yet.
        this.resolveChildren(root, 0);
        this.applyRootNoise(t);
      }
    }
    for (;;) {
      let any = false;
      this.batch.count = 0;
      for (let t = 0; t < numTrees; t++) {
        if (remaining[t] <= 0) continue;
        any = true;
        remaining[t] -= this.collectLeaves(t, Math.min(this.config.leavesPerTree, remaining[t]));
      }
      if (!any) break;
      if (this.batch.count > 0) await this.evaluateBatch();
    }
  }

  /** Visit counts of the root's children, written into `out[0..actionSize)` (zeros elsewhere). */
  visitCounts(tree: number, out: Float32Array): Float32Array {
    out.fill(0, 0, this.A);
    const root = this.rootOf[tree];
    const first = this.firstChild[root];
    for (let k = 0; k < this.childCount[root]; k++) out[this.actionOf[first + k]] = this.visits[first + k];
    return out;
  }

  /** Mean value per seat at the root (absolute seat order). */
  rootValue(tree: number, out: Float32Array = new Float32Array(this.P)): Float32Array {
    const root = this.rootOf[tree];
    const n = Math.max(1, this.visits[root]);
    for (let j = 0; j < this.P; j++) out[j] = this.valueSum[root * this.P + j] / n;
    return out;
  }

  policyTarget(tree: number, out: Float32Array): Float32Array {
    const root = this.rootOf[tree];
    if (this.gumbel) return this.gumbel.improvedPolicy(root, out);
    if (this.config.forcedPlayouts > 0) prunedRootVisits(this.arrays, root, this.config.cPuct, this.config.forcedPlayouts, out, this.A);
    else this.visitCounts(tree, out);
    normalizeVisits(out, this.A);
    return out;
  }

  selectedAction(tree: number): number {
    return this.gumbel && this.hasRoot[tree] ? this.gumbel.selectedAction(tree, this.rootOf[tree]) : -1;
  }

  forEachRootChild(tree: number, visit: RootChildVisitor<S>, world = 0): void {
    if (!this.hasRoot[tree]) return;
    const P = this.P;
    const root = this.rootOf[tree];
    const first = this.firstChild[root];
    const value = this.childValue;
    for (let k = 0; k < this.childCount[root]; k++) {
      const c = first + k;
      const n = this.visits[c];
      const state = this.states[c];
      if (n === 0 || state === undefined) continue;
      if (this.flags[c] & FLAG_SOLVED) for (let j = 0; j < P; j++) value[j] = this.terminalValue[c * P + j];
      else for (let j = 0; j < P; j++) value[j] = this.valueSum[c * P + j] / n;
      visit(state, n, value, world);
    }
  }

  /** Visits of tree `tree`'s root: the simulations spent on its current position so far (a UCI node budget counts them). */
  rootVisits(tree: number): number {
    return this.visits[this.rootOf[tree]];
  }

  /**
   * The principal variation: from the root, the most visited child at each level, while it has visits
   * (at most `maxLength` actions).
   */
  principalVariation(tree: number, maxLength = 64): number[] {
    const line: number[] = [];
    let n = this.rootOf[tree];
    while (line.length < maxLength && this.childCount[n] > 0) {
      const first = this.firstChild[n];
      let best = -1;
      for (let k = 0; k < this.childCount[n]; k++) if (this.visits[first + k] > 0 && (best < 0 || this.visits[first + k] > this.visits[best])) best = first + k;
      if (best < 0) break;
      line.push(this.actionOf[best]);
      n = best;
    }
    return line;
  }

  /** Nodes in use in tree `tree`. */
  treeSize(tree: number): number {
    return this.nextFree[tree];
  }

  /**
   * How deep the simulations of tree `tree` went since its root was last set or advanced: their number,
   * the mean depth of the leaves they ended at and the deepest one, in plies below the root (the root's
   * own first evaluation is depth 0, a root child 1; a simulation ending at a terminal or proven node
   * counts that node's depth). UCI engines report these as `depth` and `seldepth`.
   */
  searchDepth(tree: number): {
    /** Simulations counted. */
    readonly simulations: number;
    /** Mean leaf depth, in plies below the root (0 before any simulation). */
    readonly mean: number;
    /** Deepest leaf reached, in plies below the root. */
    readonly max: number;
  } {
    const simulations = this.depthSims[tree];
    return { simulations, mean: simulations > 0 ? this.depthSum[tree] / simulations : 0, max: this.depthMax[tree] };
  }

  // ---- internals -------------------------------------------------------------------------------

  private resetDepth(tree: number): void {
    this.depthSims[tree] = 0;
    this.depthSum[tree] = 0;
    this.depthMax[tree] = 0;
  }

  private initNode(n: number, parent: number, action: number, prior: number): void {
    this.parent[n] = parent;
    this.actionOf[n] = action;
    this.firstChild[n] = -1;
    this.childCount[n] = 0;
    this.visits[n] = 0;
    this.pendingVisits[n] = 0;
    this.prior[n] = prior;
    this.toPlay[n] = -1;
    this.flags[n] = 0;
    // A plain loop: TypedArray.fill on a tiny range costs more than it saves here (hot path).
    for (let j = n * this.P, end = j + this.P; j < end; j++) this.valueSum[j] = 0;
  }

  /** Records whose turn it is at node `n` and whether it is terminal, from its state. */
  private markStateKnown(n: number): void {
    const state = this.states[n] as S;
    if (this.game.isTerminal(state)) {
      this.flags[n] |= FLAG_TERMINAL | FLAG_SOLVED;
      this.toPlay[n] = -1;
      this.terminalValue.set(this.game.returns(state).subarray(0, this.P), n * this.P);
      this.propagateSolved(n);
    } else {
      this.toPlay[n] = this.game.currentPlayer(state);
    }
  }

  /**
   * Solved node `n` may prove its parent, and that one its own: see `SearchConfig.solve`. Without
   * `solveBelowRoot`, only the root is proven, and only by a child worth 1 to the root's seat to move: a
   * net whose value is already near 1 in won positions would otherwise leave a mate in one with the few
   * visits its prior earns, and shuffle a won game into a repetition draw.
   */
  private propagateSolved(n: number): void {
    const P = this.P;
    const root = this.rootOf[Math.floor(n / this.cap)];
    for (let c = n; c !== root; ) {
      const p = this.parent[c];
      if (p < 0 || this.flags[p] & FLAG_SOLVED) return;
      if (p !== root && !this.solveBelowRoot) return;
      const seat = this.toPlay[p];
      let proof = this.terminalValue[c * P + seat] >= 1 ? c : -1;
      if (proof < 0) {
        if (!this.solveBelowRoot) return;
        let best = -Infinity;
        for (let k = this.firstChild[p], end = k + this.childCount[p]; k < end; k++) {
          if (!(this.flags[k] & FLAG_SOLVED)) return;
          const v = this.terminalValue[k * P + seat];
          if (v > best) {
            best = v;
            proof = k;
          }
        }
      }
      this.terminalValue.copyWithin(p * P, proof * P, proof * P + P);
      this.flags[p] |= FLAG_SOLVED;
      c = p;
    }
  }

  private findChild(node: number, action: number): number {
    const first = this.firstChild[node];
    for (let k = 0; k < this.childCount[node]; k++) if (this.actionOf[first + k] === action) return first + k;
    return -1;
  }

  /** PUCT child choice at expanded node `n`, for the seat to move there. */
  private selectChild(n: number): number {
    if (this.gumbel) return this.parent[n] < 0 ? this.gumbel.selectRoot(Math.floor(n / this.cap), n) : this.gumbel.selectInterior(n);
    const P = this.P;
    const seat = this.toPlay[n];
    const { cPuct, virtualLoss, fpuReduction } = this.config;
    const parentN = this.visits[n] + this.pendingVisits[n];
    const sqrtN = Math.sqrt(Math.max(1, parentN));
    const parentQ = this.visits[n] > 0 ? this.valueSum[n * P + seat] / this.visits[n] : 0;
    const fpu = parentQ - fpuReduction;
    const first = this.firstChild[n];
    const end = first + this.childCount[n];
    // Only the root is selected from once solved: a proven win there (always in play) takes every simulation.
    const proven = (this.flags[n] & FLAG_SOLVED) !== 0;
    const forcedK = this.parent[n] < 0 && !proven ? this.config.forcedPlayouts : 0;
    let best = first;
    let bestScore = -Infinity;
    for (let c = first; c < end; c++) {
      const nc = this.visits[c] + this.pendingVisits[c];
      let q: number;
      if (this.flags[c] & FLAG_SOLVED) {
        // Terminal (known before its first visit, see resolveDepth) or proven: the value is exact.
        q = this.terminalValue[c * P + seat];
        if (proven && q >= 1) return c;
      } else {
        q = nc > 0 ? (this.valueSum[c * P + seat] - virtualLoss * this.pendingVisits[c]) / nc : fpu;
      }
      if (forcedK > 0 && nc > 0 && nc < forcedPlayouts(forcedK, this.prior[c], parentN)) return c;
      const score = q + (cPuct * this.prior[c] * sqrtN) / (1 + nc);
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    return best;
  }

  /**
   * Selects up to `wanted` leaves in tree `t`, queueing non-terminal ones for evaluation and backing up
   * terminal ones at once. Returns the simulations it accounted for (queued + terminal). Stops early
   * on a collision (the path led to a leaf already queued): further picks would likely repeat it.
   */
  private collectLeaves(t: number, wanted: number): number {
    const root = this.rootOf[t];
    let done = 0;
    while (done < wanted) {
      let n = root;
      // Down to a leaf, or to a solved node below the root (its value needs no evaluation).
      while ((this.flags[n] & (FLAG_EXPANDED | FLAG_TERMINAL)) === FLAG_EXPANDED && (n === root || !(this.flags[n] & FLAG_SOLVED))) n = this.selectChild(n);
      if (this.states[n] === undefined) {
        const parentState = this.states[this.parent[n]] as S;
        const state = this.game.clone(parentState);
        this.game.applyAction(state, this.actionOf[n], this.rng);
        this.states[n] = state;
        this.markStateKnown(n);
      }
      if (this.flags[n] & FLAG_SOLVED) {
        this.backup(n, this.terminalValue, n * this.P, false);
        done++;
        continue;
      }
      if (this.flags[n] & FLAG_PENDING) {
        this.stats.collisions++;
        break;
      }
      this.flags[n] |= FLAG_PENDING;
      this.addPendingVisit(n);
      const i = this.batch.count++;
      this.leafNode[i] = n;
      this.batchStates[i] = this.states[n] as S;
      this.batch.perspectives[i] = this.toPlay[n];
      done++;
    }
    return done;
  }

  private addPendingVisit(leaf: number): void {
    for (let n = leaf; n >= 0; n = this.parent[n]) this.pendingVisits[n]++;
  }

  /**
   * Adds `scale * values[offset..offset+P)` along the path from `leaf` to its root; releases virtual loss
   * when `pending`.
   */
  private backup(leaf: number, values: Float32Array, offset: number, pending: boolean, scale = 1): void {
    const P = this.P;
    const v = this.valueScratch;
    for (let j = 0; j < P; j++) v[j] = scale * values[offset + j];
    let depth = -1;
    for (let n = leaf; n >= 0; n = this.parent[n]) {
      this.visits[n]++;
      if (pending) this.pendingVisits[n]--;
      const b = n * P;
      for (let j = 0; j < P; j++) this.valueSum[b + j] += v[j];
      depth++;
    }
    const t = Math.floor(leaf / this.cap);
    this.depthSims[t]++;
    this.depthSum[t] += depth;
    if (depth > this.depthMax[t]) this.depthMax[t] = depth;
    this.stats.simulations++;
  }

  private async evaluateBatch(): Promise<void> {
    const { game, batch, A } = this;
    const count = batch.count;
    const encSize = game.encoder.size;
    const listed = this.leafLegal;
    for (let i = 0; i < count; i++) {
      const state = this.batchStates[i];
      if (this.fillMasks) game.masker.fillMask(state, batch.masks, i * A);
      // Taken before the evaluator runs: it may not touch the states, so the lists stay valid until expand.
      if (listed && game.masker.legalActions) listed[i] = game.masker.legalActions(state);
      if (this.evaluator.needsInputs) game.encoder.encode(state, batch.perspectives[i], batch.inputs, i * encSize);
    }
    // Read per call: an evaluator's network (and so what it can return) may change between searches.
    batch.legalActions = listed !== null && this.evaluator.legalLogits === true ? listed : undefined;
    await this.evaluator.evaluate(batch);
    this.stats.evaluations += count;
    this.stats.evaluatorCalls++;
    for (let i = 0; i < count; i++) {
      const leaf = this.leafNode[i];
      this.flags[leaf] &= ~FLAG_PENDING;
      this.expand(leaf, i);
      this.backup(leaf, batch.values, i * this.P, true, this.config.networkValueScale);
      this.batchStates[i] = undefined as unknown as S;
      if (listed) listed[i] = NO_ACTIONS;
    }
  }

  /**
   * Creates the children of `leaf` with priors from the masked softmax of batch entry `i`'s logits: over
   * the game's legal-action list when it has one (O(legal)), else by scanning the mask (O(actionSize)).
   */
  private expand(leaf: number, i: number): void {
    const { A, batch } = this;
    const t = Math.floor(leaf / this.cap);
    const rowBase = i * A;
    const logits = batch.policyLogits;
    // One list either way: the game's own, or the mask's legal actions in increasing order.
    let list: ArrayLike<number>;
    let legal: number;
    if (this.leafLegal) {
      list = this.leafLegal[i];
      legal = list.length;
    } else {
      const masks = batch.masks;
      const scratch = this.maskActions;
      legal = 0;
      for (let a = 0; a < A; a++) if (masks[rowBase + a]) scratch[legal++] = a;
      list = scratch;
    }
    // Compact rows hold the k-th listed action's logit at k; full rows at the action's index.
    const compact = batch.legalActions !== undefined;
    let maxLogit = -Infinity;
    for (let k = 0; k < legal; k++) {
      const l = logits[rowBase + (compact ? k : list[k])];
      if (l > maxLogit) maxLogit = l;
    }
    if (legal === 0) throw new Error(`${this.game.traits.id}: non-terminal state with no legal action`);
    if (this.nextFree[t] + legal > this.cap) {
      this.stats.capacityHits++;
      return;
    }
    const base = t * this.cap;
    const first = base + this.nextFree[t];
    this.nextFree[t] += legal;
    let sum = 0;
    let c = first;
    for (let k = 0; k < legal; k++, c++) {
      const a = list[k];
      const p = Math.exp(logits[rowBase + (compact ? k : a)] - maxLogit);
      // Free nodes hold no state (see the class comment), so the new children need no clearing of `states`.
      this.initNode(c, leaf, a, p);
      sum += p;
    }
    for (c = first; c < first + legal; c++) this.prior[c] /= sum;
    this.firstChild[leaf] = first;
    this.childCount[leaf] = legal;
    this.flags[leaf] |= FLAG_EXPANDED;
    const root = this.rootOf[t];
    if (leaf === root) {
      this.resolveChildren(leaf, 0);
      this.applyRootNoise(t);
    } else if (this.config.resolveDepth >= 2 && this.parent[leaf] === root) {
      this.resolveChildren(leaf, 1);
    }
  }

  /**
   * Computes the states of node `n`'s children (at `depth` below its tree's root) so terminal ones
   * are known before any is visited, then recurses while `resolveDepth` allows. At the root it also
   * proves the root from children solved earlier (after a re-root). Children already resolved cost a check each.
   */
  private resolveChildren(n: number, depth: number): void {
    if (depth >= this.config.resolveDepth) return;
    const isRoot = depth === 0;
    const first = this.firstChild[n];
    const end = first + this.childCount[n];
    const state = this.states[n] as S;
    for (let c = first; c < end; c++) {
      if (this.states[c] === undefined) {
        const child = this.game.clone(state);
        this.game.applyAction(child, this.actionOf[c], this.rng);
        this.states[c] = child;
        this.markStateKnown(c);
      } else if (isRoot && this.flags[c] & FLAG_SOLVED) {
        this.propagateSolved(c);
      }
    }
    if (depth + 1 < this.config.resolveDepth) {
      for (let c = first; c < end; c++) if (this.flags[c] & FLAG_EXPANDED) this.resolveChildren(c, depth + 1);
    }
  }

  private applyRootNoise(t: number): void {
    const { dirichletAlpha, dirichletEpsilon } = this.config;
    // Gumbel's root noise replaces Dirichlet's, and its improved policy reads the network's own priors.
    if (this.gumbel || this.rootNoised[t] || dirichletAlpha <= 0 || dirichletEpsilon <= 0) return;
    const root = this.rootOf[t];
    const first = this.firstChild[root];
    const n = this.childCount[root];
    if (n <= 0) return;
    this.rng.dirichlet(dirichletAlpha, this.noise, n);
    for (let k = 0; k < n; k++) this.prior[first + k] = (1 - dirichletEpsilon) * this.prior[first + k] + dirichletEpsilon * this.noise[k];
    this.rootNoised[t] = 1;
  }

  /**
   * Makes `newRoot` (a node of tree `t`) the root, moving its subtree to the front of the tree's region
   * in breadth-first order (children stay contiguous) and dropping everything else.
   */
  private compactSubtree(t: number, newRoot: number): void {
    const base = t * this.cap;
    const used = this.nextFree[t];
    const { oldOf, newOf } = this;
    // Breadth-first order of the kept subtree, in local indices.
    oldOf[0] = newRoot - base;
    let count = 1;
    for (let i = 0; i < count; i++) {
      const o = base + oldOf[i];
      if (this.flags[o] & FLAG_EXPANDED) {
        const first = this.firstChild[o] - base;
        for (let k = 0; k < this.childCount[o]; k++) oldOf[count++] = first + k;
      }
    }
    for (let i = 0; i < count; i++) newOf[oldOf[i]] = i;
    // Gather the kept nodes' entries (only those) into scratch, then write them back at their new index:
    // no allocation, and the dropped part of the region is never copied.
    const P = this.P;
    this.permuteKept(this.actionOf, 1, base, count);
    this.permuteKept(this.childCount, 1, base, count);
    this.permuteKept(this.visits, 1, base, count);
    this.permuteKept(this.pendingVisits, 1, base, count);
    this.permuteKept(this.prior, 1, base, count);
    this.permuteKept(this.toPlay, 1, base, count);
    this.permuteKept(this.flags, 1, base, count);
    this.permuteKept(this.valueSum, P, base, count);
    this.permuteKept(this.terminalValue, P, base, count);
    const g = this.gather;
    for (let i = 0; i < count; i++) {
      const parent = this.parent[base + oldOf[i]];
      g[i] = i === 0 ? -1 : base + newOf[parent - base];
    }
    for (let i = 0; i < count; i++) this.parent[base + i] = g[i];
    for (let i = 0; i < count; i++) {
      const first = this.firstChild[base + oldOf[i]];
      g[i] = first < 0 ? -1 : base + newOf[first - base];
    }
    for (let i = 0; i < count; i++) this.firstChild[base + i] = g[i];
    const keptStates = this.stateScratch;
    for (let i = 0; i < count; i++) keptStates[i] = this.states[base + oldOf[i]];
    for (let i = 0; i < count; i++) {
      this.states[base + i] = keptStates[i];
      keptStates[i] = undefined;
    }
    for (let i = count; i < used; i++) this.states[base + i] = undefined;
    for (let i = 0; i < count; i++) newOf[oldOf[i]] = -1;
    this.actionOf[base] = -1;
    this.prior[base] = 0;
    this.nextFree[t] = count;
    this.rootOf[t] = base;
  }

  /**
   * Moves entry `oldOf[i]` (local index, `width` values each) of a per-node array to local index i, for
   * i < count, through the `gather` scratch (float64 holds every per-node type exactly).
   */
  private permuteKept(arr: Int32Array | Int8Array | Uint8Array | Float32Array, width: number, base: number, count: number): void {
    const { oldOf, gather } = this;
    const offset = base * width;
    for (let i = 0, k = 0; i < count; i++) {
      const from = offset + oldOf[i] * width;
      for (let j = 0; j < width; j++) gather[k++] = arr[from + j];
    }
    for (let k = 0, end = count * width; k < end; k++) arr[offset + k] = gather[k];
  }
}

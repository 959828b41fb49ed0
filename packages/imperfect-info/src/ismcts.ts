import { Rng, type Determinizer, type Game } from '@az/core';
import { checkGumbelSettings, completeAndScaleQ, consideredVisit, improvedPolicyInPlace, defaultSearchConfig, gumbelNoisyLogit, halvingChoice, normalizeVisits, type Evaluator, type GumbelSettings, type LeafBatch, type SearchConfig, type SearchEngine, type SearchStats } from '@az/mcts';
import { maskedSoftmax } from './masked-softmax.js';
import { sampleWorlds, type WorldWeigher } from './world-inference.js';

/** Inference over worlds for information-set search: a weighed pool of worlds per move instead of uniform samples. */
export interface WorldInference<S> {
  readonly weigher: WorldWeigher<S>;
  /** Worlds sampled and weighed per move; each simulation draws one of them by weight (default 128). */
  readonly candidates?: number;
}

/**
 * Priors at the nodes where a seat other than the observer (the root's mover) acts. 'uniform': every
 * action legal in the simulation's world alike. 'first-world': the network's policy for that seat in
 * the first world that reached the node, kept for every later world; that seat's hand differs from
 * world to world, so those priors steer its play towards the cards it held in one sampled world (an
 * action it could not play there gets 1 / actionSize).
 */
export type OtherSeatPriors = 'uniform' | 'first-world';

/**
 * How a seat other than the observer chooses its action in the tree. 'search': PUCT over the node's
 * statistics (mixed over every world that reached it), priors as `OtherSeatPriors` say. 'policy': drawn
 * from that seat's own-view policy in the simulation's world (`InformationSetOptions.otherSeatPolicy`,
 * the network as the model of every other player): its choice then depends on the cards it holds in
 * that world, which a node shared by all worlds cannot express. One extra policy evaluation per such
 * node on a simulation's path.
 */
export type OtherSeatMoves = 'search' | 'policy';

/** The default `OtherSeatMoves`. */
export const DEFAULT_OTHER_SEAT_MOVES: OtherSeatMoves = 'search';

/** The default `OtherSeatPriors` (measured in packages/imperfect-info/README.md). */
export const DEFAULT_OTHER_SEAT_PRIORS: OtherSeatPriors = 'uniform';

/** Options of information-set search beyond `SearchConfig`. */
export interface InformationSetOptions<S> {
  /** Inference over worlds (a weighed pool per move); default: worlds sampled uniformly from the observer's view. */
  readonly inference?: WorldInference<S>;
  /** Default `DEFAULT_OTHER_SEAT_PRIORS`. */
  readonly otherSeatPriors?: OtherSeatPriors;
  /** Default `DEFAULT_OTHER_SEAT_MOVES`; 'policy' needs `otherSeatPolicy`. */
  readonly otherSeatMoves?: OtherSeatMoves;
  /**
   * The policy of the other seats for `otherSeatMoves: 'policy'`: evaluated on the simulation's world
   * from the seat to move's perspective (its own view: the evaluator's encoding), values ignored.
   */
  readonly otherSeatPolicy?: Evaluator<S>;
}

/** One node of an information-set tree: reached by one sequence of (public) actions from the root. */
class IsNode {
  readonly children = new Map<number, IsNode>();
  /** Visits, counting the simulations still waiting for their leaf evaluation (`pending`). */
  visits = 0;
  /** Simulations through this node waiting for their leaf's evaluation (virtual visits). */
  pending = 0;
  /** Times this node was selectable (its action legal in the simulation's world): ISMCTS's "availability". */
  availability = 0;
  readonly valueSum: Float64Array;
  /** Prior over actions from the evaluation of the first world that reached it; null until then. */
  priors: Float32Array | null = null;

  constructor(
    numSeats: number,
    readonly prior: number,
  ) {
    this.valueSum = new Float64Array(numSeats);
  }
}

interface Slot<S> {
  root: IsNode;
  rootState: S;
  rootSeat: number;
  /** With inference: the weighed worlds of this move (undefined until weighed; null when nothing was observed to weigh them by). */
  pool?: { worlds: S[]; cumulative: Float64Array } | null;
  /** Gumbel root search of the current `search` call (rootSelection 'gumbel'); null until the root has priors. */
  gumbel?: GumbelRoot | null;
  /** Simulations the current `search` call gives this slot after the root's own evaluation. */
  gumbelBudget?: number;
}

/**
 * Gumbel root search over one information-set root: the root's actions are the observer's legal actions,
 * the same in every world, so one Gumbel-top-m and one sequential halving over them serve every sampled
 * world (one Gumbel root per information set, not per world as in determinized search).
 */
interface GumbelRoot {
  readonly actions: number[];
  readonly children: IsNode[];
  /** Each child's prior (the root's network policy), fixed for the move. */
  readonly priors: Float64Array;
  /** g + log prior per root child, g ~ Gumbel(0, 1). */
  readonly scores: Float64Array;
  /** Each child's visits when this search began (a second `search` on the same root counts only its own). */
  readonly baseVisits: Int32Array;
}

/** A leaf batch the search fills and owns (`LeafBatch` is read-only to evaluators). */
type OwnBatch<S> = { -readonly [K in keyof LeafBatch<S>]: LeafBatch<S>[K] } & { states: S[] };

/**
 * One simulation on its way down: paused at a leaf (waiting for its evaluation) or, with
 * `otherSeatMoves: 'policy'`, at another seat's node (waiting for that seat's policy in `world`).
 */
interface Walk<S> {
  readonly slot: Slot<S>;
  readonly world: S;
  /** Root first; the last node is where the walk stands. */
  readonly path: IsNode[];
  /** `path[0 .. marked)` carry this walk's virtual visit (taken when it pauses, so walks in flight spread out). */
  marked: number;
  /** The mover's policy in `world` at the last node, once evaluated (a row of `policyRows`); used by the next step down. */
  policy: Float32Array | null;
}

/**
 * Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) as a
 * `SearchEngine`: per slot ONE tree over the acting seat's information sets, and a fresh world sampled
 * from that seat's view for every simulation. A simulation descends only through actions legal in its
 * world, so statistics are shared across worlds instead of split over D separate trees (no strategy
 * fusion at the root: one tree, one set of visit counts per information set).
 *
 * Nodes are keyed by the action sequence since the root, which identifies the observer's information
 * set when every action is visible to the observer (true of Blob: bids and cards played are public).
 * Selection is PUCT with the child's availability (how often it was legal) in place of the parent's
 * visit count; a node's priors come from the evaluation of the first world that reached it. Leaves
 * from all slots (`leavesPerTree` simulations each, kept apart by a virtual visit) go to the evaluator
 * in one batch, like `DeterminizedMcts`. `simulations` is the total
 * per move: `D x S` of determinized search is `D * S` here, at equal evaluator work.
 *
 * The observer's own nodes take the network's priors (its own hand is the same in every world); the
 * other seats' nodes are uniform over the actions legal in the simulation's world by default
 * (`OtherSeatPriors`). With `otherSeatMoves: 'policy'` the other seats do not choose by their nodes'
 * statistics: a simulation pauses at such a node until `otherSeatPolicy` has given that seat's policy
 * in the simulation's world (one batched call per round of paused simulations), and draws its move.
 *
 * With `inference` (`WorldInference`) the worlds are not uniform: each move samples a pool of worlds,
 * weighs them by what the other seats did (e.g. `PolicyWorldWeigher`), and every simulation draws its
 * world from the pool by weight.
 *
 * Root Dirichlet noise as `BatchedMcts` adds it: `dirichletAlpha` and `dirichletEpsilon` from the config
 * (default `defaultSearchConfig`'s 0.3 and 0.25; either at 0 turns it off, as agents that play for real
 * do through `playSearchConfig`), drawn from the search's seeded RNG and mixed into the root's priors
 * once per move, when the root is first evaluated: `(1 - epsilon) * prior + epsilon * noise` over the
 * observer's legal actions (the same in every world), 0 elsewhere.
 *
 * Gumbel root search (`rootSelection: 'gumbel'`): one Gumbel root per information set. The root's
 * actions are the observer's legal actions, the same in every world, so Gumbel-top-m and sequential
 * halving run once over them while each simulation still samples its own world; the policy target is
 * the improved policy softmax(log prior + σ(completed Q)) and the move is the halving's winner
 * (`selectedAction`), as in `BatchedMcts` (same m, c_visit and c_scale; no Dirichlet noise, Gumbel's
 * noise takes its place). Below the root selection stays PUCT with availability: a node's priors and
 * values mix worlds, and ISMCTS's availability count has no place in mctx's interior rule.
 *
 * Not supported (ignored): tree reuse across moves (`advance` starts a fresh root), solving. Refused:
 * forced playouts.
 */
export class InformationSetMcts<S> implements SearchEngine<S> {
  readonly numTrees: number;
  readonly stats: SearchStats = { evaluations: 0, evaluatorCalls: 0, simulations: 0, collisions: 0, capacityHits: 0 };
  private readonly slots: (Slot<S> | null)[];
  private readonly determinizer: Determinizer<S>;
  private readonly rng: Rng;
  private readonly gumbelRng: Rng;
  private readonly P: number;
  private readonly A: number;
  private readonly simulations: number;
  private readonly leavesPerTree: number;
  private readonly cPuct: number;
  private readonly fpuReduction: number;
  private readonly dirichletAlpha: number;
  private readonly dirichletEpsilon: number;
  /** Gumbel root search's m, c_visit and c_scale, or null for PUCT at the root. */
  private readonly gumbel: GumbelSettings | null;
  /** Scratch for one root's Dirichlet sample. */
  private readonly noise: Float64Array;
  private readonly mask: Uint8Array;
  private readonly candidates: number;
  private readonly inference: WorldInference<S> | undefined;
  private readonly otherSeatPriors: OtherSeatPriors;
  private readonly otherSeatMoves: OtherSeatMoves;
  private readonly otherSeatPolicy: Evaluator<S> | undefined;
  /** The other seats' policy requests of one round (`otherSeatMoves: 'policy'`), else null. */
  private readonly policyBatch: OwnBatch<S> | null;
  /**
   * One row of probabilities per request of a round (`otherSeatMoves: 'policy'`), views made once: a
   * resumed walk draws its move from its row before the next round's call overwrites the rows.
   */
  private readonly policyRows: Float32Array[];
  private readonly batch: OwnBatch<S>;

  constructor(
    readonly game: Game<S>,
    readonly evaluator: Evaluator<S>,
    slots: number,
    config: Partial<SearchConfig> = {},
    options: InformationSetOptions<S> = {},
  ) {
    this.inference = options.inference;
    this.otherSeatPriors = options.otherSeatPriors ?? DEFAULT_OTHER_SEAT_PRIORS;
    if (this.otherSeatPriors !== 'uniform' && this.otherSeatPriors !== 'first-world') throw new RangeError(`InformationSetMcts: otherSeatPriors must be 'uniform' or 'first-world', got ${String(this.otherSeatPriors)}`);
    this.otherSeatMoves = options.otherSeatMoves ?? DEFAULT_OTHER_SEAT_MOVES;
    if (this.otherSeatMoves !== 'search' && this.otherSeatMoves !== 'policy') throw new RangeError(`InformationSetMcts: otherSeatMoves must be 'search' or 'policy', got ${String(this.otherSeatMoves)}`);
    this.otherSeatPolicy = options.otherSeatPolicy;
    if (this.otherSeatMoves === 'policy' && !this.otherSeatPolicy) throw new Error("InformationSetMcts: otherSeatMoves 'policy' needs otherSeatPolicy (an evaluator giving the other seats' policy, e.g. the network)");
    // Their nodes' priors only steer PUCT, which 'policy' replaces: refused rather than silently ignored.
    if (this.otherSeatMoves === 'policy' && this.otherSeatPriors !== DEFAULT_OTHER_SEAT_PRIORS) throw new RangeError(`InformationSetMcts: otherSeatPriors '${this.otherSeatPriors}' has no effect when the other seats move by their policy (otherSeatMoves 'policy')`);
    this.candidates = this.inference?.candidates ?? 128;
    if (!(Number.isInteger(this.candidates) && this.candidates >= 1)) throw new RangeError(`InformationSetMcts: inference candidates must be a positive integer, got ${this.candidates}`);
    if (!(Number.isInteger(slots) && slots >= 1)) throw new RangeError(`InformationSetMcts: slots must be a positive integer, got ${slots}`);
    if (!game.determinizer) throw new Error(`${game.traits.id} has no determinizer (Game.determinizer), so it cannot be searched by information-set MCTS`);
    this.determinizer = game.determinizer;
    this.numTrees = slots;
    this.slots = new Array<Slot<S> | null>(slots).fill(null);
    this.P = game.numPlayers;
    this.A = game.masker.actionSize;
    this.simulations = config.simulations ?? 90;
    this.leavesPerTree = Math.max(1, config.leavesPerTree ?? 8);
    // Refused rather than ignored: a run asking for them would otherwise train on plain visit counts unawares.
    const rootSelection = config.rootSelection ?? defaultSearchConfig.rootSelection;
    if (rootSelection !== 'puct' && rootSelection !== 'gumbel') throw new RangeError(`InformationSetMcts: rootSelection must be 'puct' or 'gumbel', got ${String(rootSelection)}`);
    if (rootSelection === 'gumbel') {
      this.gumbel = {
        gumbelConsideredActions: config.gumbelConsideredActions ?? defaultSearchConfig.gumbelConsideredActions,
        gumbelCVisit: config.gumbelCVisit ?? defaultSearchConfig.gumbelCVisit,
        gumbelCScale: config.gumbelCScale ?? defaultSearchConfig.gumbelCScale,
      };
      checkGumbelSettings(this.gumbel, 'InformationSetMcts: ');
    } else this.gumbel = null;
    if ((config.forcedPlayouts ?? 0) > 0) throw new RangeError('InformationSetMcts: forced playouts are not supported by information-set search');
    this.cPuct = config.cPuct ?? 1.5;
    this.fpuReduction = config.fpuReduction ?? 0.2;
    this.dirichletAlpha = config.dirichletAlpha ?? defaultSearchConfig.dirichletAlpha;
    this.dirichletEpsilon = config.dirichletEpsilon ?? defaultSearchConfig.dirichletEpsilon;
    this.rng = new Rng(`ismcts:${config.seed ?? 0}`);
    // Its own stream, as in BatchedMcts: turning Gumbel on must not shift the worlds sampled.
    this.gumbelRng = new Rng(`ismcts-gumbel:${config.seed ?? 0}`);
    this.mask = new Uint8Array(this.A);
    this.noise = new Float64Array(this.A);
    // Walks in flight at once: a step's simulations, at most leavesPerTree per slot (one per fresh root);
    // leaves and policy requests are each a subset of them.
    const maxBatch = slots * this.leavesPerTree;
    this.batch = this.newBatch(evaluator, maxBatch);
    this.policyBatch = this.otherSeatMoves === 'policy' ? this.newBatch(this.otherSeatPolicy!, maxBatch) : null;
    const probs = new Float32Array(this.policyBatch ? maxBatch * this.A : 0);
    this.policyRows = this.policyBatch ? Array.from({ length: maxBatch }, (_, i) => probs.subarray(i * this.A, (i + 1) * this.A)) : [];
  }

  private newBatch(evaluator: Evaluator<S>, capacity: number): OwnBatch<S> {
    return {
      count: 0,
      actionSize: this.A,
      numSeats: this.P,
      states: [],
      perspectives: new Int32Array(capacity),
      inputs: new Float32Array(evaluator.needsInputs ? capacity * this.game.encoder.size : 0),
      masks: new Uint8Array(capacity * this.A),
      policyLogits: new Float32Array(capacity * this.A),
      values: new Float32Array(capacity * this.P),
    };
  }

  get averageBatchSize(): number {
    return this.stats.evaluatorCalls ? this.stats.evaluations / this.stats.evaluatorCalls : 0;
  }

  setRoot(slot: number, state: S): void {
    this.checkSlot(slot);
    this.slots[slot] = { root: new IsNode(this.P, 1), rootState: this.game.clone(state), rootSeat: this.game.isTerminal(state) ? 0 : this.game.currentPlayer(state) };
  }

  clearTree(slot: number): void {
    this.checkSlot(slot);
    this.slots[slot] = null;
  }

  hasTree(slot: number): boolean {
    return this.slots[slot] !== null;
  }

  /** Starts afresh from the new real state: the next mover observes from another seat. */
  advance(slot: number, _action: number, nextState: S): void {
    this.setRoot(slot, nextState);
  }

  /** `simulations[slot]`, when given, is that slot's budget instead of the configured one (playout caps). */
  async search(simulations?: ArrayLike<number>): Promise<void> {
    const { game } = this;
    const budget = new Map<Slot<S>, number>();
    this.slots.forEach((s, i) => {
      if (s !== null && !game.isTerminal(s.rootState)) budget.set(s, simulations === undefined ? this.simulations : simulations[i]);
    });
    const live = [...budget.keys()];
    if (this.gumbel) {
      // Each call is its own search: fresh Gumbel noise, and the halving counts only this call's simulations.
      for (const s of live) {
        s.gumbel = null;
        s.gumbelBudget = s.root.priors === null ? Math.max(0, (budget.get(s) ?? 0) - 1) : (budget.get(s) ?? 0);
      }
    }
    if (this.inference) await this.weighWorlds(live.filter((s) => s.pool === undefined));
    const most = Math.max(0, ...budget.values());
    // A fresh root is evaluated by one simulation, not a whole step of them all stopping there.
    const fresh = live.filter((s) => s.root.priors === null && (budget.get(s) ?? 0) > 0);
    // Simulations done per slot: a fresh root's evaluation counts for it alone, so a slot searched
    // before in this move (no fresh evaluation) still gets its whole budget.
    const done = new Map<Slot<S>, number>(live.map((s) => [s, 0]));
    if (fresh.length > 0) {
      const leaves: Walk<S>[] = [];
      const requests: Walk<S>[] = [];
      for (const slot of fresh) this.simulate(slot, leaves, requests);
      await this.finishWalks(leaves, requests);
      for (const slot of fresh) done.set(slot, 1);
    }
    for (let step = 0; step < most; step++) {
      const leaves: Walk<S>[] = [];
      const requests: Walk<S>[] = [];
      let simulated = false;
      for (const slot of live) {
        const had = done.get(slot) ?? 0;
        const wanted = Math.min(this.leavesPerTree, (budget.get(slot) ?? 0) - had);
        if (wanted <= 0) continue;
        for (let k = 0; k < wanted; k++) this.simulate(slot, leaves, requests);
        done.set(slot, had + wanted);
        simulated = true;
      }
      if (!simulated) break;
      await this.finishWalks(leaves, requests);
    }
  }

  /**
   * Takes the walks waiting for another seat's policy down to their leaves (a policy call per round,
   * every waiting walk in it), then evaluates all the leaves in one call.
   */
  private async finishWalks(leaves: Walk<S>[], requests: Walk<S>[]): Promise<void> {
    while (requests.length > 0) {
      await this.evaluatePolicies(requests);
      const resumed = requests.splice(0, requests.length);
      for (const w of resumed) this.walk(w, leaves, requests);
    }
    if (leaves.length > 0) await this.evaluate(leaves);
  }

  /**
   * Samples `candidates` worlds for each slot and weighs them all in one call: each simulation then draws
   * its world from the pool by weight (sampling-importance-resampling). A slot whose worlds all weigh the
   * same (nothing observed yet) keeps drawing fresh worlds.
   */
  private async weighWorlds(slots: Slot<S>[]): Promise<void> {
    if (slots.length === 0) return;
    const K = this.candidates;
    const roots = slots.map((slot) => slot.rootState);
    const seats = slots.map((slot) => slot.rootSeat);
    const { worlds, logWeights } = await sampleWorlds(this.determinizer, roots, seats, K, this.rng, this.inference!.weigher);
    for (let i = 0; i < slots.length; i++) {
      let max = -Infinity;
      let min = Infinity;
      for (let k = 0; k < K; k++) {
        max = Math.max(max, logWeights[i * K + k]);
        min = Math.min(min, logWeights[i * K + k]);
      }
      if (max === min) {
        slots[i].pool = null;
        continue;
      }
      const cumulative = new Float64Array(K);
      let total = 0;
      for (let k = 0; k < K; k++) cumulative[k] = total += Math.exp(logWeights[i * K + k] - max);
      for (let k = 0; k < K; k++) cumulative[k] /= total;
      slots[i].pool = { worlds: worlds.slice(i * K, (i + 1) * K), cumulative };
    }
  }

  /** A world for one simulation: drawn from the slot's weighed pool, else freshly sampled. */
  private worldFor(slot: Slot<S>): S {
    const pool = slot.pool;
    if (!pool) return this.determinizer.sample(slot.rootState, slot.rootSeat, this.rng);
    const u = this.rng.next();
    let lo = 0;
    let hi = pool.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pool.cumulative[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return this.game.clone(pool.worlds[lo]);
  }

  /** One simulation in a sampled world: to a terminal (backed up now), a leaf (queued) or another seat's policy request (queued). */
  private simulate(slot: Slot<S>, leaves: Walk<S>[], requests: Walk<S>[]): void {
    this.walk({ slot, world: this.worldFor(slot), path: [slot.root], marked: 0, policy: null }, leaves, requests);
  }

  /** Takes a walk down from where it stands until it ends at a terminal or pauses (`Walk`). */
  private walk(w: Walk<S>, leaves: Walk<S>[], requests: Walk<S>[]): void {
    const { game, mask } = this;
    const { slot, world, path } = w;
    let node = path[path.length - 1];
    for (;;) {
      if (game.isTerminal(world)) {
        this.backup(w, game.returns(world), 0);
        return;
      }
      if (node.priors === null) {
        this.markVirtualVisit(w);
        leaves.push(w);
        return;
      }
      const mover = game.currentPlayer(world);
      const legal = game.masker.fillMask(world, mask, 0);
      if (this.gumbel && node === slot.root) {
        const g = slot.gumbel ?? this.prepareGumbel(slot, mask);
        const k = this.gumbelRootChoice(slot, g);
        game.applyAction(world, g.actions[k], this.rng);
        node = g.children[k];
        path.push(node);
        continue;
      }
      if (this.otherSeatMoves === 'policy' && mover !== slot.rootSeat) {
        const policy = w.policy;
        if (policy === null) {
          // Virtual visit first: the walks started after this one see it while it waits.
          this.markVirtualVisit(w);
          requests.push(w);
          return;
        }
        w.policy = null;
        const a = this.sampleAction(policy, mask);
        let child = node.children.get(a);
        if (!child) {
          child = new IsNode(this.P, policy[a]);
          node.children.set(a, child);
        }
        child.availability++;
        game.applyAction(world, a, this.rng);
        node = child;
        path.push(node);
        continue;
      }
      const uniform = this.otherSeatPriors === 'uniform' && mover !== slot.rootSeat;
      const parentQ = node.visits > 0 ? node.valueSum[mover] / node.visits : 0;
      let best: IsNode | null = null;
      let bestAction = -1;
      let bestScore = -Infinity;
      for (let a = 0; a < this.A; a++) {
        if (!mask[a]) continue;
        let child = node.children.get(a);
        if (!child) {
          child = new IsNode(this.P, uniform ? 1 / legal : node.priors[a] > 0 ? node.priors[a] : 1 / this.A);
          node.children.set(a, child);
        }
        child.availability++;
        const q = child.visits > 0 ? child.valueSum[mover] / child.visits : parentQ - this.fpuReduction;
        const score = q + (this.cPuct * child.prior * Math.sqrt(child.availability)) / (1 + child.visits);
        if (score > bestScore) {
          bestScore = score;
          best = child;
          bestAction = a;
        }
      }
      game.applyAction(world, bestAction, this.rng);
      node = best as IsNode;
      path.push(node);
    }
  }

  /** An action drawn from `policy` (0 outside `mask`); the first legal one if the policy gives them all 0. */
  private sampleAction(policy: Float32Array, mask: Uint8Array): number {
    let total = 0;
    let first = -1;
    for (let a = 0; a < this.A; a++) {
      if (!mask[a]) continue;
      if (first < 0) first = a;
      total += policy[a];
    }
    let u = this.rng.next() * total;
    for (let a = 0; a < this.A; a++) {
      if (!mask[a] || policy[a] <= 0) continue;
      u -= policy[a];
      if (u < 0) return a;
    }
    // Rounding left u at or just above 0: the last legal action with weight, else the first legal one.
    for (let a = this.A - 1; a >= 0; a--) if (mask[a] && policy[a] > 0) return a;
    return first;
  }

  /** Virtual visit on the nodes of the walk's path that do not carry one yet. */
  private markVirtualVisit(w: Walk<S>): void {
    for (let i = w.marked; i < w.path.length; i++) {
      w.path[i].visits++;
      w.path[i].pending++;
    }
    w.marked = w.path.length;
  }

  /** The policy of the seat to move in each waiting walk's world, from `otherSeatPolicy`, into `Walk.policy`. */
  private async evaluatePolicies(requests: Walk<S>[]): Promise<void> {
    const { A } = this;
    const batch = this.policyBatch!;
    await this.evaluateWorlds(this.otherSeatPolicy!, batch, requests);
    for (let i = 0; i < requests.length; i++) requests[i].policy = maskedSoftmax(batch.policyLogits, i * A, batch.masks, i * A, A, this.policyRows[i]);
  }

  /** The walks' worlds into `batch` (mover's perspective, masks, inputs when asked for), evaluated in one call. */
  private async evaluateWorlds(evaluator: Evaluator<S>, batch: OwnBatch<S>, walks: Walk<S>[]): Promise<void> {
    const { game, A } = this;
    const E = game.encoder.size;
    batch.count = walks.length;
    batch.states.length = 0;
    for (let i = 0; i < walks.length; i++) {
      const world = walks[i].world;
      batch.states.push(world);
      batch.perspectives[i] = game.currentPlayer(world);
      // Filled whatever the evaluator's `needsMasks` says: priors are a softmax over them.
      game.masker.fillMask(world, batch.masks, i * A);
      if (evaluator.needsInputs) game.encoder.encode(world, batch.perspectives[i], batch.inputs, i * E);
    }
    await evaluator.evaluate(batch);
    this.stats.evaluations += walks.length;
    this.stats.evaluatorCalls++;
  }

  private async evaluate(pending: Walk<S>[]): Promise<void> {
    const { batch, A, P } = this;
    await this.evaluateWorlds(this.evaluator, batch, pending);
    for (let i = 0; i < pending.length; i++) {
      const w = pending[i];
      const leaf = w.path[w.path.length - 1];
      if (leaf.priors === null) {
        leaf.priors = maskedSoftmax(batch.policyLogits, i * A, batch.masks, i * A, A, new Float32Array(A));
        // The root is the first node of every path: its priors are set once per move, here.
        if (leaf === w.path[0]) this.applyRootNoise(leaf.priors, batch.masks, i * A);
      }
      this.backup(w, batch.values, i * P);
    }
  }

  /**
   * Mixes Dirichlet noise into a root's fresh priors over the actions `mask[maskOffset ..+ A]` allows
   * (the observer's legal actions), as `BatchedMcts` does over its root's children: one sample of
   * Dirichlet(alpha) for the legal actions in action order, `(1 - epsilon) * prior + epsilon * noise`.
   */
  private applyRootNoise(priors: Float32Array, mask: Uint8Array, maskOffset: number): void {
    const { dirichletAlpha: alpha, dirichletEpsilon: epsilon, A } = this;
    if (this.gumbel || alpha <= 0 || epsilon <= 0) return;
    let n = 0;
    for (let a = 0; a < A; a++) if (mask[maskOffset + a]) n++;
    if (n <= 0) return;
    this.rng.dirichlet(alpha, this.noise, n);
    let k = 0;
    for (let a = 0; a < A; a++) if (mask[maskOffset + a]) priors[a] = (1 - epsilon) * priors[a] + epsilon * this.noise[k++];
  }

  /** Adds the walk's values to every node of its path: a visit where it carries none yet, else its virtual visit made real. */
  private backup(w: Walk<S>, values: ArrayLike<number>, offset: number): void {
    const { path, marked } = w;
    for (let i = 0; i < path.length; i++) {
      const n = path[i];
      if (i < marked) n.pending--;
      else n.visits++;
      for (let j = 0; j < this.P; j++) n.valueSum[j] += values[offset + j];
    }
    this.stats.simulations++;
  }

  visitCounts(slot: number, out: Float32Array): Float32Array {
    out.fill(0, 0, this.A);
    const s = this.slots[slot];
    if (s) for (const [a, child] of s.root.children) out[a] = child.visits;
    return out;
  }

  /** The visit counts, normalized; with Gumbel root search, the improved policy softmax(log prior + σ(completed Q)). */
  policyTarget(slot: number, out: Float32Array): Float32Array {
    const g = this.gumbelRootOf(slot);
    if (g) {
      out.fill(0, 0, this.A);
      const policy = this.rootSigma(this.slots[slot]!, g);
      improvedPolicyInPlace(policy, policy.length, g.priors, 0);
      for (let k = 0; k < policy.length; k++) out[g.actions[k]] = policy[k];
      return out;
    }
    this.visitCounts(slot, out);
    normalizeVisits(out, this.A);
    return out;
  }

  /**
   * The slot's Gumbel root; drawn here when the search gave no simulation past an evaluated root (a
   * budget of 1 spends it on the root's evaluation), so the target is then the prior and the move a
   * sample of it (Gumbel-max), as in BatchedMcts. Null without Gumbel or before the root's evaluation.
   */
  private gumbelRootOf(slot: number): GumbelRoot | null {
    const s = this.gumbel ? this.slots[slot] : null;
    if (!s || s.root.priors === null || this.game.isTerminal(s.rootState)) return null;
    if (s.gumbel) return s.gumbel;
    this.game.masker.fillMask(s.rootState, this.mask, 0);
    return this.prepareGumbel(s, this.mask);
  }

  /**
   * Draws the Gumbel noise of a root that has its priors and makes its children, one per legal action of
   * the observer (`mask`, filled for the simulation's world: the observer's actions are the same in all).
   */
  private prepareGumbel(slot: Slot<S>, mask: Uint8Array): GumbelRoot {
    const root = slot.root;
    const priors = root.priors!;
    const actions: number[] = [];
    const children: IsNode[] = [];
    for (let a = 0; a < this.A; a++) {
      if (!mask[a]) continue;
      let child = root.children.get(a);
      if (!child) {
        child = new IsNode(this.P, priors[a]);
        root.children.set(a, child);
      }
      actions.push(a);
      children.push(child);
    }
    const childPriors = Float64Array.from(children, (c) => c.prior);
    const scores = new Float64Array(actions.length);
    const baseVisits = new Int32Array(actions.length);
    for (let k = 0; k < actions.length; k++) {
      scores[k] = gumbelNoisyLogit(childPriors[k], this.gumbelRng);
      baseVisits[k] = children[k].visits;
    }
    return (slot.gumbel = { actions, children, priors: childPriors, scores, baseVisits });
  }

  /**
   * The root child (index into `g.children`) the next simulation goes through: sequential halving's
   * wanted visit count (`consideredVisit`, counting simulations in flight) and `halvingChoice` among the
   * children at it.
   */
  private gumbelRootChoice(slot: Slot<S>, g: GumbelRoot): number {
    const count = g.children.length;
    const searched = this.searchedOf(g);
    let simulation = 0;
    for (let k = 0; k < count; k++) simulation += searched[k];
    const target = consideredVisit(Math.min(this.gumbel!.gumbelConsideredActions, count), slot.gumbelBudget ?? 0, simulation);
    return halvingChoice(count, searched, g.scores, 0, this.rootSigma(slot, g), target);
  }

  /** Each root child's visits in this search, simulations in flight included. */
  private searchedOf(g: GumbelRoot): Int32Array {
    const searched = new Int32Array(g.children.length);
    for (let k = 0; k < g.children.length; k++) searched[k] = g.children[k].visits - g.baseVisits[k];
    return searched;
  }

  /**
   * σ(completed Q) of the root's children for the observer, by child (@az/mcts's `completeAndScaleQ`
   * over this tree's nodes): a child with finished visits has its mean value over all worlds, one
   * without the root's mixed value. Simulations in flight count for neither.
   */
  private rootSigma(slot: Slot<S>, g: GumbelRoot): Float64Array {
    const { root, rootSeat: seat } = slot;
    const count = g.children.length;
    const q = new Float64Array(count);
    const visits = new Int32Array(count);
    let childSum = 0;
    for (let k = 0; k < count; k++) {
      const c = g.children[k];
      visits[k] = c.visits - c.pending;
      childSum += c.valueSum[seat];
      q[k] = visits[k] > 0 ? c.valueSum[seat] / visits[k] : NaN;
    }
    completeAndScaleQ(q, count, visits, 0, g.priors, 0, root.visits - root.pending, root.valueSum[seat], childSum, this.gumbel!);
    return q;
  }

  /**
   * The root's priors as the search uses them, into `out[0..actionSize)`: the network's policy over the
   * observer's legal actions, with the root noise mixed in when it is on; all 0 until the root has been
   * evaluated (or with no root).
   */
  rootPriors(slot: number, out: Float32Array = new Float32Array(this.A)): Float32Array {
    this.checkSlot(slot);
    out.fill(0, 0, this.A);
    const priors = this.slots[slot]?.root.priors;
    if (priors) out.set(priors.subarray(0, this.A));
    return out;
  }

  /**
   * With Gumbel root search, the move: among the root children this search visited most (the halving's
   * survivors), the highest g + log prior + σ(completed Q). Otherwise -1: the move comes from the visit counts.
   */
  selectedAction(slot: number): number {
    const s = this.slots[slot];
    const g = this.gumbelRootOf(slot);
    if (!s || !g || g.children.length === 0) return -1;
    const searched = this.searchedOf(g);
    let most = -1;
    for (let k = 0; k < searched.length; k++) most = Math.max(most, searched[k]);
    return g.actions[halvingChoice(searched.length, searched, g.scores, 0, this.rootSigma(s, g), most)];
  }

  rootValue(slot: number, out: Float32Array = new Float32Array(this.P)): Float32Array {
    out.fill(0, 0, this.P);
    const s = this.slots[slot];
    if (!s) return out;
    if (this.game.isTerminal(s.rootState)) {
      out.set(this.game.returns(s.rootState).subarray(0, this.P));
      return out;
    }
    if (s.root.visits > 0) for (let j = 0; j < this.P; j++) out[j] = s.root.valueSum[j] / s.root.visits;
    return out;
  }

  private checkSlot(slot: number): void {
    if (!(Number.isInteger(slot) && slot >= 0 && slot < this.numTrees)) throw new RangeError(`InformationSetMcts: slot ${slot} is not in 0..${this.numTrees - 1}`);
  }
}


// Gumbel root search (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"; the same rules
// as DeepMind's mctx `gumbel_muzero_policy`), over BatchedMcts's flat tree arrays.
import { Rng } from '@az/core';

/**
 * The per-node arrays of a `BatchedMcts` this module reads (never resized, so held by reference). Values
 * are per seat: node n's sum for seat j is `valueSum[n * P + j]`.
 */
export interface TreeArrays {
  readonly P: number;
  readonly actionOf: Int32Array;
  readonly firstChild: Int32Array;
  readonly childCount: Int32Array;
  readonly visits: Int32Array;
  readonly pendingVisits: Int32Array;
  readonly prior: Float32Array;
  readonly toPlay: Int8Array;
  readonly flags: Uint8Array;
  readonly valueSum: Float32Array;
  readonly terminalValue: Float32Array;
  /** The flag bit of a node whose exact value is in `terminalValue`. */
  readonly solvedFlag: number;
  readonly virtualLoss: number;
}

/** The three Gumbel root-search settings of `SearchConfig`, checked together by {@link checkGumbelSettings}. */
export interface GumbelSettings {
  /** m: root actions sampled (Gumbel-top-k) and searched by sequential halving. */
  readonly gumbelConsideredActions: number;
  /** c_visit of σ(q) = (c_visit + max_b N(b)) · c_scale · q, q rescaled to [0, 1]. */
  readonly gumbelCVisit: number;
  /** c_scale of σ(q). */
  readonly gumbelCScale: number;
}

/** Floor of a prior before its log, as mctx's `low_logit`: a zero prior stays comparable. */
const TINY_PRIOR = 1e-30;
const LOW_SCORE = -1e9;

/**
 * The visit count sequential halving wants the next simulation to go to, after `simulation` simulations
 * of a budget of `budget` over `considered` actions (mctx `get_sequence_of_considered_visits`, read at
 * one index; past the budget it goes on halving down to 2 actions). Phase by phase: k actions (m, then
 * halved, at least 2) each get max(1, ⌊budget / (⌈log2 m⌉ · k)⌋) more visits, one round at a time.
 * O(log m), no allocation.
 */
export function consideredVisit(considered: number, budget: number, simulation: number): number {
  if (considered <= 1) return simulation;
  const log2max = Math.ceil(Math.log2(considered));
  let k = considered;
  let start = 0;
  let level = 0;
  for (;;) {
    const extra = Math.max(1, Math.floor(budget / (log2max * k)));
    if (simulation < start + extra * k) return level + Math.floor((simulation - start) / k);
    start += extra * k;
    level += extra;
    k = Math.max(2, k >> 1);
  }
}

/** g + log prior with g ~ Gumbel(0, 1) drawn from `rng`: a root action's score for Gumbel-top-m (a zero prior floored). */
export function gumbelNoisyLogit(prior: number, rng: Rng): number {
  let u = rng.next();
  while (u <= 0) u = rng.next();
  return Math.log(Math.max(prior, TINY_PRIOR)) - Math.log(-Math.log(u));
}

/**
 * Sequential halving's choice among `count` root actions: of those searched exactly `target` times, the
 * one with the highest score `noisyLogits[offset + k] + sigma[k]` (g + log prior + σ(completed Q), floored);
 * when none is at `target` (leaves in flight can skew counts), the least searched, ties to the higher
 * score. Returns the action's index k. With `target` the most searched count this is the move to play.
 */
export function halvingChoice(count: number, searched: Int32Array, noisyLogits: ArrayLike<number>, offset: number, sigma: Float64Array, target: number): number {
  let best = -1;
  let bestScore = -Infinity;
  let fallback = -1;
  let fallbackSearched = Infinity;
  let fallbackScore = -Infinity;
  for (let k = 0; k < count; k++) {
    const score = Math.max(LOW_SCORE, noisyLogits[offset + k] + sigma[k]);
    if (searched[k] === target && score > bestScore) {
      bestScore = score;
      best = k;
    }
    if (searched[k] < fallbackSearched || (searched[k] === fallbackSearched && score > fallbackScore)) {
      fallbackSearched = searched[k];
      fallbackScore = score;
      fallback = k;
    }
  }
  return best >= 0 ? best : fallback;
}

/** The whole schedule for `budget` simulations (for tests and docs; the search reads one index at a time). */
export function consideredVisitSequence(considered: number, budget: number): number[] {
  return Array.from({ length: budget }, (_, i) => consideredVisit(considered, budget, i));
}

/**
 * Writes σ(completed Q) of node `n`'s children into `out[0..childCount)`, for the seat to move at `n`.
 * A visited (or solved) child's Q is its mean value; an unvisited one gets the mixed value (mctx
 * `qtransform_completed_by_mix_value`): the node's own network value mixed with the prior-weighted mean Q
 * of the visited children. The node's own value is what its sum holds beyond its children's (its first
 * evaluation), so the tree needs no extra array for it. Completed Qs are mapped from the value range
 * [-1, 1] to [0, 1], then scaled by (c_visit + max visits) · c_scale. (mctx rescales by the children's
 * min and max instead, which turns any difference, however small, into the whole range: with the
 * paper's c_scale of 1 the target is then one-hot on a move with one lucky visit.) With `withPending`,
 * virtual loss counts as in PUCT (interior selection while leaves are in flight).
 */
export function sigmaCompletedQ(tree: TreeArrays, settings: GumbelSettings, n: number, withPending: boolean, out: Float64Array): void {
  const { P, visits, pendingVisits, valueSum, terminalValue, flags, prior, solvedFlag, virtualLoss } = tree;
  const seat = tree.toPlay[n];
  const first = tree.firstChild[n];
  const count = tree.childCount[n];
  let childSum = 0;
  for (let k = 0; k < count; k++) {
    const c = first + k;
    const nv = visits[c];
    const v = valueSum[c * P + seat];
    childSum += v;
    const pending = withPending ? pendingVisits[c] : 0;
    let q = NaN;
    if (flags[c] & solvedFlag) q = terminalValue[c * P + seat];
    else if (nv > 0) q = (v - virtualLoss * pending) / (nv + pending);
    out[k] = q;
  }
  completeAndScaleQ(out, count, visits, first, prior, first, visits[n], valueSum[n * P + seat], childSum, settings);
}

/**
 * The second half of σ(completed Q), for any tree layout: `q[k]` holds child k's Q for the mover (NaN
 * when it has none), `visits[visitsAt + k]` its finished visits, `prior[priorAt + k]` its prior; the
 * node has `nodeVisits` visits and value sum `nodeValueSum`, its children `childValueSum`. An unvisited
 * child gets the mixed value (the node's own value, what its sum holds beyond its children's, mixed
 * with the prior-weighted mean Q of the visited children); then every Q is mapped from [-1, 1] to
 * [0, 1] and scaled by (c_visit + max visits) · c_scale, in place.
 */
export function completeAndScaleQ(
  q: Float64Array,
  count: number,
  visits: ArrayLike<number>,
  visitsAt: number,
  prior: ArrayLike<number>,
  priorAt: number,
  nodeVisits: number,
  nodeValueSum: number,
  childValueSum: number,
  settings: GumbelSettings,
): void {
  let childVisits = 0;
  let weightedQ = 0;
  let visitedPrior = 0;
  let maxVisits = 0;
  for (let k = 0; k < count; k++) {
    const nv = visits[visitsAt + k];
    childVisits += nv;
    if (nv > maxVisits) maxVisits = nv;
    if (nv > 0) {
      const p = Math.max(prior[priorAt + k], TINY_PRIOR);
      weightedQ += p * q[k];
      visitedPrior += p;
    }
  }
  const own = nodeVisits - childVisits;
  const raw = own >= 1 ? (nodeValueSum - childValueSum) / own : nodeVisits > 0 ? nodeValueSum / nodeVisits : 0;
  const mixed = visitedPrior > 0 ? (raw + (childVisits * weightedQ) / visitedPrior) / (childVisits + 1) : raw;
  const scale = (settings.gumbelCVisit + maxVisits) * settings.gumbelCScale;
  for (let k = 0; k < count; k++) {
    const value = Number.isNaN(q[k]) ? mixed : q[k];
    q[k] = scale * Math.min(1, Math.max(0, (value + 1) / 2));
  }
}

/**
 * Writes the improved policy softmax(logits + σ(completed Q)) over node `n`'s children into `out` by
 * child (`out[k]` for child k), from the priors (softmax of the logits) times exp(σ). `sigma` is scratch.
 */
function improvedChildPolicy(tree: TreeArrays, settings: GumbelSettings, n: number, withPending: boolean, sigma: Float64Array): void {
  sigmaCompletedQ(tree, settings, n, withPending, sigma);
  improvedPolicyInPlace(sigma, tree.childCount[n], tree.prior, tree.firstChild[n]);
}

/**
 * Turns σ(completed Q) of `count` children (`sigma[k]`) into the improved policy softmax(log prior + σ)
 * in place, from the priors `prior[priorAt + k]` (the softmax of the logits) times exp(σ).
 */
export function improvedPolicyInPlace(sigma: Float64Array, count: number, prior: ArrayLike<number>, priorAt: number): void {
  let top = -Infinity;
  for (let k = 0; k < count; k++) if (sigma[k] > top) top = sigma[k];
  let sum = 0;
  for (let k = 0; k < count; k++) {
    sigma[k] = Math.max(prior[priorAt + k], TINY_PRIOR) * Math.exp(sigma[k] - top);
    sum += sigma[k];
  }
  for (let k = 0; k < count; k++) sigma[k] /= sum;
}

/** Refuses unusable Gumbel settings, naming the field; `owner` prefixes the message (e.g. 'InformationSetMcts: '). */
export function checkGumbelSettings(settings: GumbelSettings, owner = ''): void {
  const m = settings.gumbelConsideredActions;
  if (!(Number.isInteger(m) && m >= 1)) throw new RangeError(`${owner}gumbelConsideredActions must be a positive integer, got ${m}`);
  if (!(settings.gumbelCVisit >= 0)) throw new RangeError(`${owner}gumbelCVisit must be >= 0, got ${settings.gumbelCVisit}`);
  if (!(settings.gumbelCScale > 0)) throw new RangeError(`${owner}gumbelCScale must be > 0, got ${settings.gumbelCScale}`);
}

/**
 * Gumbel root search state for every tree of a `BatchedMcts`: per search, Gumbel noise on each root
 * child, the budget, and the root children's visits when the search began (a reused subtree keeps its
 * visits; sequential halving counts only this search's). Root: Gumbel-top-m by the schedule of
 * sequential halving. Below the root: mctx's deterministic rule, argmax of π'(a) − N(a) / (1 + Σ N),
 * π' the improved policy (see docs/training.md for why not PUCT).
 */
export class GumbelSearch {
  private readonly gumbelLogits: Float32Array;
  private readonly baseVisits: Int32Array;
  private readonly budget: Int32Array;
  private readonly prepared: Uint8Array;
  private readonly scratch: Float64Array;
  /** Scratch: each root child's visits in this search. */
  private readonly searched: Int32Array;
  private readonly rng: Rng;

  constructor(
    private readonly tree: TreeArrays,
    private readonly settings: GumbelSettings,
    numTrees: number,
    private readonly A: number,
    seed: number,
  ) {
    checkGumbelSettings(settings);
    this.gumbelLogits = new Float32Array(numTrees * A);
    this.baseVisits = new Int32Array(numTrees * A);
    this.budget = new Int32Array(numTrees);
    this.prepared = new Uint8Array(numTrees);
    this.scratch = new Float64Array(A);
    this.searched = new Int32Array(A);
    // Its own stream: turning Gumbel on must not shift the tree's chance draws.
    this.rng = new Rng(`gumbel:${seed}`);
  }

  /** A search of `simulations` begins on tree `t`; a root not yet expanded spends one on its own evaluation. */
  beginSearch(t: number, simulations: number, rootExpanded: boolean): void {
    this.budget[t] = rootExpanded ? simulations : Math.max(0, simulations - 1);
    this.prepared[t] = 0;
  }

  /** The root child the next simulation of tree `t` goes through. */
  selectRoot(t: number, root: number): number {
    const { tree } = this;
    if (!this.prepared[t]) this.prepare(t, root);
    const win = this.provenWin(root);
    if (win >= 0) return win;
    const first = tree.firstChild[root];
    const count = tree.childCount[root];
    const base = t * this.A;
    let simulation = 0;
    for (let k = 0; k < count; k++) simulation += tree.visits[first + k] + tree.pendingVisits[first + k] - this.baseVisits[base + k];
    const m = Math.min(this.settings.gumbelConsideredActions, count);
    const target = consideredVisit(m, this.budget[t], simulation);
    const sigma = this.scratch;
    sigmaCompletedQ(tree, this.settings, root, false, sigma);
    const searched = this.searched;
    for (let k = 0; k < count; k++) searched[k] = tree.visits[first + k] + tree.pendingVisits[first + k] - this.baseVisits[base + k];
    return first + halvingChoice(count, searched, this.gumbelLogits, base, sigma, target);
  }

  /** The child of interior node `n` to descend to: argmax of π'(a) − N(a) / (1 + Σ N), counting visits in flight. */
  selectInterior(n: number): number {
    const { tree } = this;
    const policy = this.scratch;
    improvedChildPolicy(tree, this.settings, n, true, policy);
    const first = tree.firstChild[n];
    const count = tree.childCount[n];
    let total = 0;
    for (let k = 0; k < count; k++) total += tree.visits[first + k] + tree.pendingVisits[first + k];
    let best = first;
    let bestScore = -Infinity;
    for (let k = 0; k < count; k++) {
      const c = first + k;
      const score = policy[k] - (tree.visits[c] + tree.pendingVisits[c]) / (1 + total);
      if (score > bestScore) {
        bestScore = score;
        best = c;
      }
    }
    return best;
  }

  /** The improved policy at tree `t`'s root, by action, into `out[0..A)` (zeros for illegal actions). */
  improvedPolicy(root: number, out: Float32Array): Float32Array {
    const { tree } = this;
    out.fill(0, 0, this.A);
    const count = tree.childCount[root];
    if (count === 0) return out;
    improvedChildPolicy(tree, this.settings, root, false, this.scratch);
    const first = tree.firstChild[root];
    for (let k = 0; k < count; k++) out[tree.actionOf[first + k]] = this.scratch[k];
    return out;
  }

  /**
   * The action to play: among the root children this search visited most (the survivors of the
   * halving), the one with the highest g + logit + σ(completed Q); a proven win when there is one.
   */
  selectedAction(t: number, root: number): number {
    const { tree } = this;
    const count = tree.childCount[root];
    if (count === 0) return -1;
    if (!this.prepared[t]) this.prepare(t, root);
    const win = this.provenWin(root);
    if (win >= 0) return tree.actionOf[win];
    const first = tree.firstChild[root];
    const base = t * this.A;
    const searched = this.searched;
    let most = -1;
    for (let k = 0; k < count; k++) most = Math.max(most, (searched[k] = tree.visits[first + k] - this.baseVisits[base + k]));
    const sigma = this.scratch;
    sigmaCompletedQ(tree, this.settings, root, false, sigma);
    return tree.actionOf[first + halvingChoice(count, searched, this.gumbelLogits, base, sigma, most)];
  }

  /** Samples g ~ Gumbel(0, 1) for each root child (stored as g + log prior) and notes its visits so far. */
  private prepare(t: number, root: number): void {
    const { tree } = this;
    const first = tree.firstChild[root];
    const base = t * this.A;
    for (let k = 0, count = tree.childCount[root]; k < count; k++) {
      this.gumbelLogits[base + k] = gumbelNoisyLogit(tree.prior[first + k], this.rng);
      this.baseVisits[base + k] = tree.visits[first + k];
    }
    this.prepared[t] = 1;
  }

  /** A root child proven to win for the root's mover, or -1. */
  private provenWin(root: number): number {
    const { tree } = this;
    if (!(tree.flags[root] & tree.solvedFlag)) return -1;
    const seat = tree.toPlay[root];
    for (let c = tree.firstChild[root], end = c + tree.childCount[root]; c < end; c++) {
      if (tree.flags[c] & tree.solvedFlag && tree.terminalValue[c * tree.P + seat] >= 1) return c;
    }
    return -1;
  }
}

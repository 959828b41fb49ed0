import type { Rng } from '@az/core';

/**
 * Dealing hidden cards consistently with what has been revealed, uniformly over all consistent deals.
 *
 * Game-agnostic: the caller describes the unseen cards only by their suit (any small category works),
 * how many cards each receiver must get, and which suits each receiver is known not to hold (a bitmask,
 * bit k = suit k forbidden, e.g. revealed by failing to follow suit). Receivers are whatever holds
 * hidden cards: other players' hands, an undealt stock, a widow.
 *
 * Why not deal and reject: that is uniform but its acceptance rate collapses once a few voids are
 * known (late in a hand, most random deals put a card in a void). Instead we count completions.
 * The number of consistent deals depends only on how many cards of each suit each receiver gets, so:
 *
 *  1. Receivers with identical forbidden masks are merged into one group (any split of a group's cards
 *     among its members is equally consistent, so the split is a plain uniform shuffle afterwards).
 *  2. A dynamic program over groups, with the state "cards of each suit still undealt", counts the
 *     completions: f(g, r) = sum over compositions n of group g's size into its allowed suits of
 *     prod_k C(r_k, n_k) * f(g + 1, r - n).
 *  3. Sampling walks the groups in order, drawing each group's composition with probability
 *     proportional to its completion count, then the actual cards uniformly within each suit.
 *
 * Each complete deal then has probability exactly 1 / (number of consistent deals). Counts are held
 * as doubles: they can exceed 2^53 (52!/(13!^4) is about 5e28) but sampling needs only their ratios,
 * which doubles carry to ~1e-16 relative accuracy.
 */
export interface ConsistentDealSpec {
  /** Suit (0..numSuits-1) of each card to deal; cards are identified by their position here. */
  readonly cardSuits: ArrayLike<number>;
  /** Number of suits (at most 30: suits are bits of a mask). */
  readonly numSuits: number;
  /** Cards each receiver gets; must sum to `cardSuits.length`. */
  readonly handSizes: ArrayLike<number>;
  /** Per receiver, a bitmask of suits it may not receive (bit k set = no card of suit k). */
  readonly forbiddenSuits: ArrayLike<number>;
}

/** Thrown when no deal satisfies the constraints (the caller's knowledge is contradictory). */
export class InconsistentDealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InconsistentDealError';
  }
}

/**
 * Reusable dealer: holds its scratch buffers and memo tables so repeated sampling (once per
 * determinization in a search) allocates little. Not re-entrant; use one per thread of work.
 */
export class ConsistentDealer {
  // Per call: the merged groups.
  private groupMask: number[] = [];
  private groupSize: number[] = [];
  private groupMembers: number[][] = [];
  /** Allowed suits of each group that have any cards at all. */
  private groupAllowed: number[][] = [];
  /** Mixed-radix strides so a vector of remaining suit counts is one integer key. */
  private stride: number[] = [];
  private memo: Map<number, number>[] = [];
  /** Identifies the counting problem the memo was built for (see `prepare`). */
  private signature = '';
  private lastGroupUnconstrained = false;
  private binom: Float64Array[] = [];
  // Sampling scratch.
  private pool = new Int32Array(0);
  private picked = new Int32Array(0);
  private composition = new Int32Array(0);
  private currentComposition = new Int32Array(0);
  private suitStart = new Int32Array(0);

  /** Number of deals consistent with `spec` (as a double; exact while below 2^53). */
  count(spec: ConsistentDealSpec): number {
    const remaining = this.prepare(spec);
    if (remaining === null) return 0;
    const key = this.keyOf(remaining);
    let total = this.completions(0, remaining, key);
    // Each group-level deal expands into multinomial(groupSize; member sizes) member-level deals.
    for (let g = 0; g < this.groupMask.length; g++) {
      let left = this.groupSize[g];
      for (const member of this.groupMembers[g]) {
        const size = spec.handSizes[member];
        total *= this.choose(left, size);
        left -= size;
      }
    }
    return total;
  }

  /**
   * Draws one consistent deal uniformly: `out[i]` is the receiver of card i. Throws
   * `InconsistentDealError` when there is none.
   */
  deal(spec: ConsistentDealSpec, rng: Rng, out: Int32Array = new Int32Array(spec.cardSuits.length)): Int32Array {
    const n = spec.cardSuits.length;
    if (out.length < n) throw new RangeError(`deal: out has ${out.length} slots for ${n} cards`);
    const remaining = this.prepare(spec);
    if (remaining === null) throw new InconsistentDealError('deal: no consistent deal (a receiver cannot be filled)');

    const numSuits = spec.numSuits;
    this.ensureScratch(n, numSuits);
    const pool = this.pool;
    const groups = this.groupMask.length;

    // Fast path: no constraints at all, a shuffle is uniform.
    if (groups === 1 && this.groupMask[0] === 0) {
      for (let i = 0; i < n; i++) pool[i] = i;
      this.splitGroup(spec, 0, pool, n, rng, out);
      return out;
    }

    let key = this.keyOf(remaining);
    if (!(this.completions(0, remaining, key) > 0)) {
      throw new InconsistentDealError('deal: no consistent deal (the voids and hand sizes contradict each other)');
    }

    // Card positions sorted by suit (counting sort): suit k's undealt cards are
    // pool[suitStart[k] .. suitStart[k] + remaining[k]).
    const suitStart = this.suitStart;
    const fill = this.composition;
    let offset = 0;
    for (let k = 0; k < numSuits; k++) {
      suitStart[k] = offset;
      fill[k] = offset;
      offset += remaining[k];
    }
    for (let i = 0; i < n; i++) pool[fill[spec.cardSuits[i]]++] = i;

    const composition = this.composition;
    const picked = this.picked;
    for (let g = 0; g < groups; g++) {
      if (g === groups - 1) {
        composition.set(remaining); // the last group takes what is left
      } else {
        const total = this.completions(g, remaining, key);
        this.drawComposition(g, remaining, key, rng.next() * total, composition);
      }
      let count = 0;
      for (let k = 0; k < numSuits; k++) {
        const take = composition[k];
        // A uniform subset of `take` cards of suit k: partial Fisher-Yates, moving each pick past the end.
        const start = suitStart[k];
        for (let t = 0; t < take; t++) {
          const left = remaining[k];
          const j = start + rng.int(left);
          const last = start + left - 1;
          const card = pool[j];
          pool[j] = pool[last];
          pool[last] = card;
          picked[count++] = card;
          remaining[k] = left - 1;
        }
        key -= take * this.stride[k];
      }
      this.splitGroup(spec, g, picked, count, rng, out);
    }
    return out;
  }

  /** Splits a group's `count` cards uniformly among its members: shuffle, then hand out in order. */
  private splitGroup(spec: ConsistentDealSpec, g: number, cards: Int32Array, count: number, rng: Rng, out: Int32Array): void {
    const members = this.groupMembers[g];
    if (members.length > 1) {
      for (let i = count - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        const t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
      }
    }
    let next = 0;
    for (const member of members) {
      const size = spec.handSizes[member];
      for (let t = 0; t < size; t++) out[cards[next++]] = member;
    }
  }

  private ensureScratch(cards: number, numSuits: number): void {
    if (this.pool.length < cards) {
      this.pool = new Int32Array(cards);
      this.picked = new Int32Array(cards);
    }
    if (this.composition.length !== numSuits) {
      this.composition = new Int32Array(numSuits);
      this.currentComposition = new Int32Array(numSuits);
      this.suitStart = new Int32Array(numSuits);
    }
  }

  /**
   * Validates the spec, groups receivers and resets the memo. Returns the suit totals, or null when a
   * receiver plainly cannot be filled (asks for more cards than its allowed suits hold).
   */
  private prepare(spec: ConsistentDealSpec): Int32Array | null {
    const { cardSuits, numSuits, handSizes, forbiddenSuits } = spec;
    if (!(numSuits >= 1 && numSuits <= 30 && Number.isInteger(numSuits))) throw new RangeError(`deal: numSuits must be 1..30, got ${numSuits}`);
    if (handSizes.length !== forbiddenSuits.length) {
      throw new RangeError(`deal: ${handSizes.length} hand sizes but ${forbiddenSuits.length} forbidden-suit masks`);
    }
    const totals = new Int32Array(numSuits);
    for (let i = 0; i < cardSuits.length; i++) {
      const s = cardSuits[i];
      if (!(s >= 0 && s < numSuits)) throw new RangeError(`deal: card ${i} has suit ${s}, outside 0..${numSuits - 1}`);
      totals[s]++;
    }
    let sizeSum = 0;
    for (let r = 0; r < handSizes.length; r++) {
      if (!(handSizes[r] >= 0 && Number.isInteger(handSizes[r]))) throw new RangeError(`deal: hand size ${handSizes[r]} of receiver ${r}`);
      sizeSum += handSizes[r];
    }
    if (sizeSum !== cardSuits.length) {
      throw new RangeError(`deal: hand sizes sum to ${sizeSum} but there are ${cardSuits.length} cards`);
    }

    // Group receivers by mask. Group order matters only for speed: the most constrained groups go
    // first (fewest compositions) and the unconstrained group (an undealt stock, players with no known
    // void) last, where its composition is forced and, one layer up, a closed form applies.
    const masks: number[] = [];
    const sizes: number[] = [];
    const members: number[][] = [];
    const fullMask = numSuits === 30 ? 0x3fffffff : (1 << numSuits) - 1;
    for (let r = 0; r < handSizes.length; r++) {
      if (handSizes[r] === 0) continue;
      const mask = forbiddenSuits[r] & fullMask;
      let g = masks.indexOf(mask);
      if (g < 0) {
        g = masks.length;
        masks.push(mask);
        sizes.push(0);
        members.push([]);
      }
      sizes[g] += handSizes[r];
      members[g].push(r);
    }
    const order = masks.map((_, g) => g).sort((a, b) => popcount(masks[b]) - popcount(masks[a]) || masks[a] - masks[b]);
    this.groupMask = order.map((g) => masks[g]);
    this.groupSize = order.map((g) => sizes[g]);
    this.groupMembers = order.map((g) => members[g]);
    this.groupAllowed = this.groupMask.map((mask) => {
      const allowed: number[] = [];
      for (let k = 0; k < numSuits; k++) if (!(mask & (1 << k)) && totals[k] > 0) allowed.push(k);
      return allowed;
    });
    const groups = this.groupMask.length;
    this.lastGroupUnconstrained = groups > 0 && this.groupMask[groups - 1] === 0;
    for (let g = 0; g < groups; g++) {
      let capacity = 0;
      for (const k of this.groupAllowed[g]) capacity += totals[k];
      if (capacity < this.groupSize[g]) return null;
    }

    // The completion counts depend only on the suit totals and the groups' masks and sizes. A search
    // determinizes the same information state many times, so keep the table while those are unchanged.
    const signature = `${numSuits}|${totals.join(',')}|${this.groupMask.join(',')}|${this.groupSize.join(',')}`;
    if (signature === this.signature) return totals;
    this.signature = signature;
    this.stride = [];
    let stride = 1;
    for (let k = 0; k < numSuits; k++) {
      this.stride.push(stride);
      stride *= totals[k] + 1;
    }
    // Keys must stay exact integers; 2^53 covers e.g. 8 suits of 52 cards with room to spare.
    if (!(stride <= Number.MAX_SAFE_INTEGER)) throw new RangeError('deal: too many suits/cards for the counting table');
    this.memo = this.groupMask.map(() => new Map<number, number>());
    let maxTotal = 0;
    for (let k = 0; k < numSuits; k++) maxTotal = Math.max(maxTotal, totals[k]);
    this.ensureBinomials(Math.max(maxTotal, cardSuits.length));
    return totals;
  }

  private keyOf(remaining: Int32Array): number {
    let key = 0;
    for (let k = 0; k < remaining.length; k++) key += remaining[k] * this.stride[k];
    return key;
  }

  /** f(g, r): ways to deal the remaining cards `r` (keyed `key`) to groups g.. (group level). */
  private completions(g: number, remaining: Int32Array, key: number): number {
    const groups = this.groupMask.length;
    if (g === groups) return 1; // sizes sum to the card count, so nothing is left here
    if (this.lastGroupUnconstrained) {
      // The unconstrained last group takes whatever is left: exactly one way.
      if (g === groups - 1) return 1;
      // One layer up, sum over compositions of prod_k C(r_k, n_k) is C(sum of allowed r_k, size)
      // (Vandermonde), since every remainder completes in one way.
      if (g === groups - 2) {
        let available = 0;
        for (const k of this.groupAllowed[g]) available += remaining[k];
        return this.choose(available, this.groupSize[g]);
      }
    }
    const memo = this.memo[g];
    const cached = memo.get(key);
    if (cached !== undefined) return cached;
    let total = 0;
    this.forEachComposition(g, remaining, key, (weight, nextKey) => {
      total += weight * this.completions(g + 1, remaining, nextKey);
      return false;
    });
    memo.set(key, total);
    return total;
  }

  /** Picks group g's composition: the first whose cumulative weight exceeds `target`. */
  private drawComposition(g: number, remaining: Int32Array, key: number, target: number, out: Int32Array): void {
    let acc = 0;
    let found = false;
    const current = this.currentComposition;
    current.fill(0);
    this.forEachComposition(
      g,
      remaining,
      key,
      (weight, nextKey) => {
        const w = weight * this.completions(g + 1, remaining, nextKey);
        if (w <= 0) return false;
        // Keep the last positive-weight composition as a fallback against rounding at the very end.
        out.set(current);
        found = true;
        acc += w;
        return acc > target;
      },
      current,
    );
    if (!found) throw new InconsistentDealError('deal: no consistent composition (internal counting error)');
  }

  /**
   * Calls `visit(weight, keyAfter)` for each way to give group g its size from its allowed suits, where
   * weight = prod_k C(r_k, n_k). `remaining` is decremented by the composition during the call (and
   * restored after), and `current` (if given) holds the composition. `visit` returns true to stop.
   */
  private forEachComposition(
    g: number,
    remaining: Int32Array,
    key: number,
    visit: (weight: number, keyAfter: number) => boolean,
    current?: Int32Array,
  ): void {
    const allowed = this.groupAllowed[g];
    const binom = this.binom;
    const stride = this.stride;
    const recurse = (i: number, left: number, weight: number, k0: number): boolean => {
      if (i === allowed.length) return left === 0 ? visit(weight, k0) : false;
      const k = allowed[i];
      let later = 0;
      for (let j = i + 1; j < allowed.length; j++) later += remaining[allowed[j]];
      const have = remaining[k];
      const lo = Math.max(0, left - later);
      const hi = Math.min(have, left);
      for (let n = lo; n <= hi; n++) {
        remaining[k] = have - n;
        if (current) current[k] = n;
        const stop = recurse(i + 1, left - n, weight * binom[have][n], k0 - n * stride[k]);
        remaining[k] = have;
        if (stop) {
          if (current) current[k] = n;
          return true;
        }
      }
      if (current) current[k] = 0;
      return false;
    };
    recurse(0, this.groupSize[g], 1, key);
  }

  private choose(n: number, k: number): number {
    if (k < 0 || k > n) return 0;
    this.ensureBinomials(n);
    return this.binom[n][k];
  }

  private ensureBinomials(n: number): void {
    for (let m = this.binom.length; m <= n; m++) {
      const row = new Float64Array(m + 1);
      row[0] = 1;
      row[m] = 1;
      for (let j = 1; j < m; j++) row[j] = this.binom[m - 1][j - 1] + this.binom[m - 1][j];
      this.binom.push(row);
    }
  }
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}

const sharedDealer = new ConsistentDealer();

/**
 * Uniformly samples an assignment of hidden cards to receivers consistent with hand sizes and known
 * voids (see `ConsistentDealer`). `out[i]` is the receiver of card i. Uses a shared module-level
 * dealer; make your own `ConsistentDealer` if you need one per worker.
 */
export function dealConsistentHands(spec: ConsistentDealSpec, rng: Rng, out?: Int32Array): Int32Array {
  return sharedDealer.deal(spec, rng, out);
}

/** The number of deals consistent with `spec` (a double; exact while below 2^53). */
export function countConsistentDeals(spec: ConsistentDealSpec): number {
  return sharedDealer.count(spec);
}

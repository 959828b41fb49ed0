// Forced playouts and policy target pruning (KataGo: Wu 2019, "Accelerating Self-Play Learning in Go",
// section 3.1), over BatchedMcts's flat tree arrays.
import type { TreeArrays } from './gumbel.js';

/** n_forced(c) = sqrt(k · P(c) · Σ N): the visits a root child that has been visited at all is owed. */
export function forcedPlayouts(k: number, prior: number, parentVisits: number): number {
  return Math.sqrt(k * prior * parentVisits);
}

/**
 * The root's visit counts with forced playouts taken back out, by action into `out[0..A)` (zeros for
 * unvisited and illegal actions). The most visited child c* keeps its count; every other child c loses
 * up to n_forced(c) visits, as many as keep PUCT(c) < PUCT(c*) (c*'s PUCT at its own count, parent count
 * the root's), and a child so reduced to a single visit is dropped. What is left is the visits PUCT would
 * have given without the forcing, so noise-forced moves do not teach the policy.
 */
export function prunedRootVisits(tree: TreeArrays, root: number, cPuct: number, k: number, out: Float32Array, actionSize: number): Float32Array {
  const { P, visits, prior, valueSum, terminalValue, flags, solvedFlag, actionOf } = tree;
  out.fill(0, 0, actionSize);
  const first = tree.firstChild[root];
  const count = tree.childCount[root];
  if (count === 0) return out;
  const seat = tree.toPlay[root];
  let total = 0;
  let star = -1;
  for (let c = first; c < first + count; c++) {
    total += visits[c];
    if (star < 0 || visits[c] > visits[star]) star = c;
  }
  const sqrtN = Math.sqrt(Math.max(1, visits[root]));
  const q = (c: number): number => (flags[c] & solvedFlag ? terminalValue[c * P + seat] : valueSum[c * P + seat] / visits[c]);
  const starPuct = q(star) + (cPuct * prior[star] * sqrtN) / (1 + visits[star]);
  for (let c = first; c < first + count; c++) {
    const n = visits[c];
    if (n === 0) continue;
    if (c === star) {
      out[actionOf[c]] = n;
      continue;
    }
    const gap = starPuct - q(c);
    // Fewest visits keeping Q + u / (1 + N') < PUCT(c*); none when c's Q alone reaches c*'s PUCT.
    const u = cPuct * prior[c] * sqrtN;
    const fewest = gap > 0 ? Math.max(0, Math.floor(u / gap - 1) + 1) : n;
    const kept = Math.min(n, Math.max(n - Math.floor(forcedPlayouts(k, prior[c], total)), fewest));
    out[actionOf[c]] = kept <= 1 && kept < n ? 0 : kept;
  }
  return out;
}

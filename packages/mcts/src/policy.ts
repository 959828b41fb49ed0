import type { Rng } from '@az/core';

/**
 * Picks an action from root visit counts. Temperature 0 takes the most visited (ties broken at
 * random); otherwise samples proportionally to counts^(1/temperature).
 */
export function selectActionFromVisits(counts: Float32Array, temperature: number, rng: Rng, actionSize = counts.length): number {
  if (temperature <= 0) {
    let best = -1;
    let bestCount = -1;
    let ties = 0;
    for (let a = 0; a < actionSize; a++) {
      const c = counts[a];
      if (c > bestCount) {
        bestCount = c;
        best = a;
        ties = 1;
      } else if (c === bestCount && c > 0 && rng.int(++ties) === 0) {
        best = a;
      }
    }
    if (bestCount <= 0) throw new Error('selectActionFromVisits: no visited action');
    return best;
  }
  const inv = 1 / temperature;
  let total = 0;
  for (let a = 0; a < actionSize; a++) if (counts[a] > 0) total += Math.pow(counts[a], inv);
  if (total <= 0) throw new Error('selectActionFromVisits: no visited action');
  let r = rng.next() * total;
  let last = -1;
  for (let a = 0; a < actionSize; a++) {
    if (counts[a] <= 0) continue;
    last = a;
    r -= Math.pow(counts[a], inv);
    if (r < 0) return a;
  }
  return last;
}

/**
 * The legal action with the highest logit (the first of equals): `mask[maskOffset + a]` marks legal
 * actions, `logits[logitOffset + a]` rates them; -1 when none is legal.
 */
export function topLegalAction(mask: Uint8Array, maskOffset: number, logits: Float32Array, logitOffset: number, actionSize: number): number {
  let best = -1;
  for (let a = 0; a < actionSize; a++) if (mask[maskOffset + a] && (best < 0 || logits[logitOffset + a] > logits[logitOffset + best])) best = a;
  return best;
}

/** Normalises visit counts into a probability vector in place; returns the total. */
export function normalizeVisits(counts: Float32Array, actionSize = counts.length): number {
  let total = 0;
  for (let a = 0; a < actionSize; a++) total += counts[a];
  // Zeros stay zero (most of a large action space is unvisited): skipping them saves a division and a write each.
  if (total > 0) for (let a = 0; a < actionSize; a++) if (counts[a] !== 0) counts[a] /= total;
  return total;
}

import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { ConsistentDealer, InconsistentDealError, countConsistentDeals, dealConsistentHands, type ConsistentDealSpec } from './deal.js';

/** Every consistent deal of a small spec, by brute force over receiver^cards assignments. */
function enumerateDeals(spec: ConsistentDealSpec): string[] {
  const n = spec.cardSuits.length;
  const receivers = spec.handSizes.length;
  const deals: string[] = [];
  const assignment = new Int32Array(n);
  const total = receivers ** n;
  for (let code = 0; code < total; code++) {
    let c = code;
    const sizes = new Int32Array(receivers);
    let ok = true;
    for (let i = 0; i < n; i++) {
      const r = c % receivers;
      c = Math.floor(c / receivers);
      assignment[i] = r;
      sizes[r]++;
      if (spec.forbiddenSuits[r] & (1 << spec.cardSuits[i])) ok = false;
    }
    for (let r = 0; ok && r < receivers; r++) if (sizes[r] !== spec.handSizes[r]) ok = false;
    if (ok) deals.push(assignment.join(''));
  }
  return deals;
}

describe('dealConsistentHands', () => {
  // Eight cards in three suits; receivers 1 and 2 share a mask (so they are merged and split again).
  const spec: ConsistentDealSpec = {
    cardSuits: [0, 0, 0, 1, 1, 1, 2, 2],
    numSuits: 3,
    handSizes: [2, 2, 2, 2],
    forbiddenSuits: [0b001, 0b000, 0b000, 0b010],
  };

  it('counts exactly the deals brute force finds', () => {
    const deals = enumerateDeals(spec);
    expect(deals.length).toBeGreaterThan(100);
    expect(countConsistentDeals(spec)).toBe(deals.length);
    const impossible: ConsistentDealSpec = { ...spec, forbiddenSuits: [0b011, 0b011, 0, 0] };
    expect(countConsistentDeals(impossible)).toBe(enumerateDeals(impossible).length);
  });

  it('samples every consistent deal with equal probability', () => {
    const deals = enumerateDeals(spec);
    const index = new Map(deals.map((d, i) => [d, i]));
    const counts = new Int32Array(deals.length);
    const rng = new Rng(12345);
    const samples = deals.length * 60;
    const out = new Int32Array(spec.cardSuits.length);
    let inconsistent = 0;
    for (let t = 0; t < samples; t++) {
      const i = index.get(dealConsistentHands(spec, rng, out).join(''));
      if (i === undefined) inconsistent++;
      else counts[i]++;
    }
    expect(inconsistent).toBe(0);
    const expected = samples / deals.length;
    let chi2 = 0;
    for (const c of counts) chi2 += (c - expected) ** 2 / expected;
    const dof = deals.length - 1;
    // Chi-square with `dof` degrees of freedom has mean dof and sd sqrt(2 dof); allow 4 sd (fixed seed).
    expect(chi2).toBeLessThan(dof + 4 * Math.sqrt(2 * dof));
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it('is uniform with a heavily constrained receiver and an unconstrained stock', () => {
    // Receiver 0 may hold only suit 2; receiver 2 is a stock with no constraint.
    const constrained: ConsistentDealSpec = {
      cardSuits: [0, 0, 1, 1, 2, 2, 2],
      numSuits: 3,
      handSizes: [2, 2, 3],
      forbiddenSuits: [0b011, 0b100, 0],
    };
    const deals = enumerateDeals(constrained);
    expect(countConsistentDeals(constrained)).toBe(deals.length);
    const counts = new Map<string, number>();
    const rng = new Rng(7);
    const samples = deals.length * 400;
    for (let t = 0; t < samples; t++) {
      const key = dealConsistentHands(constrained, rng).join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([...deals].sort());
    const expected = samples / deals.length;
    let worst = 0;
    for (const c of counts.values()) worst = Math.max(worst, Math.abs(c - expected) / expected);
    expect(worst).toBeLessThan(0.15);
  });

  it('refuses impossible constraints and bad sizes', () => {
    const rng = new Rng(1);
    expect(() => dealConsistentHands({ cardSuits: [0, 0, 1], numSuits: 2, handSizes: [2, 1], forbiddenSuits: [0b01, 0] }, rng)).toThrow(
      InconsistentDealError,
    );
    // Each receiver alone can be filled but not both: 0 needs suit 1 (one card) twice.
    expect(() =>
      dealConsistentHands({ cardSuits: [0, 1, 1, 0], numSuits: 2, handSizes: [2, 2], forbiddenSuits: [0b01, 0b01] }, rng),
    ).toThrow(InconsistentDealError);
    expect(() => dealConsistentHands({ cardSuits: [0, 1], numSuits: 2, handSizes: [1], forbiddenSuits: [0] }, rng)).toThrow(/sum to 1/);
  });

  it('handles a full 39-card deal with voids quickly and respects the constraints', () => {
    const cardSuits: number[] = [];
    for (let s = 0; s < 4; s++) for (let r = 0; r < (s === 0 ? 6 : 11); r++) cardSuits.push(s);
    const spec39: ConsistentDealSpec = { cardSuits, numSuits: 4, handSizes: [13, 13, 13], forbiddenSuits: [0b0001, 0b0100, 0b1001] };
    const dealer = new ConsistentDealer();
    const rng = new Rng(3);
    const out = new Int32Array(cardSuits.length);
    for (let t = 0; t < 200; t++) {
      dealer.deal(spec39, rng, out);
      const sizes = [0, 0, 0];
      for (let i = 0; i < cardSuits.length; i++) {
        sizes[out[i]]++;
        expect(spec39.forbiddenSuits[out[i]] & (1 << cardSuits[i])).toBe(0);
      }
      expect(sizes).toEqual([13, 13, 13]);
    }
    // Cross-checked by an independent enumeration over per-suit compositions.
    expect(dealer.count(spec39)).toBe(5175289350);
  });
});

// The rating maths against known answers: closed forms, synthetic results from known Elo differences
// (seeded), and SPRT on synthetic streams.
import { Rng } from './rng.js';
import { describe, expect, it } from 'vitest';
import { eloFromScore, expectedScore, fitElo, losFromRecord, sprt, wilsonInterval, type PairResult } from './rating.js';

/** Games of a against b with true difference `diff` and draw probability `drawRate`, seeded. */
function simulate(rng: Rng, a: string, b: string, diff: number, games: number, drawRate = 0.2): PairResult {
  const e = expectedScore(diff);
  // With draws at rate d, a win has probability e - d/2 so the expected score stays e.
  const d = Math.min(drawRate, 2 * Math.min(e, 1 - e));
  let wins = 0;
  let draws = 0;
  let losses = 0;
  for (let g = 0; g < games; g++) {
    const u = rng.next();
    if (u < e - d / 2) wins++;
    else if (u < e + d / 2) draws++;
    else losses++;
  }
  return { a, b, wins, draws, losses };
}

describe('wilsonInterval', () => {
  it('is honest at tiny samples and matches the textbook value', () => {
    // 1 win in 2 games: wide, not +-0.
    const two = wilsonInterval(1, 2);
    expect(two.low).toBeCloseTo(0.0945, 3);
    expect(two.high).toBeCloseTo(0.9055, 3);
    // All wins: the upper end is 1, the lower end well below it.
    const perfect = wilsonInterval(5, 5);
    expect(perfect.high).toBe(1);
    expect(perfect.low).toBeCloseTo(0.5655, 3);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it('reaches exactly 1 at all wins and 0 at no wins for every n, so the Elo bound is infinite like the estimate', () => {
    for (let n = 1; n <= 500; n++) {
      expect(wilsonInterval(n, n).high, `n=${n}`).toBe(1);
      expect(eloFromScore(wilsonInterval(n, n).high), `n=${n}`).toBe(Infinity);
      expect(wilsonInterval(0, n).low, `n=${n}`).toBe(0);
      expect(eloFromScore(wilsonInterval(0, n).low), `n=${n}`).toBe(-Infinity);
    }
  });
});

describe('fitElo', () => {
  it('matches the two-player closed form (score -> Elo), with the anchor fixed', () => {
    const fit = fitElo([{ a: 'x', b: 'y', wins: 30, draws: 20, losses: 10 }], { anchor: 'y', anchorElo: 1000, priorDraws: 0 });
    const x = fit.players.find((p) => p.name === 'x');
    const y = fit.players.find((p) => p.name === 'y');
    expect(y?.elo).toBe(1000);
    expect(y?.se).toBe(0);
    expect(x?.elo).toBeCloseTo(1000 + eloFromScore(40 / 60), 4);
    // The standard error is the delta method's: sqrt(1 / (n s (1 - s))) / (ln10 / 400).
    const s = 40 / 60;
    expect(x?.se).toBeCloseTo(400 / Math.LN10 / Math.sqrt(60 * s * (1 - s)), 4);
    // The prior's virtual draw pulls a perfect record to a finite rating.
    const perfect = fitElo([{ a: 'x', b: 'y', wins: 10, draws: 0, losses: 0 }], { anchor: 'y' });
    expect(perfect.players[0].elo).toBeCloseTo(eloFromScore(10.5 / 11), 4);
  });

  it('recovers known ratings from seeded synthetic round-robin results, within the intervals', () => {
    const truth: Record<string, number> = { a: 0, b: 120, c: -80, d: 300, e: 40 };
    const names = Object.keys(truth);
    const rng = new Rng(42);
    const results: PairResult[] = [];
    for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) results.push(simulate(rng, names[i], names[j], truth[names[i]] - truth[names[j]], 400));
    const fit = fitElo(results, { anchor: 'a', priorDraws: 0 });
    let inside = 0;
    for (const p of fit.players) {
      if (p.name === 'a') continue;
      expect(Math.abs(p.elo - truth[p.name])).toBeLessThan(3 * p.se);
      if (truth[p.name] >= p.low && truth[p.name] <= p.high) inside++;
      // 400 games a pair: the errors are tens of Elo, not hundreds.
      expect(p.se).toBeGreaterThan(5);
      expect(p.se).toBeLessThan(40);
    }
    expect(inside).toBeGreaterThanOrEqual(3);
    expect(fit.players.map((p) => p.name)).toEqual(['d', 'b', 'e', 'a', 'c']);
    // d is clearly above b; b and e are close, so less sure.
    expect(fit.los[0][1]).toBeGreaterThan(0.99);
  });

  it('rates a gauntlet (one player against fixed anchors) and refuses disconnected players', () => {
    const rng = new Rng(7);
    const results = [simulate(rng, 'model', 'random', 600, 200, 0.05), simulate(rng, 'model', 'greedy', 150, 200), simulate(rng, 'model', 'sf', -250, 200)];
    const fit = fitElo(results, { anchor: 'random' });
    const model = fit.players.find((p) => p.name === 'model');
    expect(model).toBeDefined();
    // Only the model's games tie the anchors together; its rating is still pinned by the random games.
    expect(Math.abs((model?.elo ?? 0) - 600)).toBeLessThan(3 * (model?.se ?? 0) + 30);
    expect(() => fitElo([{ a: 'x', b: 'y', wins: 1, draws: 0, losses: 1 }, { a: 'p', b: 'q', wins: 1, draws: 0, losses: 0 }], { anchor: 'x' })).toThrow(/p, q never played/);
  });

  it('gives the head-to-head likelihood of superiority', () => {
    expect(losFromRecord(10, 10)).toBeCloseTo(0.5, 6);
    expect(losFromRecord(20, 10)).toBeGreaterThan(0.95);
    expect(losFromRecord(0, 0)).toBe(0.5);
  });
});

describe('sprt', () => {
  /** Plays a stream game by game until the test decides (or `cap` games). */
  function run(trueElo: number, seed: number, cap = 20000): { decision: string; games: number } {
    const rng = new Rng(seed);
    let w = 0;
    let d = 0;
    let l = 0;
    for (let n = 1; n <= cap; n++) {
      const r = simulate(rng, 'x', 'y', trueElo, 1, 0.3);
      w += r.wins;
      d += r.draws;
      l += r.losses;
      const s = sprt(w, d, l, 0, 40);
      if (s.decision !== 'continue') return { decision: s.decision, games: n };
    }
    return { decision: 'continue', games: cap };
  }

  it('accepts H1 when the truth is elo1 and H0 when it is elo0, at about the stated error rates', () => {
    const h1 = Array.from({ length: 20 }, (_, i) => run(40, 100 + i));
    const h0 = Array.from({ length: 20 }, (_, i) => run(0, 200 + i));
    expect(h1.filter((r) => r.decision === 'H1').length).toBeGreaterThanOrEqual(17);
    expect(h0.filter((r) => r.decision === 'H0').length).toBeGreaterThanOrEqual(17);
    // It stops early: far fewer games than a fixed-length test of this precision would need.
    expect(Math.max(...h1.map((r) => r.games), ...h0.map((r) => r.games))).toBeLessThan(20000);
  });

  it('stops a lopsided match in a few dozen games, and not after one', () => {
    expect(sprt(1, 0, 0, 0, 40).decision).toBe('continue');
    const rng = new Rng(3);
    let w = 0;
    let d = 0;
    let l = 0;
    let n = 0;
    for (; n < 1000; n++) {
      const r = simulate(rng, 'x', 'y', 400, 1, 0.1);
      w += r.wins;
      d += r.draws;
      l += r.losses;
      if (sprt(w, d, l, 0, 40).decision !== 'continue') break;
    }
    expect(sprt(w, d, l, 0, 40).decision).toBe('H1');
    expect(n).toBeLessThan(100);
  });
});

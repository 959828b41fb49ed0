// Shared by the Blob benchmarks (not a benchmark itself: the runner takes *.bench.mjs only): one agent
// against another over single rounds, seats rotating, with mean and 95% interval of each side's score
// per round and bid accuracy and of the per-round difference.
import { playArena } from '@az/core';
import { blobOutcomeMetrics } from '@az/game-blob';

/** Mean and normal 95% half-width of `values`, to three decimals. */
export function summarize(values) {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, n - 1);
  return { mean: +mean.toFixed(3), ci95: +(1.96 * Math.sqrt(variance / n)).toFixed(3), n };
}

/** Agent `a` in one seat and `b` in every other, `rounds` games from arena seed `seed`. */
export async function blobMatch(game, name, a, b, rounds, seed = 2024) {
  const P = game.numPlayers;
  const lineup = Array.from({ length: P }, (_, i) => (i === 0 ? a : b));
  const m = { a: { score: [], exact: [] }, b: { score: [], exact: [] }, diffScore: [], diffExact: [] };
  const start = performance.now();
  await playArena(game, lineup, rounds, {
    seed,
    onGameEnd: (state, seatAgent) => {
      let aScore = 0;
      let aExact = 0;
      let bScore = 0;
      let bExact = 0;
      for (let seat = 0; seat < P; seat++) {
        const o = blobOutcomeMetrics(game.config, state, seat);
        const side = seatAgent[seat] === 0 ? m.a : m.b;
        side.score.push(o.scorePerRound);
        side.exact.push(o.bidAccuracy);
        if (seatAgent[seat] === 0) {
          aScore = o.scorePerRound;
          aExact = o.bidAccuracy;
        } else {
          bScore += o.scorePerRound / (P - 1);
          bExact += o.bidAccuracy / (P - 1);
        }
      }
      m.diffScore.push(aScore - bScore);
      m.diffExact.push(aExact - bExact);
    },
  });
  return {
    comparison: name,
    rounds,
    seconds: +((performance.now() - start) / 1000).toFixed(1),
    a: { agent: a.name, scorePerRound: summarize(m.a.score), bidAccuracy: summarize(m.a.exact) },
    b: { agent: b.name, scorePerRound: summarize(m.b.score), bidAccuracy: summarize(m.b.exact) },
    aMinusB: { scorePerRound: summarize(m.diffScore), bidAccuracy: summarize(m.diffExact) },
  };
}

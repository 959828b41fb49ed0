// Information-set MCTS against determinized search on Blob, at equal evaluator work.
//
// 4 players, one round of 5 cards, leaves valued by one random playout (RolloutEvaluator: no trained
// network is involved, so the comparison is of the two tree methods alone). Determinized: D=3 worlds x
// S=30 simulations per move (90 leaf evaluations); information-set: one tree, 90 simulations, a world
// sampled per simulation (90 leaf evaluations). Each against the heuristic bot on the same deals (arena
// seed 2024, seats rotating, the searcher in one seat), and head to head (information-set in one seat,
// determinized in the other three). Score per round, bid accuracy, and the paired per-round difference
// A - mean(B), each with a 95% confidence interval. BLOB_BENCH_ROUNDS sets the rounds (default 1000).
//
// Run: node bench/suites/blob-ismcts.bench.mjs after a build.
import os from 'node:os';
import { playArena, validateConfig } from '@az/core';
import { BlobGame, HeuristicAgent, blobConfigSchema, blobOutcomeMetrics } from '@az/game-blob';
import { createSearchEngine } from '@az/imperfect-info';
import { MctsAgent, RolloutEvaluator } from '@az/mcts';
import { writeResult } from '@az/bench';

const GAME_CONFIG = { players: 4, rounds: 'one', roundCards: 5 };
const ROUNDS = Number(process.env.BLOB_BENCH_ROUNDS ?? 1000);
const game = new BlobGame(validateConfig(blobConfigSchema, GAME_CONFIG));

function summarize(values) {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / Math.max(1, n - 1);
  return { mean: +mean.toFixed(3), ci95: +(1.96 * Math.sqrt(variance / n)).toFixed(3), n };
}

async function compare(name, a, b, rounds) {
  const P = game.numPlayers;
  const lineup = Array.from({ length: P }, (_, i) => (i === 0 ? a : b));
  const m = { a: { score: [], exact: [] }, b: { score: [], exact: [] }, diffScore: [] };
  const start = performance.now();
  await playArena(game, lineup, rounds, {
    seed: 2024,
    onGameEnd: (state, seatAgent) => {
      let aScore = 0;
      let bScore = 0;
      for (let seat = 0; seat < P; seat++) {
        const o = blobOutcomeMetrics(game.config, state, seat);
        const side = seatAgent[seat] === 0 ? m.a : m.b;
        side.score.push(o.scorePerRound);
        side.exact.push(o.bidAccuracy);
        if (seatAgent[seat] === 0) aScore = o.scorePerRound;
        else bScore += o.scorePerRound / (P - 1);
      }
      m.diffScore.push(aScore - bScore);
    },
  });
  const result = {
    comparison: name,
    rounds,
    seconds: +((performance.now() - start) / 1000).toFixed(1),
    a: { agent: a.name, scorePerRound: summarize(m.a.score), bidAccuracy: summarize(m.a.exact) },
    b: { agent: b.name, scorePerRound: summarize(m.b.score), bidAccuracy: summarize(m.b.exact) },
    aMinusB: { scorePerRound: summarize(m.diffScore) },
  };
  console.log(JSON.stringify(result));
  return result;
}

const searcher = (method, seed) => {
  const engine = createSearchEngine(game, new RolloutEvaluator(game, seed), 64, { simulations: 30, dirichletEpsilon: 0, nodeCapacity: 4096, seed }, { determinizations: 3, method });
  return new MctsAgent(`${method} (rollouts, 90 evaluations per move)`, engine, game.masker.actionSize, 0, seed);
};
const heuristic = new HeuristicAgent(game.rules);
const results = [
  await compare('information-set vs heuristic', searcher('information-set', 1), heuristic, ROUNDS),
  await compare('determinized vs heuristic', searcher('determinized', 1), heuristic, ROUNDS),
  await compare('information-set vs determinized', searcher('information-set', 1), searcher('determinized', 2), ROUNDS),
];

writeResult(
  'blob-ismcts',
  { game: 'blob', gameConfig: GAME_CONFIG, evaluationsPerMove: 90, leafValues: 'one random playout per leaf', arenaSeed: 2024 },
  { results, loadAverage: os.loadavg().map((x) => +x.toFixed(2)) },
);

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
import { validateConfig } from '@az/core';
import { BlobGame, HeuristicAgent, blobConfigSchema } from '@az/game-blob';
import { createSearchEngine, resolveSearchSettings } from '@az/imperfect-info';
import { MctsAgent, RolloutEvaluator } from '@az/mcts';
import { writeResult } from '@az/bench';
import { blobMatch } from './blob-match.mjs';

const GAME_CONFIG = { players: 4, rounds: 'one', roundCards: 5 };
const ROUNDS = Number(process.env.BLOB_BENCH_ROUNDS ?? 1000);
const game = new BlobGame(validateConfig(blobConfigSchema, GAME_CONFIG));

async function compare(name, a, b, rounds) {
  const result = await blobMatch(game, name, a, b, rounds);
  console.log(JSON.stringify(result));
  return result;
}

const searcher = (method, seed) => {
  const engine = createSearchEngine(game, { evaluator: new RolloutEvaluator(game, seed) }, 64, resolveSearchSettings({ game: game.traits }, { tree: { simulations: 30, dirichletEpsilon: 0, nodeCapacity: 4096, seed }, determinizations: 3, method }));
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
  { results },
);

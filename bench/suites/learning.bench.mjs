// What each learning technique buys for a fixed wall-clock budget: trains the same game with each switch
// on (and all off), same seeds, gives every run the same time limit (the trainer's `timeLimitSeconds`,
// `az train --time-limit`: no iteration starts that would end after it), then scores the final
// network with the game's own assessment (tic-tac-toe: the exact oracle; Connect Four: the solved
// reference positions) from its policy alone and with search. Prints a markdown table (the one in
// docs/training.md) and writes bench/results/learning.json.
//
//   AZ_LEARN_GAME=tictactoe AZ_LEARN_SECONDS=60 AZ_LEARN_SEEDS=1,2 AZ_LEARN_SIMS=100 npm run bench learning
//   AZ_LEARN_VARIANTS=baseline,solve  (a subset; see VARIANTS)
//   AZ_LEARN_OPTIONS='{"gamesPerIteration":64}'  (training options every run shares, over the game's own)
//   AZ_LEARN_ITERATIONS=N  (also stop each run after N iterations: on a shared machine, a comparison at
//                           equal work next to the one at equal time)
//
// The budget is wall-clock, so runs must not share the machine with other work: note the load average
// printed with the table.
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRegistry } from '@az/core';
import { registerTicTacToe } from '@az/game-tictactoe';
import { connect4Plugin } from 'az-game-connect4';
import { MctsAgent, NetworkEvaluator, PolicyAgent, nodeCapacityFor, playSearchConfig } from '@az/mcts';
import { openCheckpointInference, resolveCheckpointPath } from '@az/nn';
import { runTraining } from '@az/trainer-multigpu';
import { writeResult } from '@az/bench';

registerTicTacToe(defaultRegistry);
if (!defaultRegistry.has('connect4')) defaultRegistry.register(connect4Plugin);

// Each variant: the options it sets over the run's own (a function of the game's self-play simulations
// where the variant changes them).
const VARIANTS = {
  baseline: {},
  solve: { selfPlaySolve: true },
  'root-value-0.5': { rootValueWeight: 0.5 },
  'playout-cap-0.25': { fullSearchShare: 0.25 },
  'eval-cache': { evalCacheSize: 200_000 },
  gumbel: { rootSelection: 'gumbel' },
  'gumbel-c-scale-0.1': { rootSelection: 'gumbel', gumbelCScale: 0.1 },
  // The paper's self-play: every move is Gumbel's pick (no sampling of the improved policy early on).
  'gumbel-no-sampling': { rootSelection: 'gumbel', temperatureMoves: 0 },
  // Gumbel's claim: policy improvement with few simulations, so more games for the same time.
  'gumbel-quarter-sims': (sims) => ({ rootSelection: 'gumbel', simulations: Math.max(4, Math.round(sims / 4)) }),
  'forced-playouts-2': { forcedPlayouts: 2 },
  // Fewer simulations than tic-tac-toe's or Connect Four's legal moves at the start: where PUCT cannot
  // look at every move and Gumbel's halving still ranks them.
  'puct-sims-8': { simulations: 8 },
  'gumbel-sims-8': { rootSelection: 'gumbel', simulations: 8 },
};

const gameId = process.env.AZ_LEARN_GAME ?? 'tictactoe';
const seconds = Number(process.env.AZ_LEARN_SECONDS ?? 60);
const seeds = (process.env.AZ_LEARN_SEEDS ?? '1,2').split(',').map(Number);
const searchSims = Number(process.env.AZ_LEARN_SIMS ?? 100);
const variants = (process.env.AZ_LEARN_VARIANTS ?? Object.keys(VARIANTS).join(',')).split(',');
for (const v of variants) if (!(v in VARIANTS)) throw new Error(`learning bench: unknown variant '${v}' (known: ${Object.keys(VARIANTS).join(', ')})`);
const plugin = defaultRegistry.resolve(gameId);
const shared = JSON.parse(process.env.AZ_LEARN_OPTIONS ?? '{}');
const maxIterations = Number(process.env.AZ_LEARN_ITERATIONS ?? 10_000);
const selfPlaySims = shared.simulations ?? plugin.training?.simulations ?? 64;
const variantOptions = (v) => (typeof VARIANTS[v] === 'function' ? VARIANTS[v](selfPlaySims) : VARIANTS[v]);

async function assess(dir) {
  const { manifest, inference } = await openCheckpointInference(resolveCheckpointPath(dir).checkpointDir, { engine: 'auto', expect: { gameId } });
  try {
    const game = plugin.create(manifest.gameConfig);
    const evaluator = new NetworkEvaluator(inference);
    const policy = await plugin.assessAgent(game, new PolicyAgent('policy', game, evaluator));
    const search = await plugin.assessAgent(
      game,
      MctsAgent.create(game, evaluator, { search: { ...playSearchConfig, simulations: searchSims, nodeCapacity: nodeCapacityFor(searchSims) } }),
    );
    return { policy: policy.metrics.optimalRate, search: search.metrics.optimalRate, searchSummary: search.summary };
  } finally {
    inference.dispose();
  }
}

const rows = [];
const load = [os.loadavg()];
for (const variant of variants) {
  for (const seed of seeds) {
    const out = mkdtempSync(join(tmpdir(), `az-bench-learn-${variant}-`));
    let last;
    try {
      // Many iterations by default: the budget, not the count, ends the run.
      await runTraining({ game: gameId, out, seed, iterations: maxIterations, timeLimitSeconds: seconds, evalGames: 0, ...shared, ...variantOptions(variant) }, { events: { iteration: (m) => (last = m) } });
      // Up to the last checkpoint: the game's assessment at the end of the run is not training time.
      const trainSeconds = last?.sessionSeconds ?? 0;
      const scores = await assess(out);
      rows.push({ variant, seed, iterations: last?.iteration ?? 0, trainSeconds, ...scores, cacheHitRate: last?.selfPlay.cacheHitRate, loadAverage: os.loadavg()[0] });
      console.log(`${variant} seed ${seed}: ${last?.iteration ?? 0} iterations; policy ${(100 * scores.policy).toFixed(1)}%, ${searchSims} sims ${(100 * scores.search).toFixed(1)}%`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    load.push(os.loadavg());
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x) => `${(100 * x).toFixed(1)}%`;
console.log(`\n${gameId}, ${seconds} s per run${maxIterations < 10_000 ? ` or ${maxIterations} iterations` : ''}, seeds ${seeds.join(',')}, shared options ${JSON.stringify(shared)}, load average (1 min) ${load.map((l) => l[0].toFixed(1)).join(' ')}\n`);
console.log(`| technique | iterations (mean) | seconds (mean) | optimal moves, policy alone | optimal moves, ${searchSims} sims |`);
console.log('| --- | --- | --- | --- | --- |');
for (const variant of variants) {
  const r = rows.filter((x) => x.variant === variant);
  console.log(`| ${variant} | ${mean(r.map((x) => x.iterations)).toFixed(1)} | ${mean(r.map((x) => x.trainSeconds)).toFixed(0)} | ${r.map((x) => pct(x.policy)).join(' / ')} | ${r.map((x) => pct(x.search)).join(' / ')} |`);
}
writeResult('learning', { game: gameId, seconds, maxIterations, seeds, searchSimulations: searchSims, variants, shared, loadAverage: load.map((l) => l.map((x) => +x.toFixed(2))) }, { runs: rows });

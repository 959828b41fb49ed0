// Tree-only search speed: simulations/s of BatchedMcts with a uniform evaluator (no network), so the
// figure is the cost of selection, expansion, backup, state cloning and mask/encoding work alone.
import { Rng } from '@az/core';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { writeResult } from '@az/bench';

const game = ticTacToePlugin.create({});
const results = {};
const config = { game: 'tictactoe', trees: 64, leavesPerTree: 8, simulations: 400, nodeCapacity: 8192, rounds: 10, evaluator: 'uniform (needsInputs=false)' };
for (const encode of [false, true]) {
  const evaluator = new UniformEvaluator();
  // With encode=true the search also encodes every leaf, as it does for a network.
  const ev = encode ? { needsInputs: true, evaluate: (b) => evaluator.evaluate(b) } : evaluator;
  const search = new BatchedMcts(game, ev, config.trees, { simulations: config.simulations, leavesPerTree: config.leavesPerTree, nodeCapacity: config.nodeCapacity, seed: 1 });
  const rng = new Rng(1);
  let sims = 0;
  const start = performance.now();
  for (let round = 0; round < config.rounds; round++) {
    for (let t = 0; t < config.trees; t++) search.setRoot(t, game.initialState(rng));
    await search.search();
    sims += config.trees * config.simulations;
  }
  const seconds = (performance.now() - start) / 1000;
  results[encode ? 'withEncoding' : 'treeOnly'] = { simulationsPerSecond: Math.round(sims / seconds), microsecondsPerSimulation: +((seconds * 1e6) / sims).toFixed(3), averageBatch: +search.averageBatchSize.toFixed(1), seconds: +seconds.toFixed(2) };
}
writeResult('mcts-tree', config, results);

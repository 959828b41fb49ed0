// Self-play throughput against raw network inference at the same batch size: how much of the
// network's speed survives the search around it (tree, state copies, masks, encoding).
// Goal from the foundation issue: ratio >= 0.8.
import os from 'node:os';
import { Rng } from '@az/core';
import { buildModel, createInferenceModel, createInferenceModelFor, initBackend } from '@az/nn';
import { BatchedMcts, NetworkEvaluator } from '@az/mcts';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { SelfPlay } from '@az/trainer-multigpu';
import { timeIt, writeResult } from '@az/bench';

await initBackend('wasm');
const game = ticTacToePlugin.create({});
const settings = { parallelGames: 64, leavesPerTree: 8, simulations: 64, games: 256, engines: 'tfjs wasm and onnxruntime (1 thread)' };
const results = {};
for (const [hidden, engineName] of [[[64, 64], 'wasm'], [[64, 64], 'onnx'], [[512, 512], 'wasm'], [[512, 512], 'onnx']]) {
  const config = { spec: { kind: 'mlp', hidden }, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: 2 };
  const model = buildModel(config, { seed: 1 });
  const inference = engineName === 'wasm' ? createInferenceModel(model, config) : await createInferenceModelFor(model, config, { backend: 'onnx', threads: 1 });
  const engine = new BatchedMcts(game, new NetworkEvaluator(inference), settings.parallelGames, {
    simulations: settings.simulations,
    leavesPerTree: settings.leavesPerTree,
    nodeCapacity: 8192,
    seed: 1,
  });
  const selfPlay = new SelfPlay(game, engine, { temperatureMoves: 9, seed: 1 });
  const stats = await selfPlay.play(settings.games, () => {});
  const selfPlayEvalsPerSecond = stats.evaluations / stats.seconds;
  const batch = Math.max(1, Math.round(stats.averageBatch));
  const input = new Float32Array(batch * game.encoder.size);
  const rng = new Rng(2);
  for (let i = 0; i < input.length; i++) input[i] = rng.next() < 0.3 ? 1 : 0;
  const policy = new Float32Array(batch * 9);
  const value = new Float32Array(batch * 2);
  const raw = await timeIt(() => inference.predict(input, batch, policy, value), 2000);
  const rawEvalsPerSecond = raw.perSecond * batch;
  results[`mlp-${hidden.join('x')}-${engineName}`] = {
    selfPlayEvalsPerSecond: Math.round(selfPlayEvalsPerSecond),
    averageBatch: +stats.averageBatch.toFixed(1),
    rawInferenceEvalsPerSecondAtThatBatch: Math.round(rawEvalsPerSecond),
    ratio: +(selfPlayEvalsPerSecond / rawEvalsPerSecond).toFixed(3),
    selfPlayGamesPerSecond: +(stats.games / stats.seconds).toFixed(1),
  };
  inference.dispose();
}
writeResult('selfplay-ratio', { ...settings, game: 'tictactoe', loadAverage: os.loadavg().map((x) => +x.toFixed(2)) }, results);

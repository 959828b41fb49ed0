// Self-play throughput against raw network inference at the same batch size: how much of the
// network's speed survives the search around it (tree, state copies, masks, encoding).
// Goal from the foundation issue: ratio >= 0.8. Tic-tac-toe with two MLPs (its default 64x64 and a big one),
// Connect Four with its default net (the plugin's training hints: a 32-filter, 2-block residual tower).
import { Rng, resolveGameConfig } from '@az/core';
import { buildModel, createInferenceModel, initBackend, openInferenceEngine } from '@az/nn';
import { BatchedMcts, NetworkEvaluator } from '@az/mcts';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { connect4Plugin } from 'az-game-connect4';
import { SelfPlay } from '@az/trainer-multigpu';
import { timeIt, writeResult } from '@az/bench';

await initBackend('wasm');
const tictactoe = ticTacToePlugin.create({});
const connect4 = connect4Plugin.create(resolveGameConfig(connect4Plugin, {}));
const settings = { parallelGames: 64, leavesPerTree: 8, simulations: 64, games: 256, connect4Games: 128, engines: 'tfjs wasm and onnxruntime (1 thread)' };
const results = {};
const runs = [
  ['mlp-64x64', tictactoe, { kind: 'mlp', hidden: [64, 64] }],
  ['mlp-512x512', tictactoe, { kind: 'mlp', hidden: [512, 512] }],
  ['connect4-resnet-32x2', connect4, connect4Plugin.training.network],
].flatMap((run) => ['wasm', 'onnx'].map((engineName) => [...run, engineName]));
for (const [label, game, spec, engineName] of runs) {
  const config = { spec, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: 2 };
  const model = buildModel(config, { seed: 1 });
  const inference = engineName === 'wasm' ? createInferenceModel(model, config) : await openInferenceEngine(model, config, { engine: 'onnx', threads: 1 });
  const engine = new BatchedMcts(game, new NetworkEvaluator(inference), settings.parallelGames, {
    simulations: settings.simulations,
    leavesPerTree: settings.leavesPerTree,
    nodeCapacity: 8192,
    seed: 1,
  });
  const selfPlay = new SelfPlay(game, engine, { temperatureMoves: 9, seed: 1 });
  const stats = await selfPlay.play(game === connect4 ? settings.connect4Games : settings.games, () => {});
  const selfPlayEvalsPerSecond = stats.evaluations / stats.seconds;
  const batch = Math.max(1, Math.round(stats.averageBatch));
  const input = new Float32Array(batch * game.encoder.size);
  const rng = new Rng(2);
  for (let i = 0; i < input.length; i++) input[i] = rng.next() < 0.3 ? 1 : 0;
  const policy = new Float32Array(batch * game.masker.actionSize);
  const value = new Float32Array(batch * 2);
  const raw = await timeIt(() => inference.predict(input, batch, policy, value), 2000);
  const rawEvalsPerSecond = raw.perSecond * batch;
  results[`${label}-${engineName}`] = {
    selfPlayEvalsPerSecond: Math.round(selfPlayEvalsPerSecond),
    averageBatch: +stats.averageBatch.toFixed(1),
    rawInferenceEvalsPerSecondAtThatBatch: Math.round(rawEvalsPerSecond),
    ratio: +(selfPlayEvalsPerSecond / rawEvalsPerSecond).toFixed(3),
    selfPlayGamesPerSecond: +(stats.games / stats.seconds).toFixed(1),
  };
  inference.dispose();
}
writeResult('selfplay-ratio', { ...settings, game: 'tictactoe and connect4' }, results);

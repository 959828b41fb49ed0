// onnxruntime-node (the exported graph) against tfjs wasm, in one run on the same nets and batches:
//   inference: positions/s by batch size, onnx with 1 and 2 intra-op threads, wasm (single-threaded in Node);
//   selfplay:  chess and Blob self-play positions/s end to end (search + game logic + network), as the
//              trainer's single-process loop plays them (the game's training settings).
// The engines alternate batch by batch (and game by game) so a change in the shared machine's load hits
// all of them alike; os.loadavg() is recorded before and after each part. Needs `npm run build` first.
// `node bench/suites/onnx.bench.mjs [inference] [selfplay]` runs only the parts named. ~4 minutes.
import os from 'node:os';
import { Rng, resolveGameConfig } from '@az/core';
import { OnnxInferenceModel, buildModel, createInferenceModel, exportOnnx, initBackend } from '@az/nn';
import { timeIt, writeResult } from '@az/bench';

const parts = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const want = (part) => parts.length === 0 || parts.includes(part);
const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

const NETS = {
  'chess-resnet-64x4': { spec: { kind: 'resnet', filters: 64, blocks: 4 }, inputShape: [8, 8, 20], actionSize: 4672, numSeats: 2 },
  'tictactoe-mlp': { spec: { kind: 'mlp', hidden: [64, 64] }, inputShape: [27], actionSize: 9, numSeats: 2 },
  'blob-mlp': { spec: { kind: 'mlp', hidden: [256, 256] }, inputShape: [615], actionSize: 60, numSeats: 4 },
};
const INFERENCE_PLAN = [
  { net: 'chess-resnet-64x4', batches: [1, 16, 64, 256], minMs: 1500 },
  { net: 'tictactoe-mlp', batches: [1, 64, 256], minMs: 500 },
  { net: 'blob-mlp', batches: [1, 64, 256], minMs: 500 },
];
const THREADS = [1, 2];
const SELFPLAY_SECONDS = 12;
const SELFPLAY_WARMUP_SECONDS = 3;
const SEED = 1;

const size = (shape) => shape.reduce((a, b) => a * b, 1);
const rng = new Rng(SEED);
// Sparse 0/1 planes, like real encodings.
const randomInputs = (config, count) => new Float32Array(count * size(config.inputShape)).map(() => (rng.next() < 0.3 ? 1 : 0));

await initBackend('wasm');
const config = { seed: SEED, threads: THREADS, inference: INFERENCE_PLAN, selfplay: { seconds: SELFPLAY_SECONDS, warmupSeconds: SELFPLAY_WARMUP_SECONDS } };
const results = { loadavg: { start: loadavg() } };

/** The engines compared, for one network (tfjs model kept for the wasm figures). */
const exportCost = {};
async function engines(netConfig, name) {
  const model = buildModel(netConfig, { seed: SEED });
  // What the trainer pays after every training phase: export + a new session.
  const t0 = performance.now();
  const graph = exportOnnx(model, netConfig);
  const t1 = performance.now();
  const out = { wasm: createInferenceModel(model, netConfig) };
  for (const t of THREADS) out[`onnx-${t}t`] = await OnnxInferenceModel.create(graph, netConfig, { threads: t });
  exportCost[name] = { exportMs: Math.round(t1 - t0), sessionMs: Math.round((performance.now() - t1) / THREADS.length), bytes: graph.length };
  return out;
}

if (want('inference')) {
  results.inference = {};
  for (const { net, batches, minMs } of INFERENCE_PLAN) {
    const netConfig = NETS[net];
    const models = await engines(netConfig, net);
    const table = {};
    for (const batch of batches) {
      const input = randomInputs(netConfig, batch);
      const policy = new Float32Array(batch * netConfig.actionSize);
      const value = new Float32Array(batch * netConfig.numSeats);
      const row = {};
      for (const [name, m] of Object.entries(models)) {
        const call = () => m.predict(input, batch, policy, value);
        await timeIt(call, minMs / 3); // warm-up: operator setup, V8
        row[name] = Math.round((await timeIt(call, minMs)).perSecond * batch);
      }
      for (const t of THREADS) row[`speedup-${t}t`] = Math.round((row[`onnx-${t}t`] / row.wasm) * 10) / 10;
      table[batch] = row;
      console.log(`inference ${net} batch ${batch}: ${JSON.stringify(row)}`);
    }
    for (const m of Object.values(models)) m.dispose();
    results.inference[net] = table;
  }
  results.loadavg.afterInference = loadavg();
}

if (want('selfplay')) {
  results.selfplay = {};
  const [{ NetworkEvaluator }, trainer] = await Promise.all([import('@az/mcts'), import('@az/trainer-multigpu')]);
  const games = [];
  // Each game with its own training settings; chess also with the chess-sized 64x4 tower, which its
  // training hints avoid because tfjs wasm self-play is too slow with it.
  for (const [id, pkg, exportName, network] of [
    ['chess', '@az/game-chess', 'chessPlugin'],
    ['chess-64x4', '@az/game-chess', 'chessPlugin', { kind: 'resnet', filters: 64, blocks: 4 }],
    ['blob', '@az/game-blob', 'blobPlugin'],
  ]) {
    try {
      games.push({ id, network, plugin: (await import(pkg))[exportName] });
    } catch (err) {
      results.selfplay[id] = { pending: `${pkg} is not built or not importable: ${err.message}` };
      console.log(`selfplay ${id}: skipped (${err.message})`);
    }
  }
  for (const { id, network, plugin } of games) {
    const options = trainer.resolveTrainOptions({ game: plugin.traits.id, ...(network ? { network } : {}) }, plugin);
    const game = plugin.create(resolveGameConfig(plugin, options.gameConfig));
    const netConfig = { spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };
    const models = await engines(netConfig, `${id}-selfplay`);
    const row = {};
    for (const [name, m] of Object.entries(models)) {
      // The trainer's self-play search.
      const network = new NetworkEvaluator(m);
      const engine = trainer.createSelfPlayEngine(game, { evaluator: network, network }, options, options.parallelGames, SEED);
      const selfPlay = new trainer.SelfPlay(game, engine, { temperatureMoves: options.temperatureMoves, seed: SEED });
      // Every slot plays one move per step (numGames = Infinity keeps all slots busy): count steps after the warm-up.
      const start = performance.now();
      let measuredFrom = null;
      let steps = 0;
      const stop = () => (performance.now() - start) / 1000 >= SELFPLAY_WARMUP_SECONDS + SELFPLAY_SECONDS;
      const stats = await selfPlay.play(Infinity, () => undefined, undefined, stop, () => {
        if (measuredFrom === null) {
          if ((performance.now() - start) / 1000 >= SELFPLAY_WARMUP_SECONDS) measuredFrom = performance.now();
        } else steps++;
      });
      const seconds = (performance.now() - (measuredFrom ?? start)) / 1000;
      row[name] = { positionsPerSecond: Math.round(((steps * options.parallelGames) / seconds) * 10) / 10, evalsPerSecond: Math.round(stats.evaluations / stats.seconds), averageBatch: Math.round(stats.averageBatch) };
      console.log(`selfplay ${id} ${name}: ${JSON.stringify(row[name])}`);
    }
    for (const t of THREADS) row[`speedup-${t}t`] = Math.round((row[`onnx-${t}t`].positionsPerSecond / row.wasm.positionsPerSecond) * 10) / 10;
    for (const m of Object.values(models)) m.dispose();
    results.selfplay[id] = {
      network: options.network,
      simulations: options.simulations,
      parallelGames: options.parallelGames,
      leavesPerTree: options.leavesPerTree,
      determinizations: game.traits.information === 'imperfect' ? options.determinizations : undefined,
      ...row,
    };
  }
  results.loadavg.afterSelfplay = loadavg();
}

results.exportAndSession = exportCost;
writeResult('core-onnx', config, results);

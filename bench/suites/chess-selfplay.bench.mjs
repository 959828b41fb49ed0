// Chess self-play at the trainer's default settings (the chess plugin's training hints over the framework
// defaults, exactly what `az train --game chess` resolves to): positions (moves played) per second, average
// batch (leaves per network call), and the share of self-play time spent in the rules and the encoder
// (clone, applyAction, fillMask, encode, isTerminal, currentPlayer, returns, initialState).
// Goal from issue 3: rules + encoding <= 20% of self-play time.
//
// Two independent measurements of that share, because each has a bias:
//   1. instrumented: every game call is timed (performance.now around it) during self-play with the
//      instant evaluator below; share = game time / wall time. The timers add a little to the game time.
//      The runs with the network are not instrumented, so that their time compares with raw inference.
//   2. fake evaluator: the same self-play with an evaluator that answers instantly (uniform priors, zero
//      values) but still has the leaves encoded; its time per evaluation is everything except the network
//      (rules, encoding, tree, records). Share of non-network work = that / the network run's time per
//      evaluation: an upper bound for rules + encoding, since it includes the tree.
// Each runs a fixed number of moves (every game slot moves once per step) from the standard start, and again
// from a middlegame FEN with ~40 legal moves (more rules work per node, same network work).
// Inference engines: tfjs (wasm), and onnxruntime when it loads, in the calling thread (`onnx`), in a
// worker thread (`onnxWorker`), both returning the legal actions' logits only (`predictLegal`, what the
// search asks for), and in the calling thread returning every logit (`onnxFullPolicy`, as before compact
// rows); every onnxruntime ratio divides by the best raw figure of its position through any of them
// (`rawInference` and `selfPlayInference` in each row say which ran).
//
// Run: npm run bench -- chess-selfplay   (or: node bench/suites/chess-selfplay.bench.mjs after a build)
// CHESS_BENCH_MOVES (default 12) sets the moves per measurement. CHESS_BENCH_NETWORK=none measures only the
// network-free run and writes no result file (for profiling: node --cpu-prof bench/suites/chess-selfplay.bench.mjs);
// CHESS_BENCH_NETWORK=onnx leaves out tfjs and writes no result file either.
import { PerformanceObserver } from 'node:perf_hooks';
import { resolveGameConfig } from '@az/core';
import { TfjsInferenceModel, buildModel, exportOnnx, initBackend, openInferenceEngine } from '@az/nn';
import { chessPlugin } from '@az/game-chess';
import { NetworkEvaluator } from '@az/mcts';
import { SelfPlay, createSelfPlayEngine, resolveTrainOptions } from '@az/trainer-multigpu';
import { timeIt, writeResult } from '@az/bench';

const MOVES = Number(process.env.CHESS_BENCH_MOVES ?? 12);
const WITHOUT_NETWORK_ONLY = process.env.CHESS_BENCH_NETWORK === 'none';
const ONNX_ONLY = process.env.CHESS_BENCH_NETWORK === 'onnx';
const MIDDLEGAME = 'r1bq1rk1/pp2bppp/2n1pn2/2pp4/2PP4/2N1PN2/PP2BPPP/R1BQ1RK1 w - - 0 8';
const backend = await initBackend('wasm');
const options = resolveTrainOptions({ game: 'chess', backend: 'wasm' }, chessPlugin);
const slots = Math.min(options.parallelGames, options.gamesPerIteration);

// Garbage collection on this (the search's) thread: the cost onnxruntime's output buffers add (issue 20).
// The observer is called later than the collections happen, so each run keeps its time window and the
// collections that started in it are counted once the bench is over (`countCollections`).
const collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push({ start: entry.startTime, ms: entry.duration });
}).observe({ entryTypes: ['gc'] });
const gcWindows = [];

/** Fills in `mainThreadGcMs` and `mainThreadGcCount` of every run, from the collections that began during it. */
async function countCollections() {
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const { start, end, row } of gcWindows) {
    const inside = collections.filter((c) => c.start >= start && c.start < end);
    row.mainThreadGcMs = Math.round(inside.reduce((sum, c) => sum + c.ms, 0));
    row.mainThreadGcCount = inside.length;
  }
}

/** A game whose rules and encoder calls add their time to `clock.ms` (same results, same objects underneath). */
function instrumented(game, clock) {
  const timed = (fn) =>
    function (...args) {
      const t = performance.now();
      try {
        return fn.apply(this, args);
      } finally {
        clock.ms += performance.now() - t;
        clock.calls++;
      }
    };
  const wrapped = Object.create(game);
  for (const name of ['initialState', 'currentPlayer', 'applyAction', 'isTerminal', 'returns', 'clone']) wrapped[name] = timed(game[name].bind(game));
  const masker = game.masker;
  const encoder = game.encoder;
  // legalActions too: without it the search falls back to scanning every mask (4,672 entries per leaf).
  Object.defineProperty(wrapped, 'masker', {
    value: { actionSize: masker.actionSize, fillMask: timed(masker.fillMask.bind(masker)), legalActions: timed(masker.legalActions.bind(masker)) },
  });
  Object.defineProperty(wrapped, 'encoder', {
    value: { version: encoder.version, shape: encoder.shape, size: encoder.size, encode: timed(encoder.encode.bind(encoder)) },
  });
  return wrapped;
}

/**
 * Answers at once: uniform priors, zero values; `needsInputs` so the search still encodes every leaf.
 * Like the network's evaluator it reads no masks (`needsMasks` false), so the search fills none.
 */
class InstantEvaluator {
  needsInputs = true;
  needsMasks = false;
  // Like the network's evaluator on onnxruntime, it writes the legal actions' logits only (compact rows).
  legalLogits = true;
  evaluate(batch) {
    const lists = batch.legalActions;
    if (lists) for (let i = 0; i < batch.count; i++) batch.policyLogits.fill(0, i * batch.actionSize, i * batch.actionSize + lists[i].length);
    else batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    batch.values.fill(0, 0, batch.count * batch.numSeats);
  }
}

/** The same network with only `predict`: every call returns all 4,672 logits a position (the search before compact rows). */
function fullPolicyOnly(inference) {
  return {
    config: inference.config,
    backendName: inference.backendName,
    describe: () => inference.describe(),
    fullPolicy: true,
    predict: (input, count, policy, value) => inference.predict(input, count, policy, value),
    dispose: () => {},
  };
}

/** Evaluator wrapper that adds the time spent in the network to `clock.ms`. */
function timedEvaluator(inner, clock) {
  return {
    needsInputs: inner.needsInputs,
    needsMasks: inner.needsMasks,
    get legalLogits() {
      return inner.legalLogits;
    },
    async evaluate(batch) {
      const t = performance.now();
      await inner.evaluate(batch);
      clock.ms += performance.now() - t;
    },
  };
}

/** `moves` moves of every slot of one self-play session. */
async function run(game, evaluator, moveCount = MOVES, instrument = true) {
  const rules = { ms: 0, calls: 0 };
  const network = { ms: 0 };
  const g = instrument ? instrumented(game, rules) : game;
  const engine = createSelfPlayEngine(g, { evaluator: timedEvaluator(evaluator, network) }, options, slots, 11);
  const selfPlay = new SelfPlay(g, engine, { temperatureMoves: options.temperatureMoves, seed: 5 });
  let moves = 0;
  let stats;
  const windowStart = performance.now();
  const cpuStart = process.cpuUsage();
  const t = await timeIt(async () => {
    stats = await selfPlay.play(Infinity, () => {}, undefined, () => moves >= moveCount, () => void moves++);
  }, 0);
  const cpu = process.cpuUsage(cpuStart);
  const result = {
    positionsPerSecond: +(stats.positions / stats.seconds).toFixed(1),
    evaluationsPerSecond: Math.round(stats.evaluations / stats.seconds),
    averageBatch: +stats.averageBatch.toFixed(1),
    positions: stats.positions,
    evaluations: stats.evaluations,
    seconds: +(t.ms / 1000).toFixed(2),
    ...(instrument
      ? {
          rulesAndEncodingShare: +(rules.ms / t.ms).toFixed(3),
          restShare: +(1 - (rules.ms + network.ms) / t.ms).toFixed(3),
          rulesMicrosPerEvaluation: +((rules.ms * 1000) / stats.evaluations).toFixed(1),
        }
      : {}),
    networkShare: +(network.ms / t.ms).toFixed(3),
    networkMicrosPerEvaluation: +((network.ms * 1000) / stats.evaluations).toFixed(1),
    totalMicrosPerEvaluation: +((t.ms * 1000) / stats.evaluations).toFixed(1),
    // CPU time of this process (all its threads) per evaluation: what the work costs, whatever else runs on the machine.
    cpuMicrosPerEvaluation: +((cpu.user + cpu.system) / stats.evaluations).toFixed(1),
  };
  gcWindows.push({ start: windowStart, end: performance.now(), row: result });
  return result;
}

/**
 * Evaluations per second of the network alone at `batch` positions a call (the bench's position, encoded
 * once and repeated), called the way self-play calls it: through `predictLegal` with the position's legal
 * actions as every row when the model has it (what the search asks for then), else `predict`.
 */
async function rawInference(game, inference, batch) {
  const size = game.encoder.size;
  const input = new Float32Array(batch * size);
  const state = game.initialState();
  game.encoder.encode(state, game.currentPlayer(state), input, 0);
  for (let i = 1; i < batch; i++) input.copyWithin(i * size, 0, size);
  const value = new Float32Array(batch * game.numPlayers);
  if (inference.predictLegal) {
    const legal = Int32Array.from(game.masker.legalActions(state));
    const width = legal.length;
    const actions = new Int32Array(batch * width);
    for (let i = 0; i < batch; i++) actions.set(legal, i * width);
    const policy = new Float32Array(batch * width);
    const t = await timeIt(() => inference.predictLegal(input, batch, actions, width, policy, value), 2000);
    return Math.round(t.perSecond * batch);
  }
  const policy = new Float32Array(batch * game.masker.actionSize);
  const t = await timeIt(() => inference.predict(input, batch, policy, value), 2000);
  return Math.round(t.perSecond * batch);
}

/** Which engine and thread ran the network, for the results file. */
function describe(inference) {
  const output = inference.predictLegal ? ', legal actions\' logits only' : inference.fullPolicy ? ', full policy output' : '';
  return `${inference.describe ? inference.describe() : inference.backendName}${output}`;
}

const networkConfig = (game) => ({ spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers });
const results = {};
for (const [label, fen] of [['start', ''], ['middlegame', MIDDLEGAME]]) {
  const game = chessPlugin.create(resolveGameConfig(chessPlugin, { ...options.gameConfig, fen }));
  const model = buildModel(networkConfig(game), { seed: 1 });
  const engines = WITHOUT_NETWORK_ONLY || ONNX_ONLY ? {} : { tfjs: new TfjsInferenceModel(model, networkConfig(game), { ownsModel: false }) };
  // onnxruntime twice: in the calling thread, and in a worker thread of its own (`onnxThread: 'worker'`).
  // Raw inference is always the plain in-thread call, what the goal compares self-play with.
  const rawEngines = {};
  if (!WITHOUT_NETWORK_ONLY) try {
    const graph = exportOnnx(model, networkConfig(game));
    engines.onnx = await openInferenceEngine(model, networkConfig(game), { engine: 'onnx', onnx: graph });
    engines.onnxWorker = await openInferenceEngine(model, networkConfig(game), { engine: 'onnx', onnx: graph, onnxThread: 'worker' });
    rawEngines.onnxWorker = engines.onnx;
    // The same session asked for every logit, as the search did before compact rows: the before/after of one run.
    engines.onnxFullPolicy = fullPolicyOnly(engines.onnx);
  } catch (err) {
    console.warn(`onnxruntime unavailable, measuring tfjs only: ${err.message}`);
  }
  if (label === 'start') await run(game, new InstantEvaluator(), 2); // warm-up: JIT, first allocations
  const fake = await run(game, new InstantEvaluator());
  // The same without the timers around every game call (they cost a few µs per evaluation themselves):
  // the best of three runs, since other processes on the machine only ever slow a run down.
  const plain = [];
  for (let i = 0; i < 3; i++) plain.push(await run(game, new InstantEvaluator(), MOVES, false));
  const best = plain.reduce((a, b) => (b.totalMicrosPerEvaluation < a.totalMicrosPerEvaluation ? b : a));
  const row = {
    withoutNetwork: fake,
    withoutNetworkUninstrumented: {
      bestMicrosPerEvaluation: best.totalMicrosPerEvaluation,
      bestEvaluationsPerSecond: best.evaluationsPerSecond,
      allMicrosPerEvaluation: plain.map((r) => r.totalMicrosPerEvaluation),
      cpuMicrosPerEvaluation: plain.map((r) => r.cpuMicrosPerEvaluation),
    },
  };
  for (const [name, inference] of Object.entries(engines)) {
    // Without the timers around every game call: they cost several µs per evaluation, which the raw
    // measurement below does not pay (rules and encoding shares come from the network-free runs above).
    const r = await run(game, new NetworkEvaluator(inference), MOVES, false);
    const gcWindow = gcWindows.at(-1);
    const rawModel = rawEngines[name] ?? inference;
    const raw = await rawInference(game, rawModel, Math.max(1, Math.round(r.averageBatch)));
    row[name] = {
      selfPlayInference: describe(inference),
      rawInference: describe(rawModel),
      ...r,
      nonNetworkShareFromFakeRun: +(fake.totalMicrosPerEvaluation / r.totalMicrosPerEvaluation).toFixed(3),
      rawInferenceEvalsPerSecondAtThatBatch: raw,
      selfPlayToRawRatio: +(r.evaluationsPerSecond / raw).toFixed(3),
    };
    // The worker path's own raw speed: what the hop and its copies cost against the in-thread call.
    if (rawModel !== inference) row[name].rawThroughSelfPlayPathEvalsPerSecond = await rawInference(game, inference, Math.max(1, Math.round(r.averageBatch)));
    gcWindow.row = row[name]; // its collections are counted into the row as written
  }
  // A raw figure measured right after a self-play run moves with what that run left behind: the in-thread
  // one came out lower after the worker-thread run (16,078 and 18,665 against 23,283 and 23,648 at the
  // start in two runs at load 4.8-5.4), and in the quiet 20:07 run even below raw inference through the
  // worker (31,281 against 38,532), which adds copies to the same call. So both onnxruntime rows divide by
  // the best raw figure of their position, through either path: the strictest comparison for each.
  const onnxRows = ['onnx', 'onnxWorker', 'onnxFullPolicy'].filter((k) => row[k]);
  const bestRaw = Math.max(
    ...onnxRows.map((k) => row[k].rawInferenceEvalsPerSecondAtThatBatch),
    ...onnxRows.map((k) => row[k].rawThroughSelfPlayPathEvalsPerSecond ?? 0),
  );
  for (const k of onnxRows) {
    row[k].rawInferenceEvalsPerSecondBestAtThisPosition = bestRaw;
    row[k].selfPlayToRawRatio = +(row[k].evaluationsPerSecond / bestRaw).toFixed(3);
  }
  for (const inference of Object.values(engines)) inference.dispose();
  model.dispose();
  results[label] = row;
}

await countCollections();
if (WITHOUT_NETWORK_ONLY || ONNX_ONLY) {
  console.log(JSON.stringify(results, null, 2));
  process.exit(0);
}
writeResult(
  'chess-selfplay',
  {
    game: 'chess',
    movesPerMeasurement: MOVES,
    slots,
    simulations: options.simulations,
    leavesPerTree: options.leavesPerTree,
    network: options.network,
    gameConfig: options.gameConfig,
    tfjsBackend: backend.name,
    // What `az train` runs chess self-play with: onnxruntime in the calling thread returning the legal
    // actions' logits only (the `onnx` rows); a game without legal-action lists and a full policy output of
    // 1 MB or more a call would get the worker thread instead.
    trainerSelfPlayRow: 'onnx',
    middlegameFen: MIDDLEGAME,
  },
  results,
);

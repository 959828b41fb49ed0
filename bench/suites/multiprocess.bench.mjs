// Self-play throughput with 1 and with 2 CPU self-play worker processes (the `az train --devices cpu:N`
// code path: LocalIpcTransport forking worker.js, games streamed back as bytes), same game and settings,
// in one run. Self-play only: no training runs, so the figure is what the workers deliver.
//
// Goal: 2 processes >= 1.8x one process on a 2-core machine. The machine is shared: the 1-minute load
// average is recorded before and after each measurement, since other work on the cores depresses the
// 2-process figure most (it needs both cores).
//
//   node bench/suites/multiprocess.bench.mjs [tictactoe|chess ...]
import os from 'node:os';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolveGameConfig } from '@az/core';
import { buildModel, initBackend, serializeWeights } from '@az/nn';
import { LocalIpcTransport, parseDeviceSpec, resolveTrainOptions } from '@az/trainer-multigpu';
import { timeIt, writeResult } from '@az/bench';

const only = process.argv.slice(2);
const load = () => os.loadavg().map((x) => +x.toFixed(2));

/**
 * CPU seconds (user + system) a process has used, from /proc (Linux; null elsewhere). With the machine
 * shared, CPU time per game is the load-independent figure: equal per-game cost with 1 and 2 processes
 * means the 2-process speed-up is bounded only by the cores the processes get.
 */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file (11 and 12 after the command), in clock ticks (100/s on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
const workersCpu = (transport) => {
  let total = 0;
  for (const w of transport.workers()) {
    const s = w.pid === null ? null : cpuSeconds(w.pid);
    if (s === null) return null;
    total += s;
  }
  return total;
};

/** The games measured: tic-tac-toe always; chess when @az/game-chess is built (another package, maybe in progress). */
async function games() {
  const out = [];
  const ttt = await import('@az/game-tictactoe');
  out.push({
    id: 'tictactoe',
    plugin: ttt.ticTacToePlugin,
    moduleUrl: import.meta.resolve('@az/game-tictactoe'),
    exportName: 'ticTacToePlugin',
    // The training defaults: the game's hints (mlp 64x64, 64 simulations) and 64 parallel games.
    input: { game: 'tictactoe' },
    warmupMs: 4000,
    measureMs: 15_000,
  });
  let chessUrl = null;
  try {
    chessUrl = import.meta.resolve('@az/game-chess');
  } catch {
    chessUrl = null;
  }
  if (chessUrl && existsSync(fileURLToPath(chessUrl))) {
    try {
      const chess = await import(chessUrl);
      if (chess.chessPlugin) {
        out.push({
          id: 'chess',
          plugin: chess.chessPlugin,
          moduleUrl: chessUrl,
          exportName: 'chessPlugin',
          // The game's training network with lighter search and 40-ply games, so a measurement window
          // holds several rounds of finished games on a CPU.
          input: { game: 'chess', gameConfig: { maxPlies: 40 }, simulations: 16, parallelGames: 16, leavesPerTree: 4, temperatureMoves: 8 },
          warmupMs: 10_000,
          measureMs: 60_000,
        });
      } else console.log('[bench multiprocess] @az/game-chess has no chessPlugin export: chess skipped');
    } catch (err) {
      console.log(`[bench multiprocess] @az/game-chess failed to load (${err.message}): chess skipped`);
    }
  } else {
    console.log('[bench multiprocess] @az/game-chess is not built: chess skipped');
  }
  return out.filter((g) => only.length === 0 || only.includes(g.id));
}

/** Starts `processes` workers, warms up, then counts games (and positions, evaluations) over a window. */
async function measure(g, processes) {
  const options = resolveTrainOptions(g.input, g.plugin);
  const gameConfig = resolveGameConfig(g.plugin, options.gameConfig);
  const game = g.plugin.create(gameConfig);
  const network = { spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };
  const model = buildModel(network, { seed: 1 });
  const weights = serializeWeights(model);
  model.dispose();
  const devices = parseDeviceSpec(`cpu:${processes}`);
  const transport = new LocalIpcTransport({
    slots: devices.map((device, id) => ({ id, device })),
    backendFor: () => 'wasm',
    heartbeatTimeoutMs: 120_000,
    seed: 1,
  });
  let games = 0;
  let positions = 0;
  let waiter = null;
  transport.onGame((incoming) => {
    games++;
    // Header word 1 of an encoded record is its length in positions (IPC buffers need not be 4-aligned).
    positions += new DataView(incoming.bytes.buffer, incoming.bytes.byteOffset, 8).getInt32(4, true);
    const w = waiter;
    waiter = null;
    w?.();
  });
  transport.onWorkerEvent((e) => {
    if (e.kind === 'fatal' || (e.kind === 'exited' && e.reason !== 'stopped')) console.log(`[bench multiprocess] worker event: ${JSON.stringify(e)}`);
  });
  const t0 = performance.now();
  await transport.start(
    { plugin: { moduleUrl: g.moduleUrl, exportName: g.exportName }, gameId: g.id, gameConfig, encoderVersion: game.encoder.version, network, weightSpecs: weights.specs, options },
    { version: 0, data: new Uint8Array(weights.data) },
  );
  const startupSeconds = (performance.now() - t0) / 1000;
  await new Promise((resolve) => setTimeout(resolve, g.warmupMs));
  const evals = () => transport.workers().reduce((s, w) => s + w.stats.evaluations, 0);
  const before = { games, positions, evaluations: evals(), load: load(), cpu: workersCpu(transport), trainerCpu: process.cpuUsage() };
  // timeIt paces the window: one call = wait for the next finished game, so the window ends on a game.
  // Rates come from the counters (games finishing in the same tick wake one call, so calls undercount).
  const timed = await timeIt(() => new Promise((resolve) => (waiter = resolve)), g.measureMs);
  const seconds = timed.ms / 1000;
  const after = { games, positions, evaluations: evals(), load: load(), cpu: workersCpu(transport), trainerCpu: process.cpuUsage(before.trainerCpu) };
  const workerCpu = before.cpu === null || after.cpu === null ? null : after.cpu - before.cpu;
  await transport.stop();
  return {
    processes,
    gamesPerSecond: +((after.games - before.games) / seconds).toFixed(3),
    positionsPerSecond: +((after.positions - before.positions) / seconds).toFixed(1),
    // From the workers' heartbeats (cumulative counters; sampled, so slightly behind the games).
    evaluationsPerSecond: Math.round((after.evaluations - before.evaluations) / seconds),
    games: after.games - before.games,
    seconds: +seconds.toFixed(1),
    startupSeconds: +startupSeconds.toFixed(1),
    // CPU the workers actually got during the window (cores' worth) and what one game cost them.
    workerCoresUsed: workerCpu === null ? null : +(workerCpu / seconds).toFixed(2),
    workerCpuMsPerGame: workerCpu === null ? null : +((1000 * workerCpu) / Math.max(1, after.games - before.games)).toFixed(2),
    // This (receiving) process's CPU share: the cost of taking in the games.
    receiverCoresUsed: +((after.trainerCpu.user + after.trainerCpu.system) / 1e6 / seconds).toFixed(3),
    loadavgBefore: before.load,
    loadavgAfter: after.load,
  };
}

await initBackend('cpu'); // the bench process only builds the initial weights
const config = {
  transport: 'LocalIpcTransport (child_process.fork, serialization advanced), one message per search step',
  // Workers initialise tfjs on wasm (it holds the weights) and search with each game's inferenceBackend
  // (default 'auto': onnxruntime, one thread per worker, when it loads).
  workerTfjsBackend: 'wasm',
  cpus: os.cpus().length, goal: 'ratio >= 1.8', games: {} };
const results = { loadavgAtStart: load() };
for (const g of await games()) {
  const options = resolveTrainOptions(g.input, g.plugin);
  config.games[g.id] = {
    network: options.network,
    simulations: options.simulations,
    parallelGamesPerProcess: options.parallelGames,
    leavesPerTree: options.leavesPerTree,
    inferenceBackend: options.inferenceBackend,
    gameConfig: g.input.gameConfig ?? {},
    warmupSeconds: g.warmupMs / 1000,
    measureSeconds: g.measureMs / 1000,
  };
  const one = await measure(g, 1);
  console.log(`[bench multiprocess] ${g.id} 1 process: ${one.gamesPerSecond} games/s, ${one.positionsPerSecond} positions/s (load ${one.loadavgAfter[0]})`);
  const two = await measure(g, 2);
  console.log(`[bench multiprocess] ${g.id} 2 processes: ${two.gamesPerSecond} games/s, ${two.positionsPerSecond} positions/s (load ${two.loadavgAfter[0]})`);
  results[g.id] = {
    oneProcess: one,
    twoProcesses: two,
    ratioGames: +(two.gamesPerSecond / one.gamesPerSecond).toFixed(2),
    ratioPositions: +(two.positionsPerSecond / one.positionsPerSecond).toFixed(2),
    ratioEvaluations: +(two.evaluationsPerSecond / Math.max(1, one.evaluationsPerSecond)).toFixed(2),
    // Games per worker-CPU-second, 2 processes over 1: ~1.0 means no parallel overhead, so the speed-up
    // on 2 free cores would be ~2x whatever the shared machine allowed during this run.
    cpuEfficiencyRatio: one.workerCpuMsPerGame && two.workerCpuMsPerGame ? +(one.workerCpuMsPerGame / two.workerCpuMsPerGame).toFixed(2) : null,
  };
}
results.loadavgAtEnd = load();
writeResult('multiprocess', config, results);

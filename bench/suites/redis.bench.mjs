// Self-play over Redis against the same self-play over local IPC, and what one learner can take in.
//
// 1. Throughput: 2 CPU worker processes over local IPC (LocalIpcTransport, as `az train --devices cpu:2`)
//    vs the same 2 behind `az worker --devices cpu:2` feeding a RedisTransport through a private
//    redis-server on loopback. Self-play only (no training), tic-tac-toe and chess. Goal: ratio >= 0.95,
//    judged on the median of paired, alternating rounds (BENCH_PAIRS, default 4) with the same seeds.
// 2. Ingest capacity: simulated workers (processes XADDing recorded games as fast as Redis takes them)
//    against one RedisTransport whose games are decoded and added to a replay buffer, as the learner does:
//    games/s accepted, and Redis memory per 1,000 games in the stream.
//
// The machine is shared: load averages are recorded around every measurement.
//
//   node bench/suites/redis.bench.mjs [tictactoe|chess ...]
import os from 'node:os';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { resolveGameConfig } from '@az/core';
import { RedisServerProcess, realComponent } from '@az/test-harness';
import { buildModel, initBackend, serializeWeights } from '@az/nn';
import { LocalIpcTransport, RedisTransport, ReplayBuffer, RunSigner, decodeGameRecord, entryFields, groupIntoEntries, parseDeviceSpec, parseRedisUrl, resolveTrainOptions } from '@az/trainer-multigpu';
import { writeResult } from '@az/bench';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'apps', 'cli', 'dist', 'main.js');
const only = process.argv.slice(2);
const load = () => os.loadavg().map((x) => +x.toFixed(2));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// The run key the learner, `az worker` and the simulated senders share (entries and weights are signed with it).
const BENCH_RUN_KEY = 'redis-bench-run-key-'.padEnd(48, '0');
const runKey = { secret: Buffer.from(BENCH_RUN_KEY), source: 'the benchmark' };
const keyEnv = { ...process.env, AZ_RUN_KEY: BENCH_RUN_KEY };

const redisServer = realComponent('redis-server', { install: 'apt-get install redis-server', suite: 'the Redis benchmark' });
if (!redisServer.path) process.exit(0);
if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build first`);

async function games() {
  const out = [];
  const ttt = await import('@az/game-tictactoe');
  out.push({ id: 'tictactoe', plugin: ttt.ticTacToePlugin, packageName: '@az/game-tictactoe', moduleUrl: import.meta.resolve('@az/game-tictactoe'), exportName: 'ticTacToePlugin', input: { game: 'tictactoe' }, warmupMs: 5000, measureMs: 20_000 });
  const chessUrl = import.meta.resolve('@az/game-chess');
  if (existsSync(fileURLToPath(chessUrl))) {
    const chess = await import(chessUrl);
    // As multiprocess.bench.mjs: the training network, lighter search, 40-ply games.
    out.push({ id: 'chess', plugin: chess.chessPlugin, packageName: '@az/game-chess', moduleUrl: chessUrl, exportName: 'chessPlugin', input: { game: 'chess', gameConfig: { maxPlies: 40 }, simulations: 16, parallelGames: 16, leavesPerTree: 4, temperatureMoves: 8 }, warmupMs: 10_000, measureMs: 40_000 });
  }
  return out.filter((g) => only.length === 0 || only.includes(g.id));
}

function setupFor(g) {
  const options = resolveTrainOptions(g.input, g.plugin);
  const gameConfig = resolveGameConfig(g.plugin, options.gameConfig);
  const game = g.plugin.create(gameConfig);
  const network = { spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };
  const model = buildModel(network, { seed: 1 });
  const weights = serializeWeights(model);
  model.dispose();
  const setup = { plugin: { moduleUrl: g.moduleUrl, exportName: g.exportName }, gameId: g.id, gameConfig, encoderVersion: game.encoder.version, network, weightSpecs: weights.specs, options };
  return { setup, weights: { version: 0, data: new Uint8Array(weights.data) }, game, options };
}

/** CPU seconds (user + system) a process has used so far, from /proc (undefined where there is none). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    // utime and stime, in clock ticks of 1/100 s (Linux's USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Watches games arriving at `transport` and, after a warm-up, measures a window. Chess games finish in
 * bursts (a process's lock-step games end together), so counting games inside a fixed window is off by
 * up to a burst at each edge. The rate here runs from the first arrival in the window to the last: the
 * games after the first delivery, over that span. Evaluations/s (from the
 * workers' own counters) is a second, smooth measure of the same work.
 */
async function window(transport, g, keep) {
  const arrivals = [];
  const kept = [];
  let recording = false;
  transport.onGame((incoming) => {
    if (recording) arrivals.push(performance.now());
    if (kept.length < keep) kept.push(new Uint8Array(incoming.bytes));
  });
  const evaluations = () => transport.workers().reduce((sum, w) => sum + (w.stats?.evaluations ?? 0), 0);
  return {
    kept,
    async measure(pids) {
      await sleep(g.warmupMs);
      const before = { load: load(), cpu: process.cpuUsage(), evaluations: evaluations(), pidCpu: pids.map((p) => cpuSeconds(p.pid)) };
      recording = true;
      const t0 = performance.now();
      await sleep(g.measureMs);
      recording = false;
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(before.cpu);
      const cpuUsed = (cpu.user + cpu.system) / 1e6;
      const evaluationsDone = evaluations() - before.evaluations;
      const others = pids.map((p, i) => [p.name, (cpuSeconds(p.pid) ?? NaN) - (before.pidCpu[i] ?? NaN)]);
      // From the first arrival (with the games delivered together with it) to the last one.
      const first = arrivals[0];
      const withFirst = arrivals.filter((t) => t - first < 10).length;
      const span = (arrivals.at(-1) - first) / 1000;
      return {
        gamesPerSecond: +((arrivals.length - withFirst) / span).toFixed(3),
        gamesInWindowPerSecond: +(arrivals.length / seconds).toFixed(3),
        evaluationsPerSecond: Math.round(evaluationsDone / seconds),
        games: arrivals.length,
        spanSeconds: +span.toFixed(2),
        seconds: +seconds.toFixed(1),
        receiverCoresUsed: +((cpu.user + cpu.system) / 1e6 / seconds).toFixed(3),
        otherProcessCoresUsed: Object.fromEntries(others.map(([name, used]) => [name, +(used / seconds).toFixed(3)])),
        // The same games on both sides (same seeds), so evaluations per CPU-second of every process involved
        // compares the work each side needs; unlike the rates above, it barely moves with the machine's load.
        evaluationsPerCoreSecond: Math.round(evaluationsDone / (cpuUsed + others.reduce((sum, [, used]) => sum + used, 0))),
        loadavgBefore: before.load,
        loadavgAfter: load(),
      };
    },
  };
}

/** The seed `az worker --seed 0` gives its processes in a fresh run (agent serial 1, epoch 1): both sides then play the same games. */
const WORKER_SEED = (0 * 7919 + 1 * 104_729 + 1) >>> 0;

async function measureIpc(g) {
  const { setup, weights } = setupFor(g);
  const transport = new LocalIpcTransport({ slots: parseDeviceSpec('cpu:2').map((device, id) => ({ id, device })), backendFor: () => 'wasm', heartbeatTimeoutMs: 120_000, seed: WORKER_SEED });
  const w = await window(transport, g, 0);
  const pids = [];
  transport.onWorkerEvent((e) => e.kind === 'ready' && pids.push({ name: `selfplay-${e.workerId}`, pid: e.pid }));
  await transport.start(setup, weights);
  const r = await w.measure(pids);
  await transport.stop();
  return r;
}

let redisRound = 0;
async function measureRedis(g, server) {
  const { setup, weights } = setupFor(g);
  // A fresh run per round: the worker agent is its first (serial 1), so its processes get WORKER_SEED.
  const run = `bench-${g.id}-${redisRound++}`;
  const endpoint = parseRedisUrl(server.url());
  const transport = new RedisTransport({ endpoint, run, plugin: { packageName: g.packageName, version: '0.1.0', exportName: g.exportName }, runKey, heartbeatTimeoutMs: 120_000 });
  const w = await window(transport, g, 400);
  await transport.start(setup, weights);
  // The same two processes, behind `az worker` (its own process, as on another machine).
  const worker = spawn(process.execPath, [cli, 'worker', '--connect', server.url(), '--run', run, '--devices', 'cpu:2', '--name', 'bench', '--seed', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: keyEnv });
  const pids = [{ name: 'az-worker', pid: worker.pid }, { name: 'redis-server', pid: server.pid }];
  let ready = 0;
  await new Promise((resolve, reject) => {
    worker.stderr.on('data', (c) => {
      for (const m of c.toString().matchAll(/worker (\d+) \(cpu:\d+\) ready: pid (\d+)/g)) {
        pids.push({ name: `selfplay-${m[1]}`, pid: Number(m[2]) });
        ready++;
      }
      if (ready >= 2) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`az worker exited (${code})`)));
  });
  // Acknowledge and trim as the learner does after each checkpoint, so the stream stays short.
  const acker = setInterval(() => {
    transport.checkpointState();
    void transport.checkpointed();
  }, 2000);
  const r = await w.measure(pids);
  clearInterval(acker);
  worker.kill('SIGTERM');
  await new Promise((resolve) => worker.once('exit', resolve));
  await transport.stop();
  await transport.close();
  return { result: r, records: w.kept };
}

/** Simulated senders against one RedisTransport that decodes each game and adds it to a replay buffer. */
async function ingest(g, server, records, senders) {
  const { setup, weights, game } = setupFor(g);
  const run = `ingest-${g.id}-${senders}`;
  const dir = mkdtempSync(join(tmpdir(), 'az-redis-bench-'));
  const file = join(dir, 'records.bin');
  const parts = [];
  for (const bytes of records) {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(bytes.byteLength, 0);
    head.writeUInt32LE(new DataView(bytes.buffer, bytes.byteOffset, 24).getInt32(20, true), 4);
    parts.push(head, Buffer.from(bytes));
  }
  writeFileSync(file, Buffer.concat(parts));
  const transport = new RedisTransport({ endpoint: parseRedisUrl(server.url()), run, plugin: { packageName: g.packageName, version: '0.1.0', exportName: g.exportName }, runKey, heartbeatTimeoutMs: 120_000 });
  const replay = new ReplayBuffer(200_000, { inputSize: game.encoder.size, actionSize: game.masker.actionSize, numSeats: game.numPlayers, policyWidth: 256 });
  let accepted = 0;
  let invalid = 0;
  transport.onGame((incoming) => {
    replay.addGame(decodeGameRecord(incoming.bytes));
    accepted++;
  });
  transport.onWorkerEvent((e) => {
    if (e.kind === 'dropped') invalid++;
  });
  await transport.start(setup, weights);
  const seconds = 15;
  const procs = Array.from({ length: senders }, (_, i) =>
    spawn(process.execPath, [join(root, 'bench', 'suites', 'redis-sender.mjs'), server.url(), run, file, String(i), String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...keyEnv, BENCH_GAME: g.id } }),
  );
  const sentBy = procs.map((p) => new Promise((resolve) => {
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.once('exit', () => resolve(Number(/sent (\d+)/.exec(out)?.[1] ?? 0)));
  }));
  const acker = setInterval(() => {
    transport.checkpointState();
    void transport.checkpointed();
  }, 1000);
  const loadBefore = load();
  await sleep(3000); // senders start up and the stream fills
  const a0 = accepted;
  const t0 = performance.now();
  await sleep((seconds - 5) * 1000);
  const rate = (accepted - a0) / ((performance.now() - t0) / 1000);
  const sent = (await Promise.all(sentBy)).reduce((a, b) => a + b, 0);
  clearInterval(acker);
  const client = new Redis(server.url(), { protocol: 2 });
  const backlog = await client.xlen(`az:{${run}}:games`);
  client.disconnect();
  await transport.stop();
  await transport.close();
  rmSync(dir, { recursive: true, force: true });
  return { senders, acceptedGamesPerSecond: Math.round(rate), sentGamesPerSecond: Math.round(sent / seconds), streamLengthAtEnd: backlog, invalid, loadavgBefore: loadBefore, loadavgAfter: load() };
}

/** Redis memory (INFO used_memory) for 1,000 recorded games in a fresh stream. */
async function memoryPer1000(g, server, records) {
  const client = new Redis(server.url(), { protocol: 2 });
  const key = `az:{mem-${g.id}}:games`;
  const used = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))[1]);
  const before = await used();
  const p = client.pipeline();
  let bytes = 0;
  const games = [];
  for (let i = 0; i < 1000; i++) {
    const r = records[i % records.length];
    bytes += r.byteLength;
    games.push({ workerId: 0, incarnation: 0, seq: i, version: 0, bytes: r });
  }
  // Grouped into entries as `az worker` sends them.
  const entries = groupIntoEntries(games);
  for (const entry of entries) p.xadd(key, '*', ...entryFields(new RunSigner(runKey.secret, `mem-${g.id}`), 'mem#0.00/0', 'cpu:0', 0, g.id, entry));
  await p.exec();
  const after = await used();
  const keyUsage = Number(await client.call('MEMORY', 'USAGE', key));
  await client.del(key);
  client.disconnect();
  return { redisUsedMemoryBytes: after - before, memoryUsageOfKeyBytes: keyUsage, gameRecordBytes: bytes, meanRecordBytes: Math.round(bytes / 1000), streamEntries: entries.length };
}

await initBackend('cpu');
const server = await RedisServerProcess.start({ executable: redisServer.path });
const config = { cpus: os.cpus().length, redis: 'redis-server on 127.0.0.1 (private, no persistence)', workers: '2 CPU processes (wasm tfjs, onnx search), the same seeds on both sides', goal: 'median over paired rounds of redis/ipc games/s >= 0.95', pairs: Number(process.env.BENCH_PAIRS ?? 4), games: {} };
const results = { loadavgAtStart: load() };
try {
  for (const g of await games()) {
    const { options } = setupFor(g);
    config.games[g.id] = { network: options.network, simulations: options.simulations, parallelGamesPerProcess: options.parallelGames, gameConfig: g.input.gameConfig ?? {}, warmupSeconds: g.warmupMs / 1000, measureSeconds: g.measureMs / 1000 };
    // Paired rounds, the order alternating (IPC then Redis, then Redis then IPC, ...): on a shared machine
    // the load drifts, and a pair's two halves see nearly the same load. The goal is judged on the median
    // of the per-pair ratios, which one disturbed round cannot move much.
    const pairs = Number(process.env.BENCH_PAIRS ?? 4);
    const ipcRuns = [];
    const redisRuns = [];
    const pairRatios = [];
    const pairEvaluationRatios = [];
    const pairEfficiencyRatios = [];
    let records = [];
    for (let pair = 0; pair < pairs; pair++) {
      let ipc;
      let redis;
      for (const side of pair % 2 === 0 ? ['ipc', 'redis'] : ['redis', 'ipc']) {
        if (side === 'ipc') {
          ipc = await measureIpc(g);
          console.log(`[bench redis] ${g.id} pair ${pair} local IPC: ${ipc.gamesPerSecond} games/s, ${ipc.evaluationsPerSecond} evals/s, ${ipc.evaluationsPerCoreSecond} evals/core-s (load ${ipc.loadavgAfter[0]}; cores ${JSON.stringify(ipc.otherProcessCoresUsed)}, receiver ${ipc.receiverCoresUsed})`);
        } else {
          const measured = await measureRedis(g, server);
          redis = measured.result;
          records = measured.records;
          console.log(`[bench redis] ${g.id} pair ${pair} Redis: ${redis.gamesPerSecond} games/s, ${redis.evaluationsPerSecond} evals/s, ${redis.evaluationsPerCoreSecond} evals/core-s (load ${redis.loadavgAfter[0]}; cores ${JSON.stringify(redis.otherProcessCoresUsed)}, receiver ${redis.receiverCoresUsed})`);
        }
      }
      ipcRuns.push(ipc);
      redisRuns.push(redis);
      pairRatios.push(+(redis.gamesPerSecond / ipc.gamesPerSecond).toFixed(3));
      pairEvaluationRatios.push(+(redis.evaluationsPerSecond / ipc.evaluationsPerSecond).toFixed(3));
      pairEfficiencyRatios.push(+(redis.evaluationsPerCoreSecond / ipc.evaluationsPerCoreSecond).toFixed(3));
    }
    const median = (xs) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2] : +((v[v.length / 2 - 1] + v[v.length / 2]) / 2).toFixed(3);
    };
    const mean = (runs, field) => +(runs.reduce((s, r) => s + r[field], 0) / runs.length).toFixed(3);
    console.log(`[bench redis] ${g.id} Redis/IPC per pair: ${pairRatios.join(', ')} (median ${median(pairRatios)}); evaluations ${pairEvaluationRatios.join(', ')} (median ${median(pairEvaluationRatios)}); per core-second ${pairEfficiencyRatios.join(', ')} (median ${median(pairEfficiencyRatios)})`);
    const memory = await memoryPer1000(g, server, records);
    const ingest1 = await ingest(g, server, records, 2);
    console.log(`[bench redis] ${g.id} ingest with 2 senders: ${ingest1.acceptedGamesPerSecond} games/s accepted`);
    results[g.id] = {
      localIpc: ipcRuns,
      redis: redisRuns,
      pairRatiosGames: pairRatios,
      pairRatiosEvaluations: pairEvaluationRatios,
      ratioGames: median(pairRatios),
      ratioEvaluations: median(pairEvaluationRatios),
      pairRatiosEvaluationsPerCoreSecond: pairEfficiencyRatios,
      ratioEvaluationsPerCoreSecond: median(pairEfficiencyRatios),
      localIpcGamesPerSecond: mean(ipcRuns, 'gamesPerSecond'),
      redisGamesPerSecond: mean(redisRuns, 'gamesPerSecond'),
      ingest: ingest1,
      memoryPer1000Games: memory,
    };
  }
} finally {
  await server.dispose();
}
results.loadavgAtEnd = load();
writeResult('redis', config, results);

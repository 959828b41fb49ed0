// Self-play over Redis against the same self-play over local IPC, and what one learner can take in.
//
// 1. Throughput: 2 CPU worker processes over local IPC (LocalIpcTransport, as `az train --devices cpu:2`)
//    vs the same 2 behind `az worker --devices cpu:2` feeding a RedisTransport through a private
//    redis-server on loopback. Self-play only (no training), tic-tac-toe and chess. Goal: ratio >= 0.95.
// 2. Ingest capacity: simulated workers (processes XADDing recorded games as fast as Redis takes them)
//    against one RedisTransport whose games are decoded and added to a replay buffer, as the learner does:
//    games/s accepted, and Redis memory per 1,000 games in the stream.
//
// The machine is shared: load averages are recorded around every measurement.
//
//   node bench/suites/redis.bench.mjs [tictactoe|chess ...]
import os from 'node:os';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { resolveGameConfig } from '@az/core';
import { RedisServerProcess, realComponent } from '@az/core/testkit';
import { buildModel, initBackend, serializeWeights } from '@az/nn';
import { LocalIpcTransport, RedisTransport, ReplayBuffer, decodeGameRecord, parseDeviceSpec, parseRedisUrl, resolveTrainOptions } from '@az/trainer-multigpu';
import { writeResult } from '@az/bench';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'apps', 'cli', 'dist', 'main.js');
const only = process.argv.slice(2);
const load = () => os.loadavg().map((x) => +x.toFixed(2));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
    out.push({ id: 'chess', plugin: chess.chessPlugin, packageName: '@az/game-chess', moduleUrl: chessUrl, exportName: 'chessPlugin', input: { game: 'chess', gameConfig: { maxPlies: 40 }, simulations: 16, parallelGames: 16, leavesPerTree: 4, temperatureMoves: 8 }, warmupMs: 10_000, measureMs: 45_000 });
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

/** Counts games arriving at `transport` over a window after a warm-up; keeps up to `keep` records. */
async function window(transport, g, keep) {
  let games = 0;
  let positions = 0;
  const kept = [];
  transport.onGame((incoming) => {
    games++;
    positions += new DataView(incoming.bytes.buffer, incoming.bytes.byteOffset, 8).getInt32(4, true);
    if (kept.length < keep) kept.push(new Uint8Array(incoming.bytes));
  });
  return {
    kept,
    async measure() {
      await sleep(g.warmupMs);
      const before = { games, positions, load: load(), cpu: process.cpuUsage() };
      const t0 = performance.now();
      await sleep(g.measureMs);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(before.cpu);
      return {
        gamesPerSecond: +((games - before.games) / seconds).toFixed(3),
        positionsPerSecond: +((positions - before.positions) / seconds).toFixed(1),
        games: games - before.games,
        seconds: +seconds.toFixed(1),
        receiverCoresUsed: +((cpu.user + cpu.system) / 1e6 / seconds).toFixed(3),
        loadavgBefore: before.load,
        loadavgAfter: load(),
      };
    },
  };
}

async function measureIpc(g) {
  const { setup, weights } = setupFor(g);
  const transport = new LocalIpcTransport({ slots: parseDeviceSpec('cpu:2').map((device, id) => ({ id, device })), backendFor: () => 'wasm', heartbeatTimeoutMs: 120_000, seed: 1 });
  const w = await window(transport, g, 0);
  await transport.start(setup, weights);
  const r = await w.measure();
  await transport.stop();
  return r;
}

async function measureRedis(g, server) {
  const { setup, weights } = setupFor(g);
  const run = `bench-${g.id}`;
  const endpoint = parseRedisUrl(server.url());
  const transport = new RedisTransport({ endpoint, run, plugin: { packageName: g.packageName, version: '0.1.0', exportName: g.exportName }, heartbeatTimeoutMs: 120_000 });
  const w = await window(transport, g, 400);
  await transport.start(setup, weights);
  // The same two processes, behind `az worker` (its own process, as on another machine).
  const worker = spawn(process.execPath, [cli, 'worker', '--connect', server.url(), '--run', run, '--devices', 'cpu:2', '--name', 'bench'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let ready = 0;
  await new Promise((resolve, reject) => {
    worker.stderr.on('data', (c) => {
      ready += (c.toString().match(/ready: pid/g) ?? []).length;
      if (ready >= 2) resolve();
    });
    worker.once('exit', (code) => reject(new Error(`az worker exited (${code})`)));
  });
  // Acknowledge and trim as the learner does after each checkpoint, so the stream stays short.
  const acker = setInterval(() => {
    transport.checkpointState();
    void transport.checkpointed();
  }, 2000);
  const r = await w.measure();
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
  const transport = new RedisTransport({ endpoint: parseRedisUrl(server.url()), run, plugin: { packageName: g.packageName, version: '0.1.0', exportName: g.exportName }, heartbeatTimeoutMs: 120_000 });
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
    spawn(process.execPath, [join(root, 'bench', 'suites', 'redis-sender.mjs'), server.url(), run, file, String(i), String(seconds)], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_GAME: g.id } }),
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
  for (let i = 0; i < 1000; i++) {
    const r = records[i % records.length];
    bytes += r.byteLength;
    p.xadd(key, '*', 'w', 'mem#0.00/0', 'd', 'cpu:0', 'i', '0', 's', String(i), 'v', '0', 'g', g.id, 'b', Buffer.from(r));
  }
  await p.exec();
  const after = await used();
  const keyUsage = Number(await client.call('MEMORY', 'USAGE', key));
  await client.del(key);
  client.disconnect();
  return { redisUsedMemoryBytes: after - before, memoryUsageOfKeyBytes: keyUsage, gameRecordBytes: bytes, meanRecordBytes: Math.round(bytes / 1000) };
}

await initBackend('cpu');
const server = await RedisServerProcess.start({ executable: redisServer.path });
const config = { cpus: os.cpus().length, redis: 'redis-server on 127.0.0.1 (private, no persistence)', workers: '2 CPU processes (wasm tfjs, onnx search)', goal: 'redis/ipc >= 0.95', games: {} };
const results = { loadavgAtStart: load() };
try {
  for (const g of await games()) {
    const { options } = setupFor(g);
    config.games[g.id] = { network: options.network, simulations: options.simulations, parallelGamesPerProcess: options.parallelGames, gameConfig: g.input.gameConfig ?? {}, warmupSeconds: g.warmupMs / 1000, measureSeconds: g.measureMs / 1000 };
    // Alternating rounds (IPC, Redis, IPC, Redis...): on a shared machine the load drifts, and alternating
    // spreads the drift over both sides.
    const rounds = g.id === 'tictactoe' ? 2 : 1;
    const ipcRuns = [];
    const redisRuns = [];
    let records = [];
    for (let round = 0; round < rounds; round++) {
      const ipc = await measureIpc(g);
      ipcRuns.push(ipc);
      console.log(`[bench redis] ${g.id} local IPC: ${ipc.gamesPerSecond} games/s (load ${ipc.loadavgAfter[0]})`);
      const measured = await measureRedis(g, server);
      redisRuns.push(measured.result);
      records = measured.records;
      console.log(`[bench redis] ${g.id} Redis: ${measured.result.gamesPerSecond} games/s (load ${measured.result.loadavgAfter[0]})`);
    }
    const mean = (runs) => +(runs.reduce((s, r) => s + r.gamesPerSecond, 0) / runs.length).toFixed(3);
    const memory = await memoryPer1000(g, server, records);
    const ingest1 = await ingest(g, server, records, 2);
    console.log(`[bench redis] ${g.id} ingest with 2 senders: ${ingest1.acceptedGamesPerSecond} games/s accepted`);
    results[g.id] = {
      localIpc: ipcRuns,
      redis: redisRuns,
      localIpcGamesPerSecond: mean(ipcRuns),
      redisGamesPerSecond: mean(redisRuns),
      ratioGames: +(mean(redisRuns) / mean(ipcRuns)).toFixed(3),
      ingest: ingest1,
      memoryPer1000Games: memory,
    };
  }
} finally {
  await server.dispose();
}
results.loadavgAtEnd = load();
writeResult('redis', config, results);

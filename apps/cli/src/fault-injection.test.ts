// Fault injection: the trainer (the built `az train`) is SIGKILLed at every file-system step of a
// checkpoint write, NaNs are injected into weights, replay and gradients, and every checkpoint file (and
// replay segment) gets a flipped byte or is truncated. After each fault, what `az train --resume` and
// `az play`/`az eval` do to load a run (runTraining with resume, and loadModel, in this process) must
// either continue from the last good checkpoint, with one metrics.jsonl line per iteration, or stop with
// an error naming the damaged file. The steps to kill at are read from the trainer's own trace
// (AZ_FAULT_TRACE), so a new step is covered without editing this list. The counts are printed at the end; "runs lost" must be 0.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { CheckpointError, listCheckpoints, readCheckpointManifest, sha256 } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import {
  RedisWorkerAgent,
  RunSigner,
  TrainingDivergedError,
  encodeGameRecord,
  entryFields,
  parseDeviceSpec,
  parseRedisUrl,
  runMultiProcessTraining,
  runTraining,
  SelfPlay,
  type GameRecord,
  type MultiProcessOptions,
  type RunKey,
  type TrainOptionsInput,
  type WorkerEvent,
} from '@az/trainer-multigpu';
import { RedisServerProcess, realComponent } from '@az/test-harness';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import type { TicTacToeState } from '@az/game-tictactoe';
import { Redis } from 'ioredis';
import { loadModel } from './agents.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-faults-'));
const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const plugin = registry.resolve('tictactoe');
// A ring smaller than two iterations' positions, and --keep 1, so saves also drop segments and checkpoints.
const tiny: TrainOptionsInput = {
  game: 'tictactoe',
  network: { kind: 'mlp', hidden: [8] },
  gamesPerIteration: 4,
  parallelGames: 4,
  simulations: 4,
  leavesPerTree: 2,
  trainingSteps: 2,
  batchSize: 8,
  evalGames: 0,
  replayCapacity: 20,
  keepCheckpoints: 1,
  backend: 'cpu',
  inferenceBackend: 'tfjs',
  seed: 9,
};
const base = join(work, 'base');
const counts = { faults: 0, recovered: 0, stoppedNamingFile: 0, lost: 0 };
let copies = 0;

afterAll(() => {
  console.log(`fault injection: ${counts.faults} faults injected, ${counts.recovered} runs recovered, ${counts.stoppedNamingFile} stopped naming the damaged file, ${counts.lost} runs lost`);
  rmSync(work, { recursive: true, force: true });
});

function copyOfBase(): string {
  const dir = join(work, `run-${++copies}`);
  cpSync(base, dir, { recursive: true });
  return dir;
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => null, (e: unknown) => e);
}

/** What `az play --model dir` / `az eval --a dir` do to load it; checks the network answers with finite numbers. */
async function playLoads(dir: string): Promise<void> {
  const model = await loadModel(plugin, dir, { backend: 'auto', threads: 1, log: () => undefined });
  try {
    const policy = new Float32Array(9);
    const value = new Float32Array(2);
    await model.evaluator.model.predict(new Float32Array(27).fill(0.5), 1, policy, value);
    expect([...policy, ...value].every(Number.isFinite)).toBe(true);
  } finally {
    model.dispose();
  }
}

/** After a fault the run must continue from its newest complete checkpoint, to the end. */
async function expectRecovers(dir: string, label: string): Promise<void> {
  await countingLoss(() => recovers(dir, label));
  counts.recovered++;
}

/** A check that fails means a run was lost (or a wrong model accepted): counted, then reported by the test. */
async function countingLoss(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    counts.lost++;
    throw err;
  }
}

async function recovers(dir: string, label: string): Promise<void> {
  const newest = listCheckpoints(dir).at(-1);
  expect(newest, `${label}: a complete checkpoint remains`).toBeDefined();
  const before = (await readCheckpointManifest(newest?.dir ?? '')).iteration;
  expect([1, 2], label).toContain(before);
  await playLoads(dir);
  const summary = await runTraining({ game: 'tictactoe', resume: dir, iterations: 3 }, { registry });
  expect(summary.iterations, label).toBe(3);
  const iterations = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { iteration: number }).iteration);
  expect(iterations, `${label}: metrics.jsonl has one line per iteration, in order`).toEqual([1, 2, 3]);
  await playLoads(dir);
}

/** After damage to `file`, resume and (unless only the replay is hit) play must stop naming it. */
async function expectStopsNaming(dir: string, file: string, label: string, playReadsIt: boolean): Promise<void> {
  await countingLoss(() => stopsNaming(dir, file, label, playReadsIt));
  counts.stoppedNamingFile++;
}

async function stopsNaming(dir: string, file: string, label: string, playReadsIt: boolean): Promise<void> {
  const resume = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
  expect(resume, `${label}: resume`).toBeInstanceOf(CheckpointError);
  expect((resume as Error).message, `${label}: resume names the file`).toContain(file);
  if (playReadsIt) {
    const play = await errorOf(playLoads(dir));
    expect(play, `${label}: play`).toBeInstanceOf(CheckpointError);
    expect((play as Error).message, `${label}: play names the file`).toContain(file);
  } else {
    await playLoads(dir); // the model itself is intact
  }
}

/** Signs a checkpoint's manifest again after `files` changed, as a buggy writer (not a bit flip) would. */
function resign(checkpointDir: string, files: string[]): void {
  const path = join(checkpointDir, 'manifest.json');
  const { checksum: _old, ...m } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { files: Record<string, unknown> };
  for (const f of files) {
    const bytes = readFileSync(join(checkpointDir, f));
    m.files[f] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  writeFileSync(path, JSON.stringify({ ...m, checksum: sha256(JSON.stringify(m)) }));
}

describe('fault injection', () => {
  let steps: string[] = [];

  beforeAll(async () => {
    await runTraining({ ...tiny, out: base, iterations: 1 }, { registry });
    // The steps of one checkpoint write, as the trainer reports them.
    const traced = copyOfBase();
    const trace = join(work, 'trace.txt');
    process.env.AZ_FAULT_TRACE = trace;
    try {
      await runTraining({ game: 'tictactoe', resume: traced, iterations: 2 }, { registry });
    } finally {
      delete process.env.AZ_FAULT_TRACE;
    }
    steps = [...new Set(readFileSync(trace, 'utf8').trim().split('\n'))];
  }, 120_000);

  it('covers every file-system step of a checkpoint write', () => {
    for (const step of ['replay:write', 'replay:rename', 'checkpoint:mkdir', 'checkpoint:write:weights.bin', 'checkpoint:write:manifest.json', 'checkpoint:rename', 'prune:rename', 'prune:delete', 'metrics:append']) {
      expect(steps).toContain(step);
    }
  });

  it('az train killed (SIGKILL) at each step: the run continues from the last good checkpoint', async () => {
    for (const step of steps) {
      const dir = copyOfBase();
      const r = spawnSync(process.execPath, [bin, 'train', '--game', 'tictactoe', '--resume', dir, '--iterations', '2', '--quiet'], {
        cwd: work,
        encoding: 'utf8',
        timeout: 240_000,
        env: { ...process.env, AZ_FAULT_KILL_AT: step },
      });
      counts.faults++;
      expect(r.signal, `${step}: ${r.stderr}`).toBe('SIGKILL');
      await expectRecovers(dir, `killed at ${step}`);
    }
  }, 600_000);

  it('NaN in the weights, the replay or a gradient: the step stops, the last good checkpoint stays, the run continues', async () => {
    for (const kind of ['weights', 'replay', 'gradient']) {
      const dir = copyOfBase();
      const good = listCheckpoints(dir).at(-1)?.dir ?? '';
      const checksum = (await readCheckpointManifest(good)).checksum;
      process.env.AZ_FAULT_NAN = kind;
      let err: unknown;
      try {
        err = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
      } finally {
        delete process.env.AZ_FAULT_NAN;
      }
      counts.faults++;
      expect(err, kind).toBeInstanceOf(TrainingDivergedError);
      expect(listCheckpoints(dir).at(-1)?.dir).toBe(good);
      expect((await readCheckpointManifest(good)).checksum).toBe(checksum);
      await expectRecovers(dir, `NaN ${kind}`);
    }
  }, 300_000);

  it('NaN written into weights.bin or a replay segment (and signed): resume refuses, naming the file', async () => {
    {
      const dir = copyOfBase();
      const ckpt = listCheckpoints(dir).at(-1)?.dir ?? '';
      const weights = new Float32Array(Uint8Array.from(readFileSync(join(ckpt, 'weights.bin'))).buffer);
      weights[1] = NaN;
      writeFileSync(join(ckpt, 'weights.bin'), new Uint8Array(weights.buffer));
      resign(ckpt, ['weights.bin']);
      counts.faults++;
      const err = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
      expect(err).toBeInstanceOf(CheckpointError);
      expect((err as Error).message).toMatch(/weights\.bin holds non-finite weights/);
      counts.stoppedNamingFile++;
    }
    {
      const dir = copyOfBase();
      const ckpt = listCheckpoints(dir).at(-1)?.dir ?? '';
      const index = JSON.parse(readFileSync(join(ckpt, 'replay.json'), 'utf8')) as { segments: { file: string; bytes: number; sha256: string }[] };
      const segment = index.segments[index.segments.length - 1];
      const { gunzipSync, gzipSync } = await import('node:zlib');
      const raw = gunzipSync(readFileSync(join(dir, 'replay', segment.file)));
      const headerLength = raw.readUInt32LE(0);
      raw.writeFloatLE(NaN, 4 + headerLength); // the first input value of the first position
      const poisoned = gzipSync(raw);
      writeFileSync(join(dir, 'replay', segment.file), poisoned);
      segment.bytes = poisoned.byteLength;
      segment.sha256 = sha256(poisoned);
      writeFileSync(join(ckpt, 'replay.json'), JSON.stringify(index));
      resign(ckpt, ['replay.json']);
      counts.faults++;
      await expectStopsNaming(dir, segment.file, 'NaN replay segment', false);
    }
  }, 120_000);

  it('a flipped byte or a truncation in every checkpoint file and replay segment: stopped, naming the file', async () => {
    const ckptName = listCheckpoints(base).at(-1)?.name ?? '';
    const files = readdirSync(join(base, 'checkpoints', ckptName)).map((f) => ({ rel: join('checkpoints', ckptName, f), name: f, playReadsIt: true }));
    for (const seg of readdirSync(join(base, 'replay'))) files.push({ rel: join('replay', seg), name: seg, playReadsIt: false });
    expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['manifest.json', 'model.json', 'weights.bin', 'model.onnx', 'optimizer.json', 'optimizer.bin', 'replay.json', 'metrics.json']));
    for (const file of files) {
      for (const damage of ['flip', 'truncate'] as const) {
        const dir = copyOfBase();
        const path = join(dir, file.rel);
        const bytes = readFileSync(path);
        if (damage === 'flip') {
          bytes[Math.floor(bytes.length / 2)] ^= 0x10;
          writeFileSync(path, bytes);
        } else {
          truncateSync(path, Math.floor(bytes.length / 2));
        }
        counts.faults++;
        await expectStopsNaming(dir, file.name, `${damage} ${file.rel}`, file.playReadsIt);
      }
    }
  }, 300_000);

  it('loses no run', () => {
    expect(counts.faults).toBeGreaterThan(30);
    expect(counts.lost).toBe(0);
    expect(counts.recovered + counts.stoppedNamingFile).toBe(counts.faults);
  });
});

// Over Redis: a worker holding the run key but buggy (or whoever has its key) sends well-formed records
// whose content is poison, strangers without the key send records, weights (with a correct sha256) and
// heartbeats. The learner must finish every run and every resume, drop and count each record, and no
// worker may play forged weights. Real redis-server, real worker processes.
const redis = realComponent('redis-server', { install: 'apt-get install redis-server', suite: 'the fault-injection suite over Redis' });
const tictactoeUrl = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'packages', 'game-tictactoe', 'dist', 'index.js')).href;

/** A played tic-tac-toe game (weights v0) spoiled in each way that keeps its header consistent. */
async function poisonedGames(): Promise<{ kind: string; bytes: Uint8Array }[]> {
  const game = ticTacToePlugin.create({});
  const played: GameRecord[] = [];
  await new SelfPlay(game, new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 1, { simulations: 8, leavesPerTree: 2, seed: 4 }), { temperatureMoves: 2, seed: 4 }).play(1, (r) => played.push(r));
  const base = played[0];
  const A = game.masker.actionSize;
  const nnz = base.policyIndex.length;
  // The last position: some actions are no longer legal there.
  const last = base.length - 1;
  const legalLast = new Set(base.legalIndex.subarray(base.legalOffsets[last], base.legalOffsets[last + 1]));
  const illegal = [...Array(A).keys()].find((a) => !legalLast.has(a)) ?? 0;
  const spoil = (kind: string, change: (r: { -readonly [K in keyof GameRecord]: GameRecord[K] }) => void): { kind: string; bytes: Uint8Array } => {
    const r = { ...base, inputs: base.inputs.slice(), values: base.values.slice(), policyProb: base.policyProb.slice(), policyIndex: base.policyIndex.slice(), policyOffsets: base.policyOffsets.slice(), legalIndex: base.legalIndex.slice(), legalOffsets: base.legalOffsets.slice() };
    change(r);
    return { kind, bytes: encodeGameRecord(r) };
  };
  return [
    spoil('value 1e30', (r) => void (r.values[0] = 1e30)),
    spoil('policy 1e30', (r) => void (r.policyProb[0] = 1e30)),
    spoil('inputs 1e30', (r) => void (r.inputs[0] = 1e30)),
    spoil('policyOffsets past nnz', (r) => void (r.policyOffsets[r.length] = nnz + 4)),
    spoil('policy mass outside the legal set', (r) => void (r.policyIndex[r.policyOffsets[last]] = illegal)),
    spoil('negative policy index', (r) => void (r.policyIndex[0] = -1)),
    spoil('policy index >= actionSize', (r) => void (r.policyIndex[0] = A)),
    spoil('negative legal index', (r) => void (r.legalIndex[0] = -1)),
    spoil('legal index >= actionSize', (r) => void (r.legalIndex[0] = A + 3)),
    spoil('non-monotone policyOffsets', (r) => void (r.policyOffsets[1] = r.policyOffsets[2] + 1)),
  ];
}

describe.skipIf(redis.path === undefined)('fault injection over Redis (real redis-server)', () => {
  let server: RedisServerProcess;
  const counts = { faults: 0, runsStopped: 0, recordsDropped: 0, forgedWeightsPlayed: 0, forgedHeartbeatsRefused: 0 };
  const redisWork = mkdtempSync(join(tmpdir(), 'az-faults-redis-'));
  beforeAll(async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '' });
  });
  afterAll(async () => {
    console.log(`fault injection over Redis: ${counts.faults} faults injected, ${counts.runsStopped} runs stopped, ${counts.recordsDropped} records dropped and counted, ${counts.forgedWeightsPlayed} forged weights played, ${counts.forgedHeartbeatsRefused} forged heartbeats refused`);
    await server?.dispose();
    rmSync(redisWork, { recursive: true, force: true });
  });

  it('poisoned records, forged records, forged weights (correct sha256) and forged heartbeats: no run stops, no resume stops, every record is dropped and counted, no forged weights are played', async () => {
    const run = 'faults';
    const keys = { games: `az:{${run}}:games`, current: `az:{${run}}:weights:current`, events: `az:{${run}}:events`, weights: (v: number) => `az:{${run}}:weights:${v}`, worker: (n: string) => `az:{${run}}:worker:${n}` };
    const runKey: RunKey = { secret: Buffer.from('fault-suite-run-key-'.padEnd(48, '7')), source: 'the fault suite' };
    const keyHolder = new RunSigner(runKey.secret, run);
    const stranger = new RunSigner(Buffer.from('a-stranger-with-another-key-'.padEnd(48, '3')), run);
    const endpoint = parseRedisUrl(server.url());
    const plugin = { packageName: '@az/game-tictactoe', version: '0.1.0', exportName: 'ticTacToePlugin' };
    const multi: MultiProcessOptions = { devices: [], heartbeatTimeoutMs: 4000, maxGameAge: 1000, workerExecArgv: [], plugin: { moduleUrl: tictactoeUrl, exportName: plugin.exportName }, redis: { endpoint, run, plugin, runKey } };
    const small: TrainOptionsInput = { game: 'tictactoe', network: { kind: 'mlp', hidden: [8] }, gamesPerIteration: 8, parallelGames: 4, simulations: 4, leavesPerTree: 2, trainingSteps: 2, batchSize: 8, evalGames: 0, backend: 'cpu', inferenceBackend: 'tfjs', seed: 9 };
    const out = join(redisWork, 'run');
    const client = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });

    // What the learner says, waited for by pattern (events, not timers).
    const lines: string[] = [];
    const dropped: WorkerEvent[] = [];
    const waiters: { test: () => boolean; resolve: () => void }[] = [];
    const until = (test: () => boolean): Promise<void> => new Promise((resolve) => (test() ? resolve() : waiters.push({ test, resolve })));
    const wake = (): void => {
      for (const w of waiters.splice(0)) (w.test() ? w.resolve() : waiters.push(w));
    };
    const events = { log: (l: string) => (lines.push(l), wake()), worker: (e: WorkerEvent) => void (e.kind === 'dropped' && (dropped.push(e), wake())) };
    const agentLines: string[] = [];
    const agent = new RedisWorkerAgent({ endpoint, run, devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => ({ ...plugin, moduleUrl: tictactoeUrl }), runKey, machine: 'honest', execArgv: [], log: (l) => (agentLines.push(l), wake()) });
    const agentAbort = new AbortController();
    let agentDone: Promise<void> | null = null;
    const stoppedRun = (err: unknown): never => {
      counts.runsStopped++;
      throw err;
    };
    try {
      // The learner starts; no worker plays yet.
      const first = runMultiProcessTraining({ ...small, out, iterations: 2 }, multi, { registry, events }).catch(stoppedRun);
      // A learner that stops fails the wait at once.
      const stopped = first.then(() => new Promise<never>(() => undefined));
      const step = (test: () => boolean): Promise<void> => Promise.race([until(test), stopped]);
      await step(() => lines.some((l) => l.includes('workers join with')));

      // Poison: a buggy key holder's well-formed records, and the same records from a stranger.
      const poisons = await poisonedGames();
      for (const [k, p] of poisons.entries()) {
        await client.xadd(keys.games, '*', ...entryFields(keyHolder, 'buggy#1/0', 'cpu:0', 0, 'tictactoe', [{ seq: k, version: 0, bytes: p.bytes }]));
        await client.xadd(keys.games, '*', ...entryFields(stranger, 'stranger#1/0', 'cpu:0', 0, 'tictactoe', [{ seq: k, version: 0, bytes: p.bytes }]));
      }
      counts.faults += 2 * poisons.length;
      await step(() => dropped.filter((e) => e.kind === 'dropped' && e.reason === 'invalid').length >= 2 * poisons.length);

      // Forged heartbeats: unsigned, and signed with another key.
      const beat = JSON.stringify({ machine: 'fake', device: 'cpu:0', pid: 1, incarnation: 0, state: 'running', weightsVersion: 0, backend: 'wasm', games: 0, positions: 0, evaluations: 0, evaluatorCalls: 0 });
      await client.set(keys.worker('fake#1/0'), beat, 'PX', 600_000);
      await client.set(keys.worker('fake#2/0'), stranger.seal('heartbeat', beat, 'fake#2/0'), 'PX', 600_000);
      counts.faults += 2;
      await step(() => dropped.filter((e) => e.kind === 'dropped' && e.reason === 'heartbeat').length >= 2);

      // Forged weights with a correct sha256 and length: unsigned, then signed with another key. The worker
      // joins while they are announced; it must refuse both (and so play nothing until the learner's own are back).
      const genuine = await client.get(keys.current);
      const length = Number(genuine?.split(' ')[2]);
      const forge = async (version: number, sign: RunSigner | null): Promise<void> => {
        const data = Buffer.from(new Float32Array(length / 4).fill(0.5).buffer);
        const line = `${version} ${sha256(data)} ${data.byteLength}`;
        await client.multi().set(keys.weights(version), data).set(keys.current, sign ? `${line} ${sign.sign('weights', line)}` : line).publish(keys.events, `weights ${version}`).exec();
      };
      await forge(999, null);
      agentDone = agent.run(agentAbort.signal);
      await step(() => agentLines.some((l) => l.startsWith('refused weights v999')));
      await forge(1000, stranger);
      await step(() => agentLines.some((l) => l.startsWith('refused weights v1000')));
      counts.faults += 2;
      // The learner's own announcement again (a replay of what it signed): the worker plays that.
      await client.multi().set(keys.current, genuine ?? '').publish(keys.events, 'weights 0').exec();

      const summary = await first;
      const resumed = await runMultiProcessTraining({ game: 'tictactoe', resume: out, iterations: 3 }, multi, { registry, events: { log: () => undefined } }).catch(stoppedRun);

      const w = summary.workers;
      counts.recordsDropped += w.invalidRecords;
      counts.forgedHeartbeatsRefused += w.forgedHeartbeats;
      // Games played with forged weights would arrive with their version (and be dropped as never published).
      counts.forgedWeightsPlayed += [summary.workers, resumed.workers].map((s) => Math.max(...Object.values(s.devices).map((d) => d.newestGameVersion))).filter((v) => v >= 999).length;
      counts.forgedWeightsPlayed += dropped.filter((e) => e.kind === 'dropped' && /weights version (999|1000) was never published/.test(e.detail)).length;
      expect(agent.refusals).toBe(2);
      expect(w.invalidRecords).toBe(2 * poisons.length);
      expect(w.forgedHeartbeats).toBe(2);
      expect(Object.keys(w.devices)).toEqual(['honest/cpu:0']);
      expect(lines.filter((l) => /live workers per machine/.test(l) && /fake/.test(l))).toEqual([]);
      // Each poisoned record is named: worker, incarnation and game.
      poisons.forEach((p, k) => expect(dropped.some((e) => e.kind === 'dropped' && e.detail.includes(`game ${k} of buggy#1/0 incarnation 0: `)), p.kind).toBe(true));
      // Every poisoned entry was acknowledged as it was dropped: the resume read none of them again.
      expect(resumed.workers.invalidRecords).toBe(0);
      expect(resumed.iterations).toBe(3);
      const pending = (await client.xpending(keys.games, 'learner')) as [number];
      expect(pending[0]).toBe(0);
      expect(counts).toMatchObject({ runsStopped: 0, forgedWeightsPlayed: 0 });
    } finally {
      agentAbort.abort();
      await agentDone;
      client.disconnect();
    }
  }, 300_000);
});

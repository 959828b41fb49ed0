// The Redis transport against a real redis-server (a private one on a free loopback port): a learner with
// no devices of its own, a worker agent with one CPU process, ACL authentication, and a rogue client.
// Uses the built worker (dist/worker.js) and tic-tac-toe's dist: turbo builds before testing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { RedisServerProcess, freePort, realComponent } from '@az/test-harness';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { parseDeviceSpec } from './devices.js';
import { runMultiProcessTraining, type MultiProcessOptions, type MultiProcessTrainSummary } from './multiprocess.js';
import { ENTRY_BYTES, FIELD, GAMES_PER_ENTRY, entryFields, entryGames, entrySignature, fatalConnectProblem, type RemoteRunSetup, groupIntoEntries, parseRedisUrl, runKeys, RedisUrlError, withTlsCa } from './redis-common.js';
import { IncompatibleRunError, RedisWorkerAgent, type LocalPlugin } from './redis-worker-agent.js';
import type { IterationMetrics } from './metrics.js';
import type { WorkerEvent, WorkerSetup } from './transport.js';
import { RedisTransport } from './redis-transport.js';
import { RunSigner, type RunKey } from './run-key.js';
import { createHash } from 'node:crypto';
import { encodeGameRecord, type GameRecord } from './game-record.js';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import type { TicTacToeState } from '@az/game-tictactoe';
import { SelfPlay } from './self-play.js';
import { poisonedRecords } from './test-records.js';

const here = dirname(fileURLToPath(import.meta.url));
const tictactoeUrl = pathToFileURL(join(here, '..', '..', 'game-tictactoe', 'dist', 'index.js')).href;
const localPlugin: LocalPlugin = { packageName: '@az/game-tictactoe', version: '0.1.0', exportName: 'ticTacToePlugin', moduleUrl: tictactoeUrl };

/** The run key of every run in these tests (the learner's and its workers'). */
const runKey: RunKey = { secret: Buffer.from('test-run-key-'.padEnd(40, 'k')), source: 'the tests' };
const signer = (run: string): RunSigner => new RunSigner(runKey.secret, run);

/** An entry's fields as given (`fields`: name, value, ...), signed with the run key as a worker signs them. */
function signedRaw(run: string, fields: (string | Buffer)[]): (string | Buffer)[] {
  const map = new Map<string, Buffer>();
  for (let i = 0; i < fields.length; i += 2) map.set(String(fields[i]), Buffer.from(fields[i + 1]));
  return [...fields.slice(0, -2), FIELD.mac, entrySignature(map, signer(run)), ...fields.slice(-2)];
}

/** A one-position tic-tac-toe game record (weights v0), as a worker sends it. */
function oneMoveRecord(inputSize: number): Uint8Array {
  return encodeGameRecord({
    length: 1,
    inputSize,
    numSeats: 2,
    inputs: new Float32Array(inputSize),
    policyOffsets: Int32Array.from([0, 1]),
    policyIndex: Int32Array.from([4]),
    policyProb: Float32Array.from([1]),
    legalOffsets: Int32Array.from([0, 1]),
    legalIndex: Int32Array.from([4]),
    values: new Float32Array(2),
    returns: new Float32Array(2),
    weightsVersion: 0,
  });
}

/** What a RedisTransport reads of a run's setup: the game, the input size and the seats. */
function transportSetup(inputSize: number): WorkerSetup {
  return {
    plugin: { moduleUrl: tictactoeUrl, exportName: 'ticTacToePlugin' },
    gameId: 'tictactoe',
    gameConfig: {},
    encoderVersion: 'test',
    network: { inputShape: [inputSize], numSeats: 2, actionSize: 9 },
    weightSpecs: [],
    settings: {},
  } as unknown as WorkerSetup;
}

describe('parseRedisUrl', () => {
  it('takes host, port, database, ACL user and TLS from the URL and hides the password when printed', () => {
    expect(parseRedisUrl('redis://box:6380/2')).toMatchObject({ host: 'box', port: 6380, db: 2, tls: false, username: undefined, password: undefined });
    const acl = parseRedisUrl('rediss://worker:s%40cret@redis.example.com/1');
    expect(acl).toMatchObject({ host: 'redis.example.com', port: 6379, db: 1, tls: true, username: 'worker', password: 's@cret' });
    expect(acl.display).toBe('rediss://worker:***@redis.example.com/1');
    expect(parseRedisUrl('redis://:pw@h').password).toBe('pw');
    expect(parseRedisUrl('redis://[::1]:7000').host).toBe('::1');
  });

  it('trusts a CA file given by flag or AZ_REDIS_CA for rediss:// only, and names a bad one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'az-ca-'));
    try {
      const pem = join(dir, 'ca.pem');
      writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const tls = parseRedisUrl('rediss://h:6380/0');
      expect(withTlsCa(tls, pem, {}).tlsCa).toContain('BEGIN CERTIFICATE');
      expect(withTlsCa(tls, undefined, { AZ_REDIS_CA: pem }).tlsCa).toContain('BEGIN CERTIFICATE');
      expect(withTlsCa(tls, undefined, {})).toBe(tls);
      // The environment's CA is for TLS connections; a plain URL ignores it, but a flag on one is a mistake.
      expect(withTlsCa(parseRedisUrl('redis://h/0'), undefined, { AZ_REDIS_CA: pem }).tlsCa).toBeUndefined();
      expect(() => withTlsCa(parseRedisUrl('redis://h/0'), pem, {})).toThrow(/a CA only applies to TLS connections; use rediss:\/\//);
      expect(() => withTlsCa(tls, join(dir, 'missing.pem'), {})).toThrow(/--tls-ca .*missing\.pem: cannot read the CA file \(ENOENT\)/);
      writeFileSync(join(dir, 'key.pem'), 'not a certificate');
      expect(() => withTlsCa(tls, undefined, { AZ_REDIS_CA: join(dir, 'key.pem') })).toThrow(/AZ_REDIS_CA=.*key\.pem: no PEM certificate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells connection failures that retrying cannot mend from those it can', () => {
    const tls = parseRedisUrl('rediss://az:pw@h:6380/0');
    const fail = (message: string, code?: string): string | undefined => fatalConnectProblem(tls, Object.assign(new Error(message), { code }));
    expect(fail('WRONGPASS invalid username-password pair')).toMatch(/refused user 'az' with the password in the URL/);
    expect(fail('NOAUTH Authentication required.')).toMatch(/requires a password/);
    expect(fail('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN')).toMatch(/certificate is not trusted .*--tls-ca FILE or AZ_REDIS_CA=FILE/);
    expect(fail("Hostname/IP does not match certificate's altnames", 'ERR_TLS_CERT_ALTNAME_INVALID')).toMatch(/not for host 'h'/);
    // A database the server does not have (SELECT refused): ioredis would otherwise go on in database 0.
    const db99 = parseRedisUrl('redis://h:6379/99');
    expect(fatalConnectProblem(db99, new Error('ERR DB index is out of range'))).toBe(
      "redis redis://h:6379/99: the server has no database 99 (ERR DB index is out of range); a server has databases 0 to N-1 for its 'databases' setting N (16 by default: 0-15); put one of them after the port in the URL",
    );
    expect(fatalConnectProblem(db99, new Error('ERR SELECT is not allowed in cluster mode'))).toMatch(/a Redis Cluster has database 0 only, not 99 .*end the URL with \/0/);
    expect(fail('connect ECONNREFUSED 127.0.0.1:6380', 'ECONNREFUSED')).toBeUndefined();
    expect(fail('read ECONNRESET', 'ECONNRESET')).toBeUndefined();
  });

  it('names the problem in a bad URL', () => {
    expect(() => parseRedisUrl('http://h:1/0')).toThrow(/scheme must be redis:\/\/ or rediss:\/\//);
    expect(() => parseRedisUrl('redis://h/x')).toThrow(/database after the host must be a number/);
    expect(() => parseRedisUrl('box:6379')).toThrow(RedisUrlError);
  });
});

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const debug = process.env.AZ_TEST_LOG ? (l: string): void => console.error(l) : (): void => undefined;
const redis = realComponent('redis-server', { install: 'apt-get install redis-server', suite: 'the Redis transport tests' });

describe('stream entries of several games', () => {
  const game = (workerId: number, incarnation: number, seq: number, bytes: number): { workerId: number; incarnation: number; seq: number; bytes: Uint8Array } => ({
    workerId,
    incarnation,
    seq,
    bytes: new Uint8Array(bytes).fill(seq & 255),
  });
  /** The fields as the learner's parser sees them: a name -> Buffer map. */
  const asRead = (fields: (string | Buffer)[]): Map<string, Buffer> => {
    const map = new Map<string, Buffer>();
    for (let i = 0; i < fields.length; i += 2) map.set(String(fields[i]), Buffer.isBuffer(fields[i + 1]) ? (fields[i + 1] as Buffer) : Buffer.from(String(fields[i + 1]), 'latin1'));
    return map;
  };
  const parse = (m: Map<string, Buffer>) => entryGames(m.get(FIELD.seq)?.toString('latin1'), m.get(FIELD.version)?.toString('latin1'), m.get(FIELD.lengths)?.toString('latin1'), m.get(FIELD.bytes));

  it('groups queued games by worker process, in order, at most GAMES_PER_ENTRY and about ENTRY_BYTES an entry', () => {
    const queue = [game(0, 0, 0, 10), game(0, 0, 1, 10), game(1, 0, 0, 10), game(0, 0, 2, 10), game(0, 1, 0, 10)];
    expect(groupIntoEntries(queue).map((e) => e.map((g) => `${g.workerId}.${g.incarnation}.${g.seq}`))).toEqual([['0.0.0', '0.0.1'], ['1.0.0'], ['0.0.2'], ['0.1.0']]);
    const many = Array.from({ length: GAMES_PER_ENTRY * 2 + 1 }, (_, i) => game(0, 0, i, 8));
    expect(groupIntoEntries(many).map((e) => e.length)).toEqual([GAMES_PER_ENTRY, GAMES_PER_ENTRY, 1]);
    const large = [game(0, 0, 0, ENTRY_BYTES - 1), game(0, 0, 1, 2), game(0, 0, 2, 5), game(0, 0, 3, ENTRY_BYTES * 2), game(0, 0, 4, 1)];
    expect(groupIntoEntries(large).map((e) => e.map((g) => g.seq))).toEqual([[0, 1], [2, 3], [4]]);
    expect(groupIntoEntries([])).toEqual([]);
  });

  it('writes several games to one entry and reads each back, byte for byte, in a buffer of its own', () => {
    const games = [3, 4, 5].map((seq, k) => ({ seq, version: 7 + k, bytes: new Uint8Array(5 + 4 * k).map((_, i) => seq * 16 + i) }));
    const fields = entryFields(signer('r'), 'm#1.ab.0/2', 'cpu:0', 1, 'tictactoe', games);
    const m = asRead(fields);
    expect(m.get(FIELD.seq)?.toString()).toBe('3,4,5');
    expect(m.get(FIELD.version)?.toString()).toBe('7,8,9');
    expect(m.get(FIELD.lengths)?.toString()).toBe('5,9,13');
    expect(fields.at(-2)).toBe(FIELD.bytes); // the large field last
    const back = parse(m);
    if (typeof back === 'string') throw new Error(back);
    expect(back.map((g) => [g.seq, g.version, [...g.bytes]])).toEqual(games.map((g) => [g.seq, g.version, [...g.bytes]]));
    // Own buffers from offset 0: records are read through typed-array views that need aligned offsets.
    for (const g of back) expect(g.bytes.byteOffset).toBe(0);
    expect(new Set(back.map((g) => g.bytes.buffer)).size).toBe(3);
  });

  it('a one-game entry has no lengths field: the format of one game per entry, which is still read', () => {
    const one = asRead(entryFields(signer('r'), 'w', 'd', 0, 'tictactoe', [{ seq: 9, version: 2, bytes: Uint8Array.from([1, 2, 3]) }]));
    expect(one.has(FIELD.lengths)).toBe(false);
    expect(parse(one)).toEqual([{ seq: 9, version: 2, bytes: Uint8Array.from([1, 2, 3]) }]);
  });

  it('names what is wrong with a malformed entry', () => {
    const b = Buffer.alloc(10);
    expect(entryGames('1,2', '0,0', '4,6', b)).toHaveLength(2);
    expect(entryGames('1,2', '0', '4,6', b)).toBe('missing or malformed fields');
    expect(entryGames('1,x', '0,0', '4,6', b)).toBe('missing or malformed fields');
    expect(entryGames('1,2', '0,0', undefined, b)).toBe('2 games but no byte lengths');
    expect(entryGames('1,2', '0,0', '10', b)).toBe('2 games but 1 byte lengths');
    expect(entryGames('1,2', '0,0', '4,7', b)).toBe('the byte lengths add up to 11 but the records are 10 bytes');
    expect(entryGames('1,2', '0,0', '4,-6', b)).toBe('2 games but malformed byte lengths');
    expect(entryGames(undefined, '0', undefined, b)).toBe('missing or malformed fields');
    expect(entryGames('1', '0', undefined, undefined)).toBe('missing or malformed fields');
  });
});

describe.skipIf(redis.path === undefined)('training over Redis (real redis-server, tic-tac-toe)', () => {
  let server: RedisServerProcess;
  const work = mkdtempSync(join(tmpdir(), 'az-redis-run-'));
  // ACL: the default user is off, so every client must authenticate as 'az'.
  const auth = 'az:training-secret';
  beforeAll(async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '', users: ['default off', 'az on >training-secret ~az:* &az:* +@all'] });
  });
  afterAll(async () => {
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  const tiny = { game: 'tictactoe', gamesPerIteration: 12, parallelGames: 4, simulations: 8, leavesPerTree: 4, trainingSteps: 3, batchSize: 16, evalGames: 0, seed: 5 };

  it('refuses a client without the ACL password, accepts the ACL user', async () => {
    // No ready check: the command itself must meet the refusal.
    const anonymous = new Redis({ port: server.port, host: '127.0.0.1', enableReadyCheck: false, protocol: 2, maxRetriesPerRequest: 0, retryStrategy: () => null });
    anonymous.on('error', () => undefined);
    await expect(anonymous.set(runKeys('x').state, 'running')).rejects.toThrow(/NOAUTH|NOPERM/);
    await expect(anonymous.call('AUTH', 'az', 'nope')).rejects.toThrow(/WRONGPASS/);
    expect(await anonymous.call('AUTH', 'az', 'training-secret')).toBe('OK');
    expect(await anonymous.set(runKeys('x').state, 'running')).toBe('OK');
    anonymous.disconnect();
  });

  it('a remote worker agent joins the run, streams games, takes up new weights; a rogue writer is dropped and counted', async () => {
    const endpoint = parseRedisUrl(server.url(auth));
    const run = 'e2e';
    const logs: string[] = [];
    const agentAbort = new AbortController();
    const agent = new RedisWorkerAgent({ endpoint, run, devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => localPlugin, runKey, machine: 'box2', log: (l) => (logs.push(`agent: ${l}`), debug(`agent: ${l}`)), execArgv: [] });
    let agentError: unknown = null;
    const agentDone = agent.run(agentAbort.signal).catch((err: unknown) => (agentError = err));
    const metrics: IterationMetrics[] = [];
    const rogue = new Redis({ host: '127.0.0.1', port: server.port, username: 'az', password: 'training-secret' });
    // maxGameAge 1: the third iteration (weights v2) accepts only games played with v1 or newer, so the run
    // can finish only once the worker has taken up published weights, however far ahead of the learner its
    // v0 games ran (a fast worker on a loaded machine could otherwise fill all three iterations with v0 games).
    const multi: MultiProcessOptions = {
      devices: [],
      heartbeatTimeoutMs: 4000,
      maxGameAge: 1,
      workerExecArgv: [],
      plugin: { moduleUrl: tictactoeUrl, exportName: 'ticTacToePlugin' },
      redis: { endpoint, run, plugin: localPlugin, runKey },
    };
    // Garbage in the stream before the learner reads it: wrong fields, another game, a forged version, bytes that are no record.
    const key = runKeys(run).games;
    const good = ['w', 'rogue#1/0', 'd', 'cpu:0', 'i', '0', 's', '0', 'v', '0', 'g', 'tictactoe'];
    // Signed (a buggy worker holding the run key is no more trusted than a stranger), but one: unsigned.
    await rogue.xadd(key, '*', 'hello', 'world');
    await rogue.xadd(key, '*', ...signedRaw(run, [...good.slice(0, 10), 'g', 'chess', 'b', Buffer.alloc(64)]));
    await rogue.xadd(key, '*', ...signedRaw(run, [...good.slice(0, 8), 'v', '999', 'g', 'tictactoe', 'b', Buffer.alloc(64)]));
    await rogue.xadd(key, '*', ...signedRaw(run, [...good, 'b', Buffer.from('not a game record')]));
    await rogue.xadd(key, '*', ...good, 'b', Buffer.alloc(4096));
    let summary: MultiProcessTrainSummary;
    try {
      summary = await runMultiProcessTraining({ ...tiny, out: join(work, 'e2e'), iterations: 3 }, multi, {
        registry,
        events: {
          log: (l) => (logs.push(l), debug(l)),
          iteration: (m) => metrics.push(m),
        },
      });
    } finally {
      agentAbort.abort();
      await agentDone.catch(() => undefined);
      rogue.disconnect();
    }
    expect(agentError).toBeNull();
    const w = summary.workers;
    expect(metrics.map((m) => m.iteration)).toEqual([1, 2, 3]);
    // Every garbage entry was dropped and counted; the learner finished its iterations.
    expect(w.invalidRecords).toBe(5);
    expect(w.gamesAccepted).toBeGreaterThanOrEqual(36);
    expect(w.gamesReceived).toBe(w.gamesAccepted + w.staleGamesDropped + w.corruptGames);
    expect(w.corruptGames).toBe(0);
    expect(w.duplicateGames).toBe(0);
    expect(w.sequenceGaps).toBe(0);
    const devices = Object.keys(w.devices);
    expect(devices).toEqual(['box2/cpu:0']);
    // The worker took up weights published after it started.
    expect(w.devices['box2/cpu:0'].newestGameVersion).toBeGreaterThan(0);
    expect(logs.some((l) => /live workers per machine: box2 1/.test(l))).toBe(true);
    // The acknowledged games were trimmed from the stream: it holds at most what arrived after the last checkpoint.
    const check = new Redis({ host: '127.0.0.1', port: server.port, username: 'az', password: 'training-secret' });
    const pending = (await check.xpending(runKeys(run).games, 'learner')) as [number];
    expect(pending[0]).toBe(0);
    check.disconnect();
  });

  it('a SIGKILLed worker process loses only its unfinished games; games from stale weights are dropped and counted', async () => {
    const endpoint = parseRedisUrl(server.url(auth));
    const run = 'faults';
    const agentAbort = new AbortController();
    const agent = new RedisWorkerAgent({ endpoint, run, devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => localPlugin, runKey, machine: 'box3', log: debug, execArgv: [] });
    let agentError: unknown = null;
    const agentDone = agent.run(agentAbort.signal).catch((err: unknown) => (agentError = err));
    const rogue = new Redis({ host: '127.0.0.1', port: server.port, username: 'az', password: 'training-secret' });
    // A finished game as a worker still on weights v0 would send it, long after the run moved on.
    const game = registry.create('tictactoe');
    const inputSize = game.encoder.size;
    const oldGame = oneMoveRecord(inputSize);
    const controller = new AbortController();
    const events: WorkerEvent[] = [];
    let killedPid = 0;
    let staleSent = false;
    let staleWritten = false;
    let staleChecked = false;
    let summary: MultiProcessTrainSummary;
    try {
      summary = await runMultiProcessTraining(
        { ...tiny, out: join(work, 'faults'), iterations: 500 },
        { devices: [], heartbeatTimeoutMs: 4000, maxGameAge: 1, workerExecArgv: [], plugin: { moduleUrl: tictactoeUrl, exportName: 'ticTacToePlugin' }, redis: { endpoint, run, plugin: localPlugin, runKey } },
        {
          registry,
          signal: controller.signal,
          events: {
            log: debug,
            worker: (e) => {
              events.push(e);
              // Kill the worker process (it always has games in progress) once it has delivered games.
              if (e.kind === 'ready' && e.incarnation === 0 && killedPid === 0 && e.pid > 0) {
                killedPid = e.pid;
                process.kill(e.pid, 'SIGKILL');
              }
            },
            iteration: (m) => {
              const restarted = events.some((e) => e.kind === 'ready' && e.incarnation === 1);
              if (m.iteration >= 3 && !staleSent) {
                staleSent = true;
                void (async () => {
                  for (let seq = 0; seq < 3; seq++) {
                    await rogue.xadd(runKeys(run).games, '*', ...entryFields(signer(run), 'old#1.aa/0', 'old', 0, 'tictactoe', [{ seq, version: 0, bytes: oldGame }]));
                  }
                  staleWritten = true;
                })();
              }
              // Stop once the restarted worker played and the stale games were in the stream an iteration ago.
              if (restarted && staleChecked && m.iteration >= 5) controller.abort();
              if (staleWritten) staleChecked = true;
            },
          },
        },
      );
    } finally {
      agentAbort.abort();
      await agentDone;
      rogue.disconnect();
    }
    expect(agentError).toBeNull();
    const w = summary.workers;
    expect(killedPid).toBeGreaterThan(0);
    // The slot's process came back (incarnation 1) and kept playing; every game it had sent was kept.
    expect(events.some((e) => e.kind === 'restarting')).toBe(true);
    expect(w.restarts).toBeGreaterThanOrEqual(1);
    expect(w.sequenceGaps).toBe(0);
    expect(w.duplicateGames).toBe(0);
    expect(w.invalidRecords).toBe(0);
    expect(w.devices['box3/cpu:0'].gamesAccepted).toBeGreaterThan(0);
    // The stale sender's games were read, judged too old for --max-game-age 1, dropped and counted.
    expect(w.devices['old/old']).toMatchObject({ gamesReceived: 3, gamesAccepted: 0, staleGamesDropped: 3 });
    expect(w.gamesReceived).toBe(w.gamesAccepted + w.staleGamesDropped + w.corruptGames);
  });

  it('a worker with another plugin version or encoder refuses with a message saying which', async () => {
    const endpoint = parseRedisUrl(server.url(auth));
    const setupKey = runKeys('e2e').setup;
    const client = new Redis({ host: '127.0.0.1', port: server.port, username: 'az', password: 'training-secret' });
    const setup = JSON.parse(signer('e2e').open('setup', (await client.get(setupKey)) ?? '') ?? '{}') as Record<string, unknown>;
    await client.set(runKeys('e2e').state, 'running');
    const attempt = async (plugin: LocalPlugin): Promise<unknown> => {
      const agent = new RedisWorkerAgent({ endpoint, run: 'e2e', devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => plugin, runKey, execArgv: [] });
      return agent.run(new AbortController().signal).then(() => null, (err: unknown) => err);
    };
    const older = await attempt({ ...localPlugin, version: '0.0.9' });
    expect(older).toBeInstanceOf(IncompatibleRunError);
    expect(String(older)).toContain('this machine has @az/game-tictactoe@0.0.9');
    await client.set(setupKey, signer('e2e').seal('setup', JSON.stringify({ ...setup, encoderVersion: 'ttt-v0' })));
    const otherEncoder = await attempt(localPlugin);
    expect(otherEncoder).toBeInstanceOf(IncompatibleRunError);
    expect(String(otherEncoder)).toMatch(/encodes positions as version '.*' but run 'e2e' uses 'ttt-v0'/);
    await client.set(runKeys('e2e').state, 'stopped');
    client.disconnect();
  });
});

describe.skipIf(redis.path === undefined)('the ACL users docs/distributed.md suggests (real redis-server)', () => {
  const run = 'acl';
  // As in docs/distributed.md, "What is trusted", for run 'acl'.
  const learnerRule = `learner on >learner-secret ~az:{${run}}:* &az:{${run}}:* +@all`;
  const workerRule = `worker on >worker-secret %R~az:{${run}}:* ~az:{${run}}:games ~az:{${run}}:worker:* ~az:{${run}}:serial &az:{${run}}:events +@read +@stream +@pubsub +set +incr +multi +exec +ping +auth +hello +client|setname +info`;
  let server: RedisServerProcess;
  const work = mkdtempSync(join(tmpdir(), 'az-redis-acl-'));
  beforeAll(async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '', users: ['default off', learnerRule, workerRule] });
  });
  afterAll(async () => {
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it('a worker user that may write only games, heartbeats and its serial plays a run; it cannot touch the weights, the setup or the state', async () => {
    const agentAbort = new AbortController();
    const agent = new RedisWorkerAgent({ endpoint: parseRedisUrl(server.url('worker:worker-secret')), run, devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => localPlugin, runKey, machine: 'aclbox', log: debug, execArgv: [] });
    const agentDone = agent.run(agentAbort.signal);
    // A worker the ACL refuses fails the test at once (the learner would wait for its games for ever).
    const agentFailed = agentDone.then(() => new Promise<never>(() => undefined));
    let summary: MultiProcessTrainSummary;
    try {
      summary = await Promise.race([agentFailed, runMultiProcessTraining(
        { game: 'tictactoe', gamesPerIteration: 8, parallelGames: 4, simulations: 8, leavesPerTree: 4, trainingSteps: 2, batchSize: 16, evalGames: 0, seed: 5, out: join(work, 'acl'), iterations: 2 },
        { devices: [], heartbeatTimeoutMs: 4000, workerExecArgv: [], plugin: { moduleUrl: tictactoeUrl, exportName: 'ticTacToePlugin' }, redis: { endpoint: parseRedisUrl(server.url('learner:learner-secret')), run, plugin: localPlugin, runKey } },
        { registry, events: { log: debug } },
      )]);
    } finally {
      agentAbort.abort();
      await agentDone.catch(() => undefined);
    }
    expect(summary.workers.devices['aclbox/cpu:0'].gamesAccepted).toBeGreaterThanOrEqual(16);
    expect(summary.workers.invalidRecords).toBe(0);
    const asWorker = new Redis({ host: '127.0.0.1', port: server.port, username: 'worker', password: 'worker-secret', protocol: 2 });
    try {
      for (const key of [runKeys(run).weightsCurrent, runKeys(run).setup, runKeys(run).state, runKeys(run).paused]) await expect(asWorker.set(key, 'x')).rejects.toThrow(/NOPERM/);
      expect(await asWorker.get(runKeys(run).state)).toBe('stopped');
    } finally {
      asWorker.disconnect();
    }
  });
});

/**
 * A TCP relay to Redis that can lose one reply: the next server→client chunk holding `marker` is
 * swallowed and the client's connection cut, as when a connection dies after Redis served a command.
 */
class LossyRelay {
  private armed: string | null = null;
  private readonly sockets = new Set<Socket>();
  swallowed = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: number): Promise<LossyRelay> {
    const port = await freePort();
    let relay: LossyRelay | undefined;
    const server = createServer((client) => {
      const upstream = connect(target, '127.0.0.1');
      relay?.sockets.add(client).add(upstream);
      client.on('data', (d) => upstream.write(d));
      upstream.on('data', (d) => {
        if (relay?.armed !== null && relay?.armed !== undefined && d.includes(relay.armed)) {
          relay.armed = null;
          relay.swallowed++;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(d);
      });
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    relay = new LossyRelay(server, port);
    return relay;
  }

  loseNextReplyWith(marker: string): void {
    this.armed = marker;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe.skipIf(redis.path === undefined)('RedisTransport reading through a lossy connection (real redis-server)', () => {
  let server: RedisServerProcess;
  let relay: LossyRelay;
  beforeAll(async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '' });
    relay = await LossyRelay.start(server.port);
  });
  afterAll(async () => {
    await relay?.close();
    await server?.dispose();
  });

  it('a read served by Redis whose reply was lost with the connection: its games still arrive, in order, none dropped as duplicates', async () => {
    const run = 'lossy';
    const keys = runKeys(run);
    const inputSize = registry.create('tictactoe').encoder.size;
    const record = Buffer.from(oneMoveRecord(inputSize));
    const logs: string[] = [];
    const transport = new RedisTransport({
      endpoint: parseRedisUrl(`redis://127.0.0.1:${relay.port}/0`),
      run,
      plugin: localPlugin,
      heartbeatTimeoutMs: 4000,
      readBatch: 4,
      runKey,
      log: (l) => (logs.push(l), debug(l)),
    });
    const seqs: number[] = [];
    const gaps: WorkerEvent[] = [];
    const waiters: { seq: number; resolve: () => void }[] = [];
    transport.onGame((g) => {
      seqs.push(g.seq);
      for (const w of waiters.filter((w) => seqs.includes(w.seq))) w.resolve();
    });
    transport.onWorkerEvent((e) => void (e.kind === 'gap' && gaps.push(e)));
    /** Resolves once game `seq` was taken in (the last one sent: the others are then in, or lost). */
    const arrived = (seq: number): Promise<void> => (seqs.includes(seq) ? Promise.resolve() : new Promise((resolve) => waiters.push({ seq, resolve })));
    const setup = transportSetup(inputSize);
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const send = async (from: number, to: number): Promise<void> => {
      for (let s = from; s < to; s++) await writer.xadd(keys.games, '*', ...entryFields(signer(run), 'm#1/0', 'cpu:0', 0, 'tictactoe', [{ seq: s, version: 0, bytes: record }]));
    };
    try {
      await transport.start(setup, { version: 0, data: new Uint8Array(0) });
      await send(0, 4);
      await arrived(3);
      // The reader is blocked in XREADGROUP '>': Redis serves it games 4-7 (they become pending), the reply is lost.
      relay.loseNextReplyWith(keys.games);
      await send(4, 8);
      // The client sends the read again on a new connection; it can only see what came after 4-7.
      await send(8, 12);
      await arrived(11);
      expect(relay.swallowed).toBe(1);
      expect(seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      expect(gaps).toEqual([]);
    } finally {
      writer.disconnect();
      await transport.close();
    }
  });

  it('a worker counts as live on its machine from its first game, not only from the next heartbeat scan', async () => {
    const run = 'first-game';
    const inputSize = registry.create('tictactoe').encoder.size;
    const logs: string[] = [];
    const transport = new RedisTransport({ endpoint: parseRedisUrl(`redis://127.0.0.1:${server.port}/0`), run, plugin: localPlugin, runKey, heartbeatTimeoutMs: 4000, log: (l) => logs.push(l) });
    // What the learner had said when the game reached it: a run shorter than a scan tick ends with no scan after its games.
    let saidAtFirstGame: string[] | null = null;
    let arrived: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    transport.onGame(() => {
      saidAtFirstGame ??= logs.filter((l) => l.includes('live workers per machine'));
      arrived();
    });
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    try {
      await transport.start(transportSetup(inputSize), { version: 0, data: new Uint8Array(0) });
      // No heartbeat key: only the game says the worker is there.
      await writer.xadd(runKeys(run).games, '*', ...entryFields(signer(run), 'box9#1.a.1/0', 'cpu:0', 0, 'tictactoe', [{ seq: 0, version: 0, bytes: oneMoveRecord(inputSize) }]));
      await first;
      expect(saidAtFirstGame).toContain('redis: live workers per machine: box9 1');
    } finally {
      writer.disconnect();
      await transport.close();
    }
  });

  it('a worker known only from its games (no heartbeat ever) stops counting as live once its games stop, and counts again at its next game', async () => {
    const run = 'games-only';
    const inputSize = registry.create('tictactoe').encoder.size;
    const lines: string[] = [];
    const waiters: { text: string; after: number; resolve: () => void }[] = [];
    // Resolves when the learner says `text` after the `after`-th line (each change of the count is said once).
    const said = (text: string, after = lines.length): Promise<void> =>
      new Promise((resolve) => (lines.slice(after).some((l) => l.includes(text)) ? resolve() : waiters.push({ text, after, resolve })));
    const log = (line: string): void => {
      lines.push(line);
      for (const w of waiters.splice(0)) (lines.slice(w.after).some((l) => l.includes(w.text)) ? w.resolve() : waiters.push(w));
    };
    const transport = new RedisTransport({ endpoint: parseRedisUrl(`redis://127.0.0.1:${server.port}/0`), run, plugin: localPlugin, runKey, heartbeatTimeoutMs: 400, log });
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const game = (seq: number) => writer.xadd(runKeys(run).games, '*', ...entryFields(signer(run), 'old#1.a.1/0', 'cpu:0', 0, 'tictactoe', [{ seq, version: 0, bytes: oneMoveRecord(inputSize) }]));
    try {
      await transport.start(transportSetup(inputSize), { version: 0, data: new Uint8Array(0) });
      const live = said('live workers per machine: old 1');
      await game(0);
      await live;
      // No heartbeat key and no more games: a scan after the 400 ms timeout gives it up.
      await said('live workers per machine: none', lines.length);
      const back = said('live workers per machine: old 1', lines.length);
      await game(1);
      await back;
    } finally {
      writer.disconnect();
      await transport.close();
    }
  });

  it('a well-formed but poisoned record is dropped, named by worker, incarnation and game, and its entry acknowledged at once; the sound games around it are taken in', async () => {
    const run = 'poisoned';
    const keys = runKeys(run);
    const game = ticTacToePlugin.create({});
    const played: GameRecord[] = [];
    await new SelfPlay(game, new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 1, { simulations: 8, leavesPerTree: 2, seed: 3 }), { temperatureMoves: 2, seed: 3 }).play(1, (r) => played.push(r));
    const base = played[0];
    const poisons = poisonedRecords(base, 9);
    const last = poisons.length + 1;
    const transport = new RedisTransport({ endpoint: parseRedisUrl(`redis://127.0.0.1:${server.port}/0`), run, plugin: localPlugin, runKey, heartbeatTimeoutMs: 4000 });
    const seqs: number[] = [];
    const dropped: string[] = [];
    let lastArrived: () => void = () => undefined;
    const allRead = new Promise<void>((resolve) => (lastArrived = resolve));
    transport.onGame((g) => {
      seqs.push(g.seq);
      if (g.seq === last) lastArrived();
    });
    transport.onWorkerEvent((e) => void (e.kind === 'dropped' && dropped.push(`${e.reason}: ${e.detail}`)));
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const entry = (seq: number, record: GameRecord) => writer.xadd(keys.games, '*', ...entryFields(signer(run), 'm#1/0', 'cpu:0', 3, 'tictactoe', [{ seq, version: 0, bytes: encodeGameRecord(record) }]));
    const soundIds: (string | null)[] = [];
    try {
      await transport.start(transportSetup(game.encoder.size), { version: 0, data: new Uint8Array(0) });
      soundIds.push(await entry(0, base));
      for (let k = 0; k < poisons.length; k++) await entry(k + 1, poisons[k].record);
      soundIds.push(await entry(last, base));
      await allRead;
    } finally {
      await transport.close();
    }
    try {
      expect(seqs).toEqual([0, last]);
      expect(dropped).toHaveLength(poisons.length);
      poisons.forEach((p, k) => expect(dropped[k], p.kind).toMatch(new RegExp(`^invalid: entry \\S+, game ${k + 1} of m#1/0 incarnation 3: .*${p.problem.source}`)));
      // No checkpoint was written: only the sound games' entries wait for one; a resumed learner never sees the poisoned ones.
      const pending = (await writer.xpending(keys.games, 'learner', '-', '+', 100)) as [string, ...unknown[]][];
      expect(pending.map((p) => p[0])).toEqual(soundIds);
    } finally {
      writer.disconnect();
    }
  });

  it('a worker refuses a setup or weights the run key did not sign (unsigned, or signed with another key, sha256 correct), says why and plays nothing', async () => {
    const run = 'forged-weights';
    const keys = runKeys(run);
    const forger = new RunSigner(Buffer.from('someone-elses-key-'.padEnd(40, 'x')), run);
    const setup: RemoteRunSetup = {
      format: 1,
      epoch: 1,
      gameId: 'tictactoe',
      plugin: { packageName: localPlugin.packageName, version: localPlugin.version, exportName: localPlugin.exportName },
      gameConfig: {},
      encoderVersion: registry.create('tictactoe').encoder.version,
      network: { spec: { kind: 'mlp', hidden: [4] }, inputShape: [27], actionSize: 9, numSeats: 2 },
      weightSpecs: [],
      options: {} as RemoteRunSetup['options'],
      heartbeatTimeoutMs: 4000,
    };
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const logs: string[] = [];
    const waiters: { pattern: RegExp; resolve: () => void }[] = [];
    const said = (pattern: RegExp): Promise<void> => new Promise((resolve) => (logs.some((l) => pattern.test(l)) ? resolve() : waiters.push({ pattern, resolve })));
    const log = (line: string): void => {
      logs.push(line);
      debug(line);
      for (const w of waiters.splice(0)) (w.pattern.test(line) ? w.resolve() : waiters.push(w));
    };
    const agent = new RedisWorkerAgent({ endpoint: parseRedisUrl(server.url()), run, devices: parseDeviceSpec('cpu:1'), resolvePlugin: () => localPlugin, runKey, machine: 'honest', log, execArgv: [] });
    const abort = new AbortController();
    const done = agent.run(abort.signal);
    /** Weights "version v" of the right length (none: the setup's layout is empty) with a correct sha256, announced as a forger would. */
    const forge = async (version: number, signature: string | null): Promise<void> => {
      const line = `${version} ${createHash('sha256').update(new Uint8Array(0)).digest('hex')} 0`;
      await writer.multi().set(keys.weights(version), Buffer.alloc(0)).set(keys.weightsCurrent, signature === null ? line : `${line} ${signature}`).publish(keys.events, `weights ${version}`).exec();
    };
    try {
      // A setup signed with another key: refused before anything is loaded or started.
      await writer.multi().set(keys.setup, forger.seal('setup', JSON.stringify(setup))).set(keys.state, 'running').publish(keys.events, 'state running').exec();
      await said(/refused the setup of run 'forged-weights' in Redis: it is not signed with this worker's run key \(the tests\); nothing is played from it\. Give this worker the learner's key/);
      // The learner's setup, then weights whose checksum is right but whose announcement the run key did not sign.
      await forge(1, null);
      await writer.multi().set(keys.setup, signer(run).seal('setup', JSON.stringify(setup))).publish(keys.events, 'epoch 1').exec();
      await said(/refused weights v1 in Redis: not signed with this worker's run key \(the tests\); they are not played/);
      await forge(2, forger.sign('weights', `2 ${createHash('sha256').update(new Uint8Array(0)).digest('hex')} 0`));
      await said(/refused weights v2 in Redis: not signed/);
      expect(agent.refusals).toBe(3);
      expect(logs.filter((l) => /ready|worker process/.test(l))).toEqual([]);
    } finally {
      abort.abort();
      await done;
      writer.disconnect();
    }
    expect(agent.gamesSent).toBe(0);
  });

  it('forged heartbeats and entries (unsigned, or signed with another key) are refused and counted once each; the entries are acknowledged at once', async () => {
    const run = 'forged-beats';
    const keys = runKeys(run);
    const forger = new RunSigner(Buffer.from('someone-elses-key-'.padEnd(40, 'x')), run);
    const inputSize = registry.create('tictactoe').encoder.size;
    const lines: string[] = [];
    const waiters: { pattern: RegExp; resolve: () => void }[] = [];
    const said = (pattern: RegExp): Promise<void> => new Promise((resolve) => (lines.some((l) => pattern.test(l)) ? resolve() : waiters.push({ pattern, resolve })));
    const log = (line: string): void => {
      lines.push(line);
      for (const w of waiters.splice(0)) (w.pattern.test(line) ? w.resolve() : waiters.push(w));
    };
    const transport = new RedisTransport({ endpoint: parseRedisUrl(server.url()), run, plugin: localPlugin, runKey, heartbeatTimeoutMs: 4000, log });
    const drops: string[] = [];
    transport.onWorkerEvent((e) => void (e.kind === 'dropped' && drops.push(`${e.reason} ${e.source}: ${e.detail}`)));
    const games: number[] = [];
    let goodArrived: () => void = () => undefined;
    const good = new Promise<void>((resolve) => (goodArrived = resolve));
    transport.onGame((g) => (games.push(g.seq), goodArrived()));
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const beat = (machine: string): string => JSON.stringify({ machine, device: 'cpu:0', pid: 4242, incarnation: 0, state: 'running', weightsVersion: 0, backend: 'wasm', games: 0, positions: 0, evaluations: 0, evaluatorCalls: 0 });
    const record = oneMoveRecord(inputSize);
    try {
      await transport.start(transportSetup(inputSize), { version: 0, data: new Uint8Array(0) });
      await writer.set(keys.worker('fake#1/0'), beat('fake'), 'PX', 60_000);
      await writer.set(keys.worker('fake#2/0'), forger.seal('heartbeat', beat('fake2'), 'fake#2/0'), 'PX', 60_000);
      // A real worker's signature copied onto another worker's key is no better.
      await writer.set(keys.worker('fake#3/0'), signer(run).seal('heartbeat', beat('fake3'), 'real#1/0'), 'PX', 60_000);
      await writer.set(keys.worker('real#1/0'), signer(run).seal('heartbeat', beat('real'), 'real#1/0'), 'PX', 60_000);
      await said(/live workers per machine: real 1$/);
      const unsigned = await writer.xadd(keys.games, '*', 'w', 'fake#1/0', 'd', 'cpu:0', 'i', '0', 's', '0', 'v', '0', 'g', 'tictactoe', 'b', Buffer.from(record));
      const otherKey = await writer.xadd(keys.games, '*', ...entryFields(forger, 'fake#2/0', 'cpu:0', 0, 'tictactoe', [{ seq: 0, version: 0, bytes: record }]));
      await writer.xadd(keys.games, '*', ...entryFields(signer(run), 'real#1/0', 'cpu:0', 0, 'tictactoe', [{ seq: 0, version: 0, bytes: record }]));
      await good;
      // Later scans read the forged keys again: still counted once each.
      await writer.set(keys.worker('real#2/0'), signer(run).seal('heartbeat', beat('real'), 'real#2/0'), 'PX', 60_000);
      await said(/live workers per machine: real 2$/);
      await transport.close();
      expect(games).toEqual([0]);
      expect(lines.filter((l) => /live workers per machine/.test(l) && /fake/.test(l))).toEqual([]);
      expect(drops.filter((d) => d.startsWith('heartbeat')).map((d) => d.split(':')[0]).sort()).toEqual(['heartbeat fake#1/0', 'heartbeat fake#2/0', 'heartbeat fake#3/0']);
      expect(drops.filter((d) => d.startsWith('invalid'))).toEqual([
        `invalid fake#1/0: entry ${unsigned}: not signed with the run key (written by someone without it, or by a worker given another key)`,
        `invalid fake#2/0: entry ${otherKey}: not signed with the run key (written by someone without it, or by a worker given another key)`,
      ]);
      const pending = (await writer.xpending(keys.games, 'learner', '-', '+', 10)) as [string, ...unknown[]][];
      expect(pending.map((p) => p[0])).not.toContain(unsigned);
      expect(pending.map((p) => p[0])).not.toContain(otherKey);
    } finally {
      await transport.close();
      writer.disconnect();
    }
  });

  it('an entry of several games: each game is checked, de-duplicated and counted on its own, and the entry acknowledged once', async () => {
    const run = 'multi';
    const keys = runKeys(run);
    const inputSize = registry.create('tictactoe').encoder.size;
    const record = oneMoveRecord(inputSize);
    const transport = new RedisTransport({ endpoint: parseRedisUrl(`redis://127.0.0.1:${server.port}/0`), run, plugin: localPlugin, runKey, heartbeatTimeoutMs: 4000 });
    const seqs: number[] = [];
    const events: string[] = [];
    let lastArrived: () => void = () => undefined;
    const fiveArrived = new Promise<void>((resolve) => (lastArrived = resolve));
    transport.onGame((g) => {
      seqs.push(g.seq);
      if (g.seq === 5) lastArrived();
    });
    transport.onWorkerEvent((e) => void (e.kind === 'dropped' ? events.push(`${e.reason}: ${e.detail.replace(/^entry \S+: /, '')}`) : e.kind === 'gap' ? events.push(`gap ${e.expected}->${e.got}`) : undefined));
    const setup = transportSetup(inputSize);
    const writer = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
    const entry = (games: { seq: number; bytes: Uint8Array }[]) => writer.xadd(keys.games, '*', ...entryFields(signer(run), 'm#1/0', 'cpu:0', 0, 'tictactoe', games.map((g) => ({ ...g, version: 0 }))));
    try {
      await transport.start(setup, { version: 0, data: new Uint8Array(0) });
      await entry([{ seq: 0, bytes: record }, { seq: 1, bytes: record }, { seq: 2, bytes: record }]);
      await entry([{ seq: 2, bytes: record }, { seq: 3, bytes: record }, { seq: 4, bytes: Uint8Array.from([1, 2, 3]) }]);
      await writer.xadd(keys.games, '*', ...signedRaw(run, ['w', 'm#1/0', 'd', 'cpu:0', 'i', '0', 's', '7,8', 'v', '0,0', 'g', 'tictactoe', 'l', '1,1', 'b', Buffer.from(record)]));
      await entry([{ seq: 5, bytes: record }]);
      await fiveArrived;
      expect(seqs).toEqual([0, 1, 2, 3, 5]);
      expect(events).toEqual([
        'duplicate: game 2 of m#1/0|0 was already taken in',
        expect.stringMatching(/^invalid: /),
        `invalid: the byte lengths add up to 2 but the records are ${record.byteLength} bytes`,
        'gap 4->5',
      ]);
      // Four entries delivered, each acknowledged once the checkpoint holding its games is written.
      expect(transport.stats().pendingAcks).toBe(4);
      transport.checkpointState();
      await transport.checkpointed();
      const pending = (await writer.xpending(keys.games, 'learner')) as [number, ...unknown[]];
      expect(pending[0]).toBe(0);
      expect(await writer.xlen(keys.games)).toBeLessThanOrEqual(4);
    } finally {
      writer.disconnect();
      await transport.close();
    }
  });
});

// `az train --transport` and `az worker` as separate processes on a real redis-server (append-only
// file on): Redis restarted under load, the learner SIGKILLed and resumed, and every game a worker sent
// counted: in the final checkpoint exactly once, or still waiting in the stream.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisServerProcess, createTestCertificates, realComponent } from '@az/test-harness';
import { resolveResume } from '@az/trainer-multigpu';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const redis = realComponent('redis-server', { install: 'apt-get install redis-server', suite: 'the az worker / az train --transport tests' });
const openssl = realComponent('openssl', { install: 'apt-get install openssl', suite: 'the rediss:// (TLS) tests' });
const debug = process.env.AZ_TEST_LOG ? (l: string): void => console.error(l) : (): void => undefined;

/** The run key learners and workers of these tests share (az worker refuses to start without one). */
const runKey = 'distributed-test-run-key-'.padEnd(48, '0');
const withKey: NodeJS.ProcessEnv = { ...process.env, AZ_RUN_KEY: runKey };

/** A running `az` process whose output lines can be waited for. */
class Az {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];

  constructor(
    readonly name: string,
    args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv = withKey,
  ) {
    this.child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim() === '') continue;
        this.lines.push(line);
        debug(`${name}: ${line}`);
        this.waiters = this.waiters.filter((w) => {
          if (!w.pattern.test(line)) return true;
          w.resolve(line);
          return false;
        });
      }
    };
    this.child.stdout?.on('data', onData);
    this.child.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Resolves with the first line (already seen or to come) matching `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<string> {
    const seen = this.lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ pattern, resolve });
      void this.exited.then((code) => reject(new Error(`${this.name} exited (${code}) before printing ${pattern}:\n${this.lines.slice(-15).join('\n')}`)));
    });
  }

  signal(sig: NodeJS.Signals): void {
    if (this.child.pid && this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
  }
}

describe('az worker / --transport usage', () => {
  const az = (args: string[]): { code: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000 });
    return { code: r.status, stderr: r.stderr };
  };
  it('names the flag or the part of the URL that is wrong, exit 2, before connecting anywhere', () => {
    expect(az(['worker', '--run', 'r', '--devices', 'cpu:1'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--connect is required') });
    expect(az(['worker', '--connect', 'redis://h/0', '--run', 'r'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give --gpus LIST or --devices cpu:N') });
    expect(az(['worker', '--connect', 'http://h:1/0', '--run', 'r', '--devices', 'cpu:1'])).toMatchObject({ code: 2, stderr: expect.stringContaining('scheme must be redis:// or rediss://') });
    expect(az(['worker', '--connect', 'redis://h/0', '--run', 'a b', '--devices', 'cpu:1'])).toMatchObject({ code: 2, stderr: expect.stringContaining("run name 'a b'") });
    expect(az(['train', '--game', 'tictactoe', '--transport', 'redis://h/x'])).toMatchObject({ code: 2, stderr: expect.stringContaining('database after the host must be a number') });
    expect(az(['train', '--game', 'tictactoe', '--run-id', 'r'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--run-id only applies with --transport') });
    expect(az(['train', '--game', 'tictactoe', '--run-key-file', 'k'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--run-key-file only applies with --transport') });
  });

  it('refuses to start without the run key, or with one too short or unreadable, exit 2, saying where the learner keeps it', () => {
    const worker = ['worker', '--connect', 'redis://127.0.0.1:1/0', '--run', 'r', '--devices', 'cpu:1'];
    const noKey = spawnSync(process.execPath, [bin, ...worker], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_RUN_KEY: '' } });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain("az worker: no run key: give the learner's with --run-key-file FILE or AZ_RUN_KEY (a learner given none made one in its run directory, <out>/run.key, and printed where)");
    const short = spawnSync(process.execPath, [bin, ...worker], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_RUN_KEY: 'secret' } });
    expect(short.stderr).toContain('az worker: AZ_RUN_KEY: a run key must be at least 32 characters (this one has 6); make one with: openssl rand -hex 32');
    expect(az([...worker, '--run-key-file', '/nonexistent/run.key'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--run-key-file /nonexistent/run.key: cannot read the run key (ENOENT)') });
  });

  it('stops on SIGTERM while the server it should join does not answer', async () => {
    // A loopback port nobody listens on: the first connection keeps retrying until the signal.
    const worker = new Az('worker', ['worker', '--connect', 'redis://127.0.0.1:1/0', '--run', 'r', '--devices', 'cpu:1'], tmpdir());
    await worker.waitFor(/ECONNREFUSED/);
    worker.signal('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.lines.join('\n')).toContain('az worker: stopped after sending 0 games');
  }, 60_000);
});

describe.skipIf(redis.path === undefined)('az worker and a database the server does not have (real redis-server)', () => {
  let server: RedisServerProcess | undefined;
  beforeAll(async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '' });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('exits 1 naming the database and the refusal (a default server has databases 0-15), instead of going on', async () => {
    const url = `redis://127.0.0.1:${server?.port ?? 0}/99`;
    const worker = new Az('worker-db99', ['worker', '--connect', url, '--run', 'db99', '--devices', 'cpu:1'], tmpdir());
    // Going on (retrying, or waiting for the run in another database) is the failure: it would never end.
    const outcome = await Promise.race([
      worker.exited.then((code) => ({ code })),
      // (Rejected when the process exits first: then the exit decides.)
      worker.waitFor(/waiting for run 'db99' to start/).then((line) => ({ wentOn: line }), () => new Promise<never>(() => undefined)),
    ]);
    worker.signal('SIGKILL');
    expect(outcome, worker.lines.join('\n')).toEqual({ code: 1 });
    expect(worker.lines).toContain(
      `az worker: cannot connect: redis ${url}: the server has no database 99 (ERR DB index is out of range); a server has databases 0 to N-1 for its 'databases' setting N (16 by default: 0-15); put one of them after the port in the URL`,
    );
    // A database the server has joins as before: it waits for the run until stopped.
    const fine = new Az('worker-db15', ['worker', '--connect', `redis://127.0.0.1:${server?.port ?? 0}/15`, '--run', 'db15', '--devices', 'cpu:1'], tmpdir());
    await fine.waitFor(/waiting for run 'db15' to start/);
    fine.signal('SIGTERM');
    expect(await fine.exited).toBe(0);
  }, 120_000);
});

describe.skipIf(redis.path === undefined)('az train --transport redis:// with az worker (real redis-server)', () => {
  const work = mkdtempSync(join(tmpdir(), 'az-distributed-'));
  const running: Az[] = [];
  let server: RedisServerProcess | undefined;
  afterAll(async () => {
    for (const p of running) p.signal('SIGKILL');
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it(
    'Redis restarted under load and the learner SIGKILLed and resumed: no game lost, none taken twice',
    async () => {
      server = await RedisServerProcess.start({ executable: redis.path ?? '', appendonly: true });
      const url = server.url();
      const out = join(work, 'run');
      const tiny = ['--game', 'tictactoe', '--parallel-games', '4', '--sims', '8', '--leaves', '4', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '--max-game-age', '1000', '-q'];
      const az = (name: string, args: string[]): Az => {
        const p = new Az(name, args, work);
        running.push(p);
        return p;
      };
      const worker = az('worker', ['worker', '--connect', url, '--run', 'r1', '--devices', 'cpu:1', '--name', 'w1']);
      const learner = az('learner', ['train', ...tiny, '--transport', url, '--run-id', 'r1', '--iterations', '1000', '--games-per-iter', '12', '--out', out]);
      await learner.waitFor(/^iter 2:/);
      // A second learner on the run is refused before it touches the run or the stream.
      const second = spawnSync(process.execPath, [bin, 'train', ...tiny, '--resume', out, '--transport', url, '--run-id', 'r1', '--iterations', '2000'], { cwd: work, encoding: 'utf8', timeout: 120_000 });
      expect(second.status, second.stderr).toBe(2);
      expect(second.stderr).toContain(`az train: ${out} is being trained by another process: pid ${learner.child.pid} on host`);
      // Redis goes away under load and comes back on the same port with its append-only file.
      await server.stop();
      await server.launch();
      // Two iterations past the last one said before the restart: the learner goes on with the restarted
      // Redis (it may have finished iterations on games it held while Redis was away, so no fixed number).
      const before = learner.lines.length;
      const lastBefore = Math.max(0, ...learner.lines.map((l) => Number(/^iter (\d+):/.exec(l)?.[1] ?? 0)));
      await learner.waitFor(new RegExp(`^iter ${lastBefore + 2}:`));
      expect(learner.lines.length).toBeGreaterThan(before);
      learner.signal('SIGKILL');
      await learner.exited;
      expect(existsSync(join(out, 'train.lock'))).toBe(true); // left behind: nothing runs when a process is SIGKILLed
      const killedAt = JSON.parse(readFileSync(join(resolveResume(out).checkpointDir, 'manifest.json'), 'utf8')) as { iteration: number };

      // Resume: one more iteration (the backlog or the worker's new games fill it), then a clean stop.
      const resumed = az('learner-2', ['train', ...tiny, '--resume', out, '--transport', url, '--run-id', 'r1', '--iterations', String(killedAt.iteration + 1), '--games-per-iter', '1']);
      expect(await resumed.exited).toBe(0);
      // The killed learner's lock was stale: taken over with a warning naming it, and given back at the end.
      expect(resumed.lines.filter((l) => l.includes('was locked by a trainer that is no longer running'))).toEqual([expect.stringContaining(`(pid ${learner.child.pid} on host `)]);
      expect(existsSync(join(out, 'train.lock'))).toBe(false);
      worker.signal('SIGTERM');
      expect(await worker.exited).toBe(0);
      const sent = Number(/stopped after sending (\d+) games/.exec(await worker.waitFor(/stopped after sending/))?.[1]);

      const manifest = JSON.parse(readFileSync(join(resolveResume(out).checkpointDir, 'manifest.json'), 'utf8')) as {
        extra: { gamesPlayed: number; redisTransport: { accepted: Record<string, number> } };
      };
      const watermarks = manifest.extra.redisTransport.accepted;
      // Games still in the stream after the learner's last read (sent after it stopped): not lost, waiting for the next session.
      const client = new Redis({ host: '127.0.0.1', port: server.port, protocol: 2 });
      const key = 'az:{r1}:games';
      const pending = (await client.xpending(key, 'learner')) as [number];
      const groups = (await client.xinfo('GROUPS', key)) as unknown[][];
      const lastDelivered = String(groups[0][groups[0].indexOf('last-delivered-id') + 1]);
      const waiting = (await client.xrange(key, `(${lastDelivered}`, '+')) as [string, string[]][];
      client.disconnect();
      const waitingGames = new Set<string>();
      for (const [, fields] of waiting) {
        const f = new Map<string, string>();
        for (let i = 0; i + 1 < fields.length; i += 2) f.set(fields[i], fields[i + 1]);
        const k = `${f.get('w')}|${f.get('i')}`;
        if (Number(f.get('s')) > (watermarks[k] ?? -1)) waitingGames.add(`${k}|${f.get('s')}`);
      }
      // If the count is off, what the learners said about gaps, duplicates and connections tells why.
      const diagnosis = [
        `sent ${sent}, in the final checkpoint ${manifest.extra.gamesPlayed}, waiting in the stream ${waitingGames.size}, pending ${pending[0]}`,
        `watermarks ${JSON.stringify(watermarks)}, learner killed after checkpoint of iteration ${killedAt.iteration}`,
        ...[learner, resumed, worker].flatMap((p) => p.lines.filter((l) => /never arrived|duplicate|dropped|redis|resumed|summary|az train:|stopped after|^iter |epoch/.test(l)).slice(-40).map((l) => `${p.name}: ${l}`)),
      ].join('\n');
      expect(pending[0], diagnosis).toBe(0);
      expect(sent, diagnosis).toBeGreaterThan(0);
      expect(manifest.extra.gamesPlayed + waitingGames.size, diagnosis).toBe(sent);
      // The resumed learner took in the games its predecessor had read but not checkpointed.
      expect(resumed.lines.some((l) => /resumed from/.test(l))).toBe(true);
    },
    300_000,
  );
});

describe.skipIf(redis.path === undefined)('the run key (real redis-server)', () => {
  const work = mkdtempSync(join(tmpdir(), 'az-run-key-'));
  const running: Az[] = [];
  let server: RedisServerProcess | undefined;
  afterAll(async () => {
    for (const p of running) p.signal('SIGKILL');
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it('a learner given no key makes one in its run directory (mode 0600) and says how to hand it over; a worker with it plays, one with another key plays nothing', async () => {
    server = await RedisServerProcess.start({ executable: redis.path ?? '' });
    const url = server.url();
    const out = join(work, 'keyed');
    const tiny = ['--game', 'tictactoe', '--parallel-games', '4', '--sims', '8', '--leaves', '4', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '-q'];
    const az = (name: string, args: string[], env: NodeJS.ProcessEnv): Az => {
      const p = new Az(name, args, work, env);
      running.push(p);
      return p;
    };
    const noKeyEnv = { ...process.env, AZ_RUN_KEY: '' };
    const learner = az('learner', ['train', ...tiny, '--transport', url, '--run-id', 'keyed', '--iterations', '2', '--games-per-iter', '8', '--out', out], noKeyEnv);
    const keyFile = join(out, 'run.key');
    await learner.waitFor(/made this run's key in/);
    expect(learner.lines).toContain(`redis: made this run's key in ${keyFile} (readable by you only); workers need it: copy it to each worker machine and start them with az worker --run-key-file FILE (or AZ_RUN_KEY set to its contents)`);
    await learner.waitFor(new RegExp(`workers join with: az worker --connect ${url.replace(/[/.]/g, '\\$&')} --run keyed --run-key-file ${keyFile.replace(/[/.]/g, '\\$&')} --devices cpu:N`));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    const stranger = az('stranger', ['worker', '--connect', url, '--run', 'keyed', '--devices', 'cpu:1', '--name', 'stranger'], withKey);
    await stranger.waitFor(/refused the setup of run 'keyed' in Redis: it is not signed with this worker's run key \(AZ_RUN_KEY\); nothing is played from it/);
    const worker = az('worker', ['worker', '--connect', url, '--run', 'keyed', '--run-key-file', keyFile, '--devices', 'cpu:1', '--name', 'keyholder'], noKeyEnv);
    expect(await learner.exited, learner.lines.slice(-20).join('\n')).toBe(0);
    expect(learner.lines.filter((l) => /^iter \d+: .*keyholder\/cpu:0 \d+/.test(l))).toHaveLength(2);
    expect(learner.lines.join('\n')).not.toContain('stranger');
    for (const p of [worker, stranger]) {
      p.signal('SIGTERM');
      expect(await p.exited).toBe(0);
    }
    expect(stranger.lines).toContain('az worker: stopped after sending 0 games');
    expect(stranger.lines.filter((l) => /ready: pid/.test(l))).toEqual([]);
  }, 300_000);
});

describe.skipIf(redis.path === undefined || openssl.path === undefined)('az train / az worker over rediss:// with an ACL user (real redis-server with TLS)', () => {
  const work = mkdtempSync(join(tmpdir(), 'az-distributed-tls-'));
  const running: Az[] = [];
  let server: RedisServerProcess | undefined;
  let caFile = '';
  const tiny = ['--game', 'tictactoe', '--parallel-games', '4', '--sims', '8', '--leaves', '4', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '-q'];
  const az = (name: string, args: string[], env: NodeJS.ProcessEnv = withKey): Az => {
    const p = new Az(name, args, work, env);
    running.push(p);
    return p;
  };
  /** Runs `az args` to its end: exit code and everything it printed. */
  const finish = async (name: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> => {
    const p = az(name, args, env);
    const code = await p.exited;
    return { code, output: p.lines.join('\n') };
  };
  beforeAll(async () => {
    // A private CA signs the server's certificate: nothing on this machine trusts it unless told to.
    const certs = createTestCertificates(openssl.path ?? '', work);
    caFile = certs.caFile;
    server = await RedisServerProcess.start({ executable: redis.path ?? '', tls: certs, users: ['default off', 'az on >tls-secret ~az:* &az:* +@all'] });
  });
  afterAll(async () => {
    for (const p of running) p.signal('SIGKILL');
    await server?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it('the learner (--tls-ca) and a worker (AZ_REDIS_CA) train a run together over TLS as an ACL user', async () => {
    const url = server?.url('az:tls-secret') ?? '';
    expect(url).toMatch(/^rediss:\/\/az:tls-secret@127\.0\.0\.1:\d+\/0$/);
    const worker = az('tls-worker', ['worker', '--connect', url, '--run', 'tls1', '--devices', 'cpu:1', '--name', 'w-tls'], { ...withKey, AZ_REDIS_CA: caFile });
    const learner = az('tls-learner', ['train', ...tiny, '--transport', url, '--tls-ca', caFile, '--run-id', 'tls1', '--iterations', '2', '--games-per-iter', '8', '--out', join(work, 'tls1')]);
    expect(await learner.exited, learner.lines.slice(-20).join('\n')).toBe(0);
    // Both iterations were filled by the worker's games, which crossed the TLS connection.
    expect(learner.lines.filter((l) => /^iter \d+: .*w-tls\/cpu:0 \d+/.test(l))).toHaveLength(2);
    expect(learner.lines.some((l) => l.includes('rediss://az:***@127.0.0.1'))).toBe(true);
    worker.signal('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(Number(/stopped after sending (\d+) games/.exec(await worker.waitFor(/stopped after sending/))?.[1])).toBeGreaterThanOrEqual(16);
  }, 300_000);

  it('a wrong password, a missing CA or a bad CA file: exit 1 (2 for the file) with a message naming the problem', async () => {
    const port = server?.port ?? 0;
    const good = `rediss://az:tls-secret@127.0.0.1:${port}/0`;
    const join1 = (connect: string, extra: string[] = []): string[] => ['worker', '--connect', connect, '--run', 'tls2', '--devices', 'cpu:1', ...extra];
    const wrongPassword = await finish('wrong-password', join1(`rediss://az:nope@127.0.0.1:${port}/0`, ['--tls-ca', caFile]));
    expect(wrongPassword).toMatchObject({ code: 1, output: expect.stringContaining("cannot connect: redis rediss://az:***@127.0.0.1") });
    expect(wrongPassword.output).toMatch(/the server refused user 'az' with the password in the URL \(WRONGPASS/);
    const noPassword = await finish('no-password', join1(`rediss://127.0.0.1:${port}/0`, ['--tls-ca', caFile]));
    expect(noPassword).toMatchObject({ code: 1, output: expect.stringMatching(/the server requires a password \(NOAUTH/) });
    const untrusted = await finish('untrusted', join1(good));
    expect(untrusted).toMatchObject({ code: 1, output: expect.stringMatching(/TLS certificate is not trusted \(SELF_SIGNED_CERT_IN_CHAIN.*--tls-ca FILE or AZ_REDIS_CA=FILE/) });
    for (const r of [wrongPassword, noPassword, untrusted]) expect(r.output).not.toContain("Unhandled 'error' event");
    // The learner fails the same way, before training anything.
    const learner = await finish('learner-untrusted', ['train', ...tiny, '--transport', good, '--run-id', 'tls2', '--iterations', '1', '--games-per-iter', '4', '--out', join(work, 'tls2')]);
    expect(learner).toMatchObject({ code: 1, output: expect.stringMatching(/az train: .*TLS certificate is not trusted \(SELF_SIGNED_CERT_IN_CHAIN/) });
    expect(learner.output).not.toContain("Unhandled 'error' event");
    const notPem = await finish('not-pem', join1(good, ['--tls-ca', bin]));
    expect(notPem).toMatchObject({ code: 2, output: expect.stringContaining(`--tls-ca ${bin}: no PEM certificate`) });
    const plain = await finish('ca-on-plain', join1(`redis://127.0.0.1:${port}/0`, ['--tls-ca', caFile]));
    expect(plain).toMatchObject({ code: 2, output: expect.stringContaining('a CA only applies to TLS connections; use rediss://') });
  }, 300_000);
});

/**
 * The worker side of a Redis run (`az worker`, and the learner's own devices): reads the run's setup
 * from Redis, checks that this install has the same game plugin and encoder, runs self-play processes on
 * this machine's devices (a LocalIpcTransport: the same worker processes, restarts and heartbeats as
 * `az train --devices`), and bridges them to Redis: finished games go to the games stream, new weights
 * versions and pause/stop come from it.
 *
 * Each agent takes a unique serial number from Redis; a game is identified by
 * (`<machine>#<serial>/<slot>`, the slot's process incarnation, its sequence number in that process), so
 * the learner can drop a game sent twice (a resend after a lost reply) and notice a lost one.
 *
 * Back-pressure: when the stream holds more than `maxBacklog` unread-or-unacknowledged entries (the learner
 * is down or slow), the agent pauses its workers instead of trimming games nobody has read.
 */
import { resolveGameConfig, type GamePlugin } from '@az/core';
import type { BackendName } from '@az/nn';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Device } from './devices.js';
import { LocalIpcTransport } from './ipc-transport.js';
import {
  entryFields,
  groupIntoEntries,
  connectRedis,
  connected,
  currentWeightsSigned,
  defaultMachineName,
  parseCurrentWeights,
  runKeys,
  sha256,
  weightsByteLength,
  type RedisEndpoint,
  type RemoteHeartbeat,
  type RemoteRunSetup,
  type RunKeys,
} from './redis-common.js';
import { RUN_KEY_ENV, RunSigner, type RunKey } from './run-key.js';
import type { IncomingGame, PublishedWeights, WorkerEvent, WorkerSetup } from './transport.js';

/** This install's copy of a game plugin. */
export interface LocalPlugin {
  readonly packageName: string;
  readonly version: string;
  readonly exportName: string;
  /** The module the worker processes import it from. */
  readonly moduleUrl: string;
}

/** This machine cannot play the run (another plugin version, another encoder): restarting will not help. */
export class IncompatibleRunError extends Error {}

export interface RedisWorkerAgentOptions {
  readonly endpoint: RedisEndpoint;
  readonly run: string;
  readonly devices: readonly Device[];
  readonly workersPerDevice?: number;
  /** Shown to the learner and used in worker ids (default: the host name). */
  readonly machine?: string;
  /** The learner's run key: only a setup and weights it signed are played; games and heartbeats are signed with it. */
  readonly runKey: RunKey;
  /** Finds the run's game in this install (undefined: not installed). */
  readonly resolvePlugin: (gameId: string) => LocalPlugin | undefined;
  /** Backend of the worker processes (default: gpu on GPUs, wasm on CPUs). */
  readonly backendFor?: (device: Device) => string;
  /** Games in lock-step per process (default: the run's). */
  readonly parallelGames?: number;
  /** Pause self-play while the stream holds more entries than this (default 10,000). */
  readonly maxBacklog?: number;
  readonly seed?: number;
  readonly workerModule?: string;
  readonly execArgv?: readonly string[];
  readonly log?: (line: string) => void;
}

/** How long a finished game may wait for others to share its pipeline to Redis. */
const FLUSH_DELAY_MS = 10;

export class RedisWorkerAgent {
  /** Resolves once this agent's workers play for the first time. */
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private readonly keys: RunKeys;
  private readonly cmd: Redis;
  private readonly sub: Redis;
  private readonly machine: string;
  private serial = -1;
  /** With the serial in worker ids: a Redis that lost its data (restart without persistence) restarts the serials. */
  private readonly nonce = randomBytes(3).toString('hex');
  /** The learner epoch being played: part of the worker names, since each epoch's processes count games from 0. */
  private epoch = 0;
  /** Wakes the main loop when something arrives on the events channel (or on abort). */
  private wake: (() => void) | null = null;
  private local: LocalIpcTransport | null = null;
  private weightsVersion = -1;
  private learnerPaused = false;
  private backlogFull = false;
  private outbox: IncomingGame[] = [];
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private gameId = '';
  private backendName = '';
  private readonly backendByWorker = new Map<number, string>();
  private fatal: Error | null = null;
  gamesSent = 0;
  /** Events received: a key read that raced with an event must not undo it. */
  private eventsSeen = 0;
  private readonly signer: RunSigner;
  /** The last setup and weights announcement refused as unsigned: each refusal is said once. */
  private refusedSetup = '';
  private refusedWeights = '';
  /** Setups and weights versions refused because the run key did not sign them. */
  refusals = 0;

  constructor(private readonly options: RedisWorkerAgentOptions) {
    if (options.devices.length === 0) throw new RangeError('RedisWorkerAgent: no devices');
    this.keys = runKeys(options.run);
    this.signer = new RunSigner(options.runKey.secret, options.run);
    this.machine = options.machine ?? defaultMachineName();
    const log = (m: string): void => this.log(m);
    this.cmd = connectRedis(options.endpoint, `az-worker:${this.machine}`, log);
    this.sub = connectRedis(options.endpoint, `az-worker-sub:${this.machine}`, log);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.ready.catch(() => undefined);
  }

  /** Plays for the run until `signal` aborts; throws IncompatibleRunError when this install cannot play it. */
  async run(signal: AbortSignal): Promise<void> {
    const k = this.keys;
    const onAbort = (): void => this.poke();
    signal.addEventListener('abort', onAbort);
    this.sub.on('message', (_channel: string, message: string) => this.onEvent(message));
    try {
      // A server that is down keeps the first connection retrying: a stop must not wait for it.
      const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([Promise.all([connected(this.cmd), connected(this.sub)]), aborted]);
      if (signal.aborted) return;
      await this.sub.subscribe(k.events);
      this.serial = await this.cmd.incr(k.serial);
      let waitingSaid = false;
      while (!signal.aborted) {
        const [state, setupText] = await this.cmd.mget(k.state, k.setup);
        if (state !== 'running' || setupText === null) {
          if (!waitingSaid) this.log(`waiting for run '${this.options.run}' to start (learner: az train ... --transport ${this.options.endpoint.display} --run-id ${this.options.run})`);
          waitingSaid = true;
          await this.sleepUntilEvent(5000);
          continue;
        }
        waitingSaid = false;
        const setup = this.openSetup(setupText);
        if (!setup) {
          await this.sleepUntilEvent(5000);
          continue;
        }
        await this.playEpoch(setup, signal);
        if (this.fatal) throw this.fatal;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.stopLocal();
      // quit() waits to be sent, which never happens while the server is unreachable: drop such a client.
      await Promise.allSettled([this.cmd, this.sub].map((c) => (c.status === 'ready' ? c.quit() : Promise.resolve(c.disconnect()))));
    }
  }

  /** The run's setup if the learner holding the run key wrote it; otherwise says so (once per value) and gives undefined. */
  private openSetup(value: string): RemoteRunSetup | undefined {
    const text = this.signer.open('setup', value);
    if (text !== undefined) {
      try {
        return JSON.parse(text) as RemoteRunSetup;
      } catch {
        // Signed but unreadable: a learner of another az version; refused below like a forgery.
      }
    }
    if (value !== this.refusedSetup) {
      this.refusedSetup = value;
      this.refusals++;
      this.log(`refused the setup of run '${this.options.run}' in Redis: it is not signed with this worker's run key (${this.options.runKey.source}); nothing is played from it. ${this.keyAdvice()}`);
    }
    return undefined;
  }

  /** What to check when something is not signed with this worker's key. */
  private keyAdvice(): string {
    return `Give this worker the learner's key (--run-key-file FILE, or ${RUN_KEY_ENV}); if it has it, someone without the key is writing to the run's keys in Redis: restrict who may write there (docs/distributed.md)`;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** Waits for an event on the run's channel, or `ms` (a fallback poll: a message may be missed during a reconnect). */
  private sleepUntilEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private onEvent(message: string): void {
    this.eventsSeen++;
    const [kind, value] = message.split(' ');
    if (kind === 'paused') {
      this.learnerPaused = value === '1';
      this.applyPause();
    }
    this.poke();
  }

  private applyPause(): void {
    this.local?.setPaused(this.learnerPaused || this.backlogFull);
  }

  /** Checks that this install can play the run: same plugin package and version, same encoder. */
  private async checkCompatible(setup: RemoteRunSetup): Promise<LocalPlugin> {
    const mine = this.options.resolvePlugin(setup.gameId);
    const theirs = `${setup.plugin.packageName}@${setup.plugin.version}`;
    if (!mine) throw new IncompatibleRunError(`run '${this.options.run}' trains '${setup.gameId}' (${theirs}), which is not installed here: npm install ${theirs}`);
    if (mine.packageName !== setup.plugin.packageName || mine.version !== setup.plugin.version) {
      throw new IncompatibleRunError(`run '${this.options.run}' trains '${setup.gameId}' with ${theirs}, but this machine has ${mine.packageName}@${mine.version}: install the learner's version (npm install ${theirs})`);
    }
    let plugin: GamePlugin;
    try {
      const mod = (await import(mine.moduleUrl)) as Record<string, unknown>;
      plugin = mod[mine.exportName] as GamePlugin;
      // The worker processes register it in their own registry (contract version, traits); here only the id matters.
      if (plugin?.traits?.id !== setup.gameId) throw new Error(`it is game '${String(plugin?.traits?.id)}', not '${setup.gameId}'`);
    } catch (err) {
      throw new IncompatibleRunError(`cannot load ${mine.packageName} export '${mine.exportName}' from ${mine.moduleUrl}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const game = plugin.create(resolveGameConfig(plugin, setup.gameConfig));
    if (game.encoder.version !== setup.encoderVersion) {
      throw new IncompatibleRunError(`this machine's '${setup.gameId}' encodes positions as version '${game.encoder.version}' but run '${this.options.run}' uses '${setup.encoderVersion}'; install ${theirs} as the learner has it`);
    }
    return mine;
  }

  /** The current weights version from Redis, checked against its checksum and the run's layout; null when not (yet) readable. */
  private async fetchWeights(setup: RemoteRunSetup): Promise<PublishedWeights | null> {
    const current = parseCurrentWeights(await this.cmd.get(this.keys.weightsCurrent));
    if (!current) return null;
    if (!currentWeightsSigned(current, this.signer)) {
      if (current.line !== this.refusedWeights) {
        this.refusedWeights = current.line;
        this.refusals++;
        this.log(`refused weights v${current.version} in Redis: not signed with this worker's run key (${this.options.runKey.source}); they are not played. ${this.keyAdvice()}`);
      }
      return null;
    }
    const data = await this.cmd.getBuffer(this.keys.weights(current.version));
    if (!data) return null; // superseded between the two reads: the next announcement brings the newer one
    const expected = weightsByteLength(setup.weightSpecs);
    if (data.byteLength !== current.bytes || data.byteLength !== expected || sha256(data) !== current.sha256) {
      this.log(`weights v${current.version} in Redis fail their check (${data.byteLength} bytes, expected ${expected}, checksum ${sha256(data) === current.sha256 ? 'ok' : 'wrong'}): ignored`);
      return null;
    }
    // A copy with its own aligned buffer (ioredis buffers may sit in a shared pool).
    return { version: current.version, data: new Uint8Array(data) };
  }

  private async playEpoch(setup: RemoteRunSetup, signal: AbortSignal): Promise<void> {
    const k = this.keys;
    const plugin = await this.checkCompatible(setup);
    let weights = await this.fetchWeights(setup);
    while (!weights && !signal.aborted) {
      await this.sleepUntilEvent(2000);
      weights = await this.fetchWeights(setup);
    }
    if (!weights || signal.aborted) return;
    this.gameId = setup.gameId;
    // The previous epoch's games are all sent (stopLocal): from here on, names carry the new epoch.
    this.epoch = setup.epoch;
    this.weightsVersion = weights.version;
    this.learnerPaused = (await this.cmd.get(k.paused)) === '1';
    const settings = this.options.parallelGames ? { ...setup.options, parallelGames: this.options.parallelGames } : setup.options;
    const workerSetup: WorkerSetup = {
      plugin: { moduleUrl: plugin.moduleUrl, exportName: plugin.exportName },
      gameId: setup.gameId,
      gameConfig: setup.gameConfig,
      encoderVersion: setup.encoderVersion,
      network: setup.network,
      weightSpecs: setup.weightSpecs,
      settings,
    };
    const perDevice = this.options.workersPerDevice ?? 1;
    const slots = this.options.devices.flatMap((device, d) => Array.from({ length: perDevice }, (_, w) => ({ id: d * perDevice + w, device })));
    const local = new LocalIpcTransport({
      slots,
      backendFor: (device) => (this.options.backendFor?.(device) ?? (device.kind === 'gpu' ? 'gpu' : 'wasm')) as BackendName,
      heartbeatTimeoutMs: setup.heartbeatTimeoutMs,
      seed: ((this.options.seed ?? 0) * 7919 + this.serial * 104_729 + setup.epoch) >>> 0,
      workerModule: this.options.workerModule,
      execArgv: this.options.execArgv,
      log: (line) => this.log(line),
    });
    this.local = local;
    local.onGame((game) => {
      this.outbox.push(game);
      // Games of a few milliseconds go out as one pipeline: fewer writes here, in Redis and in the learner's
      // reads (small fast games such as tic-tac-toe finish hundreds a second).
      if (!this.flushing && !this.flushTimer) this.flushTimer = setTimeout(() => this.flushNow(), FLUSH_DELAY_MS);
    });
    local.onWorkerEvent((e) => this.onLocalEvent(e));
    this.log(`run '${this.options.run}' (epoch ${setup.epoch}): ${setup.gameId} with ${setup.plugin.packageName}@${setup.plugin.version}, weights v${weights.version}; ${slots.length} worker process${slots.length > 1 ? 'es' : ''} as ${this.machine}#${this.serial}.${this.nonce}`);
    const started = local.start(workerSetup, weights);
    started.catch(() => undefined);
    // Every second at most: the beats also carry the counters the learner's rates come from (100 workers: 100 small SETs a second).
    const heartbeatMs = Math.max(50, Math.min(1000, Math.floor(setup.heartbeatTimeoutMs / 4)));
    const beat = setInterval(() => void this.heartbeat(setup.heartbeatTimeoutMs, 'running'), heartbeatMs);
    try {
      await Promise.race([started, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
      if (this.fatal || signal.aborted) return;
      this.applyPause();
      this.markReady();
      void this.heartbeat(setup.heartbeatTimeoutMs, 'running');
      // Follow the run: new weights, pause and stop come as events; the keys are re-read on every wake-up
      // (and every few seconds), so a message missed while reconnecting costs a delay, not a wrong state.
      while (!signal.aborted && !this.fatal) {
        const before = this.eventsSeen;
        const [state, epochText, pausedText] = await this.cmd.mget(k.state, k.epoch, k.paused);
        if (state !== 'running' || Number(epochText) !== setup.epoch) break;
        if (this.eventsSeen === before) this.learnerPaused = pausedText === '1';
        if (this.backlogFull) await this.checkBacklog();
        this.applyPause();
        const current = parseCurrentWeights(await this.cmd.get(k.weightsCurrent));
        if (current && current.version !== this.weightsVersion) {
          const next = await this.fetchWeights(setup);
          if (next && next.version !== this.weightsVersion) {
            this.weightsVersion = next.version;
            local.publishWeights(next);
          }
        }
        await this.sleepUntilEvent(this.backlogFull ? 500 : 3000);
      }
    } finally {
      clearInterval(beat);
      await this.stopLocal();
      // Said after the last games went out, so the learner never reports a live worker as lost.
      await this.heartbeat(5000, 'stopped', local).catch(() => undefined);
    }
  }

  private async stopLocal(): Promise<void> {
    const local = this.local;
    if (!local) return;
    this.local = null;
    await local.stop();
    // Games the workers finished before stopping go out before anything else happens.
    this.flushNow();
    while (this.flushing) await this.flushing;
  }

  private onLocalEvent(e: WorkerEvent): void {
    switch (e.kind) {
      case 'ready':
        this.backendByWorker.set(e.workerId, e.backend);
        this.backendName = e.backend;
        this.log(`worker ${e.workerId} (${e.device}) ready: pid ${e.pid}, search on ${e.backend}, weights v${e.weightsVersion}${e.incarnation ? `, restart ${e.incarnation}` : ''}`);
        void this.heartbeat(undefined, 'running');
        return;
      case 'exited':
        if (e.reason !== 'stopped') this.log(`worker ${e.workerId} (${e.device}) pid ${e.pid} ${e.reason} after sending ${e.gamesSent} games${e.detail ? `\n${e.detail}` : ''}`);
        return;
      case 'fatal':
        this.fatal = new IncompatibleRunError(e.message);
        this.poke();
        return;
      default:
        return;
    }
  }

  /** One heartbeat key per worker process, with the learner's timeout as TTL. */
  private async heartbeat(ttlMs: number | undefined, state: 'running' | 'stopped', local = this.local): Promise<void> {
    const statuses = local?.workers() ?? [];
    if (statuses.length === 0 || this.serial < 0) return;
    const ttl = ttlMs ?? 60_000;
    const tx = this.cmd.multi();
    for (const w of statuses) {
      const beat: RemoteHeartbeat = {
        machine: this.machine,
        device: w.device,
        pid: w.pid ?? -1,
        incarnation: w.incarnation,
        state: state === 'stopped' ? 'stopped' : w.state === 'running' ? (this.learnerPaused || this.backlogFull ? 'paused' : 'running') : 'starting',
        weightsVersion: w.weightsVersion,
        backend: this.backendByWorker.get(w.id) ?? this.backendName,
        ...w.stats,
      };
      const name = this.workerName(w.id);
      tx.set(this.keys.worker(name), this.signer.seal('heartbeat', JSON.stringify(beat), name), 'PX', ttl);
    }
    await tx.exec().catch(() => undefined);
  }

  private workerName(slot: number): string {
    return `${this.machine}#${this.serial}.${this.nonce}.${this.epoch}/${slot}`;
  }

  /** Starts sending the queued games now (unless a send is under way: it takes them too). */
  private flushNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (!this.flushing && this.outbox.length > 0) this.flushing = this.flush();
  }

  /** Sends queued games in order, a pipeline at a time; waits (queued in ioredis) while Redis is away. */
  private async flush(): Promise<void> {
    try {
      while (this.outbox.length > 0) {
        const batch = this.outbox;
        this.outbox = [];
        const pipeline = this.cmd.pipeline();
        // Several games to an entry: one XADD, and one entry for the learner to read, acknowledge and
        // trim; the per-entry cost, not the bytes, is what small fast games pay for.
        for (const entry of groupIntoEntries(batch)) {
          const head = entry[0];
          const games = entry.map((g) => ({ seq: g.seq, version: g.weightsVersion, bytes: g.bytes }));
          pipeline.xadd(this.keys.games, '*', ...entryFields(this.signer, this.workerName(head.workerId), head.device, head.incarnation, this.gameId, games));
        }
        pipeline.xlen(this.keys.games);
        const results = await pipeline.exec();
        const failed = results?.find(([err]) => err !== null);
        if (failed) {
          // Not sent: put the batch back in front and try again after a pause (same ids, so no duplicates reach the buffer).
          this.outbox = batch.concat(this.outbox);
          this.log(`sending ${batch.length} games failed (${String(failed[0])}); retrying`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        this.gamesSent += batch.length;
        const length = Number(results?.[results.length - 1]?.[1] ?? 0);
        const full = length > (this.options.maxBacklog ?? 10_000);
        if (full !== this.backlogFull) {
          this.backlogFull = full;
          this.log(full ? `the games stream holds ${length} entries (more than ${this.options.maxBacklog ?? 10_000}): pausing until the learner catches up` : 'the learner caught up: playing again');
          this.applyPause();
        }
      }
    } finally {
      this.flushing = null;
    }
  }

  private async checkBacklog(): Promise<void> {
    const length = await this.cmd.xlen(this.keys.games);
    if (length <= 0.8 * (this.options.maxBacklog ?? 10_000)) {
      this.backlogFull = false;
      this.log('the learner caught up: playing again');
    }
  }
}

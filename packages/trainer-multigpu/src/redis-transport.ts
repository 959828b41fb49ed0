// Over 450 lines: the learner side of the Redis protocol (intake, acknowledgement only after a checkpoint holds a game, weights publication, heartbeats) is one state machine, read together.
/**
 * `SelfPlayTransport` over Redis: workers on any number of machines (`az worker`, RedisWorkerAgent)
 * join a run by its name; the learner reads their games from a stream and publishes weights versions.
 * The learner's own devices, if any, are served by an in-process RedisWorkerAgent, so every game takes
 * the same path.
 *
 * Exactly-once into the checkpoint: games are acknowledged (XACK) only once a checkpoint holding them is
 * on disk (`checkpointed`). The checkpoint carries, per (worker, incarnation), the highest sequence
 * number it holds (`checkpointState`); a restarted learner re-reads its unacknowledged games and drops
 * those the checkpoint already has. So a learner crash loses nothing and adds nothing twice.
 *
 * Every stream entry is validated before it is trusted: a record with missing fields, another game, a
 * weights version this run never published, or a record that is not sound (its header against the run's
 * shapes, then every value, offset and index: `gameRecordContentProblem`) is dropped and reported
 * ('dropped' events, naming the worker, incarnation and game), and the learner goes on. An entry of which
 * no game was taken in is acknowledged at once, so a resumed learner never reads it again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { decodeGameRecord, gameRecordContentProblem, gameRecordProblem, type GameRecord, type RecordLimits } from './game-record.js';
import { resolveResume } from './run-dir.js';
import type { Device } from './devices.js';
import {
  FIELD,
  GAMES_CONSUMER,
  currentWeightsSigned,
  entryGames,
  entrySigned,
  parseCount,
  type EntryGame,
  GAMES_GROUP,
  connectRedis,
  connected,
  formatCurrentWeights,
  parseCurrentWeights,
  runKeys,
  type RedisEndpoint,
  type RemoteHeartbeat,
  type RemoteRunSetup,
  type RunKeys,
} from './redis-common.js';
import { RedisWorkerAgent } from './redis-worker-agent.js';
import { RUN_KEY_ENV, RunSigner, type RunKey } from './run-key.js';
import type { IncomingGame, PublishedWeights, SelfPlayTransport, WorkerEvent, WorkerPlayStats, WorkerSetup, WorkerStatus } from './transport.js';
import { workerPlayStatsOf } from './transport.js';

/** What a checkpoint carries for this transport: the highest sequence number held per `worker|incarnation`. */
export interface RedisCheckpointState {
  readonly run: string;
  readonly accepted: Readonly<Record<string, number>>;
}

/** What `az train --transport` gives the multi-process loop. */
export interface RedisRunOptions {
  readonly endpoint: RedisEndpoint;
  /** The run's name: workers join with `az worker --run NAME`. */
  readonly run: string;
  /** The game as workers find it in their own install. */
  readonly plugin: { readonly packageName: string; readonly version: string; readonly exportName: string };
  /** Weights versions kept in Redis besides the current one (default 2), for workers that read the current key just before it moved. */
  readonly keepOldWeights?: number;
  /**
   * The run key (run-key.ts) the learner signs the setup and weights with and checks every entry and
   * heartbeat against. Absent, `az train` uses the run directory's (made on the first start).
   */
  readonly runKey?: RunKey;
  /**
   * Entries read per XREADGROUP (default 4, up to 4 x GAMES_PER_ENTRY = 128 games: a batch is delivered
   * whole, so it bounds how far an iteration overshoots).
   */
  readonly readBatch?: number;
}

/** The transport's part of a checkpoint's extra (undefined when the checkpoint was written by another transport or run). */
export function readRedisCheckpointState(resume: string, run: string): RedisCheckpointState | undefined {
  const manifest = JSON.parse(readFileSync(join(resolveResume(resume).checkpointDir, 'manifest.json'), 'utf8')) as { extra?: { redisTransport?: RedisCheckpointState } };
  const state = manifest.extra?.redisTransport;
  return state && state.run === run && typeof state.accepted === 'object' ? state : undefined;
}

export interface RedisTransportOptions extends RedisRunOptions {
  readonly runKey: RunKey;
  /** A worker whose heartbeat key has been silent this long is reported lost (the key's TTL). */
  readonly heartbeatTimeoutMs: number;
  /** The learner's own self-play devices (served through Redis by an in-process agent). */
  readonly localDevices?: readonly Device[];
  readonly workersPerDevice?: number;
  /** Backend of local worker processes on a device. */
  readonly backendFor?: (device: Device) => string;
  readonly seed?: number;
  readonly workerExecArgv?: readonly string[];
  /** From the checkpoint being resumed: which games it already holds. */
  readonly resume?: RedisCheckpointState;
  readonly log?: (line: string) => void;
}

interface RemoteWorker {
  readonly id: number;
  readonly name: string;
  machine: string;
  device: string;
  pid: number;
  incarnation: number;
  state: WorkerStatus['state'];
  restarts: number;
  gamesReceived: number;
  weightsVersion: number;
  stats: WorkerPlayStats;
  stoppedCleanly: boolean;
  /** When its latest game was taken in (ms since the epoch): a worker known only from games is gone once they stop. */
  lastGameAt: number;
}

export class RedisTransport implements SelfPlayTransport {
  private readonly keys: RunKeys;
  private readonly cmd: Redis;
  private readonly reader: Redis;
  private readonly gameListeners: ((game: IncomingGame) => void)[] = [];
  private readonly eventListeners: ((event: WorkerEvent) => void)[] = [];
  private readonly workersByName = new Map<string, RemoteWorker>();
  /** Highest sequence number delivered per `worker|incarnation`. */
  private readonly accepted = new Map<string, number>();
  /** Stream ids delivered since the last checkpoint: acknowledged when the next one is on disk. */
  private delivered: string[] = [];
  /** Stream ids in the checkpoint being written (from `checkpointState`), acknowledged by `checkpointed`. */
  private toAcknowledge: string[] = [];
  private setup: RemoteRunSetup | null = null;
  private expected: RecordLimits = { inputSize: 0, numSeats: 0, actionSize: 0 };
  /** Highest weights version this run has announced (games claiming a later one are forged). */
  private maxVersion = 0;
  private paused = false;
  private stopping = false;
  private draining = false;
  private readLoop: Promise<void> | null = null;
  private rescan = false;
  /** Counts the reader's lost connections: a read that outlived one may be a resent command (see readGames). */
  private readerConnection = 0;
  private gate: { promise: Promise<void>; open: () => void } | null = null;
  private publishChain: Promise<void> = Promise.resolve();
  /** Acknowledgements of entries that held no game taken in, in order. */
  private acknowledging: Promise<void> = Promise.resolve();
  private scanTimer: NodeJS.Timeout | null = null;
  private lastMachineLine = '';
  private agent: RedisWorkerAgent | null = null;
  private agentDone: Promise<void> | null = null;
  private readonly agentAbort = new AbortController();
  private readonly signer: RunSigner;
  /** Per heartbeat key, the last value refused as unsigned: a forged key is counted once, not at every scan. */
  private readonly refusedBeats = new Map<string, string>();

  constructor(private readonly options: RedisTransportOptions) {
    this.keys = runKeys(options.run);
    this.signer = new RunSigner(options.runKey.secret, options.run);
    const log = options.log ?? (() => undefined);
    this.cmd = connectRedis(options.endpoint, `az-learner:${options.run}`, log);
    this.reader = connectRedis(options.endpoint, `az-learner-reader:${options.run}`, log);
    // After a reconnect, re-read this consumer's pending entries: a read whose reply was lost is there.
    this.reader.on('ready', () => (this.rescan = true));
    this.reader.on('close', () => this.readerConnection++);
    for (const [key, seq] of Object.entries(options.resume?.accepted ?? {})) this.accepted.set(key, seq);
  }

  onGame(listener: (game: IncomingGame) => void): void {
    this.gameListeners.push(listener);
  }

  onWorkerEvent(listener: (event: WorkerEvent) => void): void {
    this.eventListeners.push(listener);
  }

  async start(setup: WorkerSetup, weights: PublishedWeights): Promise<void> {
    if (this.setup) throw new Error('RedisTransport.start called twice');
    const k = this.keys;
    // A wrong password or an untrusted certificate fails here, naming the problem, instead of retrying forever.
    await Promise.all([connected(this.cmd), connected(this.reader)]);
    const epoch = await this.cmd.incr(k.epoch);
    // Versions announced before a learner restart stay valid: games played with them are real games.
    const previous = parseCurrentWeights(await this.cmd.get(k.weightsCurrent));
    this.maxVersion = Math.max(weights.version, previous && currentWeightsSigned(previous, this.signer) ? previous.version : 0);
    this.setup = {
      format: 1,
      epoch,
      gameId: setup.gameId,
      plugin: this.options.plugin,
      gameConfig: setup.gameConfig,
      encoderVersion: setup.encoderVersion,
      network: setup.network,
      weightSpecs: setup.weightSpecs,
      options: setup.settings,
      heartbeatTimeoutMs: this.options.heartbeatTimeoutMs,
    };
    this.expected = { inputSize: setup.network.inputShape.reduce((a, b) => a * b, 1), numSeats: setup.network.numSeats, actionSize: setup.network.actionSize };
    try {
      await this.cmd.xgroup('CREATE', k.games, GAMES_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String(err).includes('BUSYGROUP')) throw err;
    }
    await this.writeWeights(weights);
    await this.cmd.multi().set(k.setup, this.signer.seal('setup', JSON.stringify(this.setup))).set(k.paused, this.paused ? '1' : '0').set(k.state, 'running').publish(k.events, `epoch ${epoch}`).exec();
    const key = this.options.runKey;
    const keyHint = key.file !== undefined ? ` --run-key-file ${key.file}` : '';
    const envHint = key.file === undefined ? ` (with ${RUN_KEY_ENV} set to this run's key)` : ' (a copy of that file on their machine)';
    this.options.log?.(
      `redis: run '${this.options.run}' on ${this.options.endpoint.display} (epoch ${epoch}); workers join with: az worker --connect ${this.options.endpoint.display} --run ${this.options.run}${keyHint} --devices cpu:N${envHint}`,
    );
    this.readLoop = this.readGames();
    const tick = Math.min(1000, Math.max(50, Math.floor(this.options.heartbeatTimeoutMs / 8)));
    this.scanTimer = setInterval(() => void this.scanWorkers(), tick);
    void this.scanWorkers();
    const local = this.options.localDevices ?? [];
    if (local.length > 0) {
      this.agent = new RedisWorkerAgent({
        endpoint: this.options.endpoint,
        run: this.options.run,
        devices: local,
        workersPerDevice: this.options.workersPerDevice,
        resolvePlugin: () => ({ ...this.options.plugin, moduleUrl: setup.plugin.moduleUrl }),
        runKey: this.options.runKey,
        backendFor: this.options.backendFor,
        seed: this.options.seed,
        execArgv: this.options.workerExecArgv,
        log: this.options.log,
      });
      this.agentDone = this.agent.run(this.agentAbort.signal).catch((err: unknown) => {
        this.emit({ kind: 'fatal', message: `local workers: ${err instanceof Error ? err.message : String(err)}` });
      });
      await Promise.race([this.agent.ready, this.agentDone]);
    }
  }

  publishWeights(weights: PublishedWeights): void {
    this.maxVersion = Math.max(this.maxVersion, weights.version);
    this.publishChain = this.publishChain.then(
      () => this.writeWeights(weights),
      () => this.writeWeights(weights),
    );
  }

  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (!this.setup) return;
    const k = this.keys;
    this.publishChain = this.publishChain.then(async () => {
      await this.cmd.multi().set(k.paused, paused ? '1' : '0').publish(k.events, `paused ${paused ? 1 : 0}`).exec();
    });
  }

  workers(): readonly WorkerStatus[] {
    return [...this.workersByName.values()].map((w) => ({
      id: w.id,
      device: `${w.machine}/${w.device}`,
      pid: w.pid,
      incarnation: w.incarnation,
      state: w.state,
      restarts: w.restarts,
      gamesReceived: w.gamesReceived,
      weightsVersion: w.weightsVersion,
      stats: w.stats,
    }));
  }

  /**
   * Stops the local workers (their finished games reach the stream first), tells remote workers the run
   * stopped, and delivers every game already in the stream. The connections stay open for `checkpointed`.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.agentAbort.abort();
    await this.agentDone;
    await this.publishChain.catch(() => undefined);
    if (this.setup) await this.cmd.multi().set(this.keys.state, 'stopped').publish(this.keys.events, 'state stopped').exec();
    this.draining = true;
    await this.readLoop;
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = null;
  }

  /** Called while the checkpoint's extra is assembled: holds further deliveries until `checkpointed`. */
  checkpointState(): Readonly<Record<string, unknown>> {
    if (!this.gate) {
      let open = (): void => undefined;
      const promise = new Promise<void>((resolve) => (open = resolve));
      this.gate = { promise, open };
    }
    // Exactly these entries are in the checkpoint being written: they are the ones to acknowledge.
    this.toAcknowledge = this.toAcknowledge.concat(this.delivered);
    this.delivered = [];
    const state: RedisCheckpointState = { run: this.options.run, accepted: Object.fromEntries(this.accepted) };
    return { redisTransport: state };
  }

  /** The checkpoint with every game delivered so far is on disk: acknowledge them and trim the stream. */
  async checkpointed(): Promise<void> {
    const ids = this.toAcknowledge;
    this.toAcknowledge = [];
    try {
      const k = this.keys;
      for (let i = 0; i < ids.length; i += 1000) await this.cmd.xack(k.games, GAMES_GROUP, ...ids.slice(i, i + 1000));
      await this.trimAcknowledged();
    } catch (err) {
      // Unacknowledged games are re-read after a restart and dropped as duplicates: nothing is lost.
      this.toAcknowledge = ids.concat(this.toAcknowledge);
      this.options.log?.(`redis: acknowledging ${ids.length} entries of games failed (${err instanceof Error ? err.message : String(err)}); will retry after the next checkpoint`);
    } finally {
      const gate = this.gate;
      this.gate = null;
      gate?.open();
    }
  }

  async close(): Promise<void> {
    if (!this.stopping) await this.stop();
    this.gate?.open();
    await this.acknowledging;
    await Promise.allSettled([this.cmd.quit(), this.reader.quit()]);
  }

  /** Counters for tests and the benchmark (`pendingAcks`: stream entries delivered, not yet in a checkpoint). */
  stats(): { readonly pendingAcks: number; readonly workersKnown: number; readonly maxVersion: number } {
    return { pendingAcks: this.delivered.length, workersKnown: this.workersByName.size, maxVersion: this.maxVersion };
  }

  private emit(event: WorkerEvent): void {
    for (const listener of this.eventListeners) listener(event);
  }

  private async writeWeights(weights: PublishedWeights): Promise<void> {
    const k = this.keys;
    const keep = this.options.keepOldWeights ?? 2;
    const tx = this.cmd
      .multi()
      .set(k.weights(weights.version), Buffer.from(weights.data.buffer, weights.data.byteOffset, weights.data.byteLength))
      .set(k.weightsCurrent, formatCurrentWeights(weights.version, weights.data, this.signer))
      .publish(k.events, `weights ${weights.version}`);
    if (weights.version - keep - 1 >= 0) tx.del(k.weights(weights.version - keep - 1));
    await tx.exec();
  }

  /** Deletes stream entries older than every entry still unacknowledged (XTRIM MINID). */
  private async trimAcknowledged(): Promise<void> {
    const k = this.keys;
    // One transaction: read apart, a read served between the two (its entries pending after the XPENDING
    // but below the XINFO's last-delivered id) would be trimmed, and lost if its reply then went missing.
    const replies = await this.cmd.multi().xpending(k.games, GAMES_GROUP).xinfo('GROUPS', k.games).exec();
    const failed = replies?.find(([err]) => err !== null);
    if (!replies || failed) throw failed?.[0] ?? new Error('XPENDING/XINFO transaction aborted');
    const pending = replies[0][1] as [number, string | null, string | null, unknown];
    const groups = replies[1][1] as unknown[][];
    let lastDelivered: string | null = null;
    for (const g of groups) {
      const fields = new Map<string, unknown>();
      for (let i = 0; i + 1 < g.length; i += 2) fields.set(String(g[i]), g[i + 1]);
      if (fields.get('name') === GAMES_GROUP) lastDelivered = String(fields.get('last-delivered-id'));
    }
    if (lastDelivered === null) return;
    const floor = pending[0] > 0 && pending[1] ? minStreamId(pending[1], lastDelivered) : lastDelivered;
    await this.cmd.xtrim(k.games, 'MINID', '~', floor);
  }

  private async readGames(): Promise<void> {
    const k = this.keys;
    const count = this.options.readBatch ?? 4;
    // This consumer's unacknowledged entries first (a restarted learner's), then new ones.
    let cursor = '0';
    let failures = 0;
    for (;;) {
      if (this.gate) await this.gate.promise;
      if (this.rescan) {
        this.rescan = false;
        cursor = '0';
      }
      const blocking = cursor === '>' && !this.draining;
      const connection = this.readerConnection;
      let reply: unknown;
      try {
        reply = await this.reader.callBuffer('XREADGROUP', 'GROUP', GAMES_GROUP, GAMES_CONSUMER, 'COUNT', count, ...(blocking ? ['BLOCK', 1000] : []), 'STREAMS', k.games, cursor);
        failures = 0;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (message.includes('NOGROUP')) {
          // The stream or group vanished (Redis restarted without persistence, or FLUSHALL): make them again.
          this.options.log?.(`redis: the games stream or its consumer group is gone; recreating it (games not yet read are lost)`);
          await this.cmd.xgroup('CREATE', k.games, GAMES_GROUP, '0', 'MKSTREAM').catch(() => undefined);
        } else if (this.draining && this.stopping && /closed|ended/i.test(message)) {
          return;
        }
        failures++;
        await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 100 * 2 ** Math.min(6, failures))));
        cursor = '0';
        continue;
      }
      // A read that was in flight when a checkpoint began waits for it: its games belong to the next one.
      if (this.gate) await this.gate.promise;
      if (cursor === '>' && connection !== this.readerConnection) {
        // The connection dropped while this read was in flight and the client sent it again. If the first
        // send was served (its entries now pending, its reply lost), this reply holds only later entries:
        // taking them now would put them before the lost ones and the lost ones would look like
        // duplicates. Read every pending entry again instead, in stream order (this reply's are among them).
        cursor = '0';
        continue;
      }
      const entries = parseStreamReply(reply);
      if (cursor !== '>') {
        if (entries.length === 0) cursor = '>';
        else cursor = entries[entries.length - 1].id;
      } else if (entries.length === 0 && this.draining) {
        return;
      }
      for (const entry of entries) this.handleEntry(entry.id, entry.fields);
    }
  }

  private handleEntry(id: string, fields: Map<string, Buffer> | null): void {
    this.delivered.push(id);
    // An entry none of whose games was taken in is acknowledged at once: a resumed learner must not read a
    // forged or broken record again (its good games, if any, are acknowledged with the checkpoint that holds them).
    if (!this.takeEntry(id, fields)) {
      // Failing, it is acknowledged with the next checkpoint (it is among `delivered`).
      this.acknowledging = this.acknowledging.then(() => this.cmd.xack(this.keys.games, GAMES_GROUP, id)).then(
        () => undefined,
        () => undefined,
      );
    }
  }

  /** The games of one entry, each checked on its own; true when any of them was handed to the listeners. */
  private takeEntry(id: string, fields: Map<string, Buffer> | null): boolean {
    // Trimmed while pending: nothing to read (only possible when something else trimmed the stream).
    if (fields === null) return this.dropped('invalid', 'unknown', `entry ${id} was deleted before it was read`);
    const text = (name: string): string | undefined => fields.get(name)?.toString('latin1');
    const worker = text(FIELD.worker);
    const device = text(FIELD.device);
    const incarnation = parseCount(text(FIELD.incarnation)) ?? -1;
    const source = worker && worker.length <= 200 ? worker : 'unknown';
    // Signed by a worker holding the run key, or not taken in at all (its count of games is not trusted either).
    if (!entrySigned(fields, this.signer)) return this.dropped('invalid', source, `entry ${id}: not signed with the run key (written by someone without it, or by a worker given another key)`);
    if (!worker || worker.length > 200 || !device || device.length > 64 || incarnation < 0) {
      return this.dropped('invalid', source, `entry ${id}: missing or malformed fields`);
    }
    const games = entryGames(text(FIELD.seq), text(FIELD.version), text(FIELD.lengths), fields.get(FIELD.bytes));
    if (typeof games === 'string') return this.dropped('invalid', source, `entry ${id}: ${games}`);
    if (text(FIELD.game) !== this.setup?.gameId) {
      // Counted per game, as every other drop is.
      for (let k = 0; k < games.length; k++) this.dropped('invalid', source, `entry ${id}: game '${text(FIELD.game)}' is not this run's '${this.setup?.gameId}'`);
      return false;
    }
    let taken = false;
    for (const g of games) taken = this.takeGame(id, worker, device, incarnation, source, g) || taken;
    return taken;
  }

  /** One game of an entry: checked, de-duplicated by (worker, incarnation, seq), then handed to the listeners (true). */
  private takeGame(id: string, worker: string, device: string, incarnation: number, source: string, g: EntryGame): boolean {
    const { seq, version, bytes } = g;
    const which = `entry ${id}, game ${seq} of ${worker} incarnation ${incarnation}`;
    if (version > this.maxVersion) return this.dropped('invalid', source, `${which}: weights version ${version} was never published (newest ${this.maxVersion})`);
    const record = this.soundRecord(bytes, version);
    if (typeof record === 'string') return this.dropped('invalid', source, `${which}: ${record}`);
    const key = `${worker}|${incarnation}`;
    const last = this.accepted.get(key) ?? -1;
    if (seq <= last) return this.dropped('duplicate', source, `entry ${id}: game ${seq} of ${key} was already taken in`);
    const known = this.workersByName.get(worker);
    const remote = this.remoteWorker(worker, device);
    remote.lastGameAt = Date.now();
    // A worker's first game says it is live as soon as its heartbeat would (a short run can end between two
    // scans); so does a game from one that was given up for silence without ever showing a heartbeat.
    if (!known || (known.pid <= 0 && known.state === 'stopped')) {
      remote.state = 'running';
      this.logWorkersPerMachine();
    }
    if (seq > last + 1) this.emit({ kind: 'gap', workerId: remote.id, device: `${remote.machine}/${remote.device}`, expected: last + 1, got: seq });
    this.accepted.set(key, seq);
    remote.gamesReceived++;
    const game: IncomingGame = { workerId: remote.id, device: `${remote.machine}/${remote.device}`, incarnation, seq, weightsVersion: version, bytes, record };
    for (const listener of this.gameListeners) {
      try {
        listener(game);
      } catch (err) {
        // A listener's failure must not end the read loop (every later game would then be lost to this learner).
        this.dropped('invalid', source, `entry ${id}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return true;
  }

  /**
   * The record in `bytes`, or what is wrong with it: first the header against the run's shapes (cheap, before
   * decoding), then every value, offset and index (`gameRecordContentProblem`), so nothing a forged or buggy
   * worker sends can reach the replay buffer and stop training.
   */
  private soundRecord(bytes: Uint8Array, version: number): GameRecord | string {
    const header = gameRecordProblem(bytes, { ...this.expected, weightsVersion: version });
    if (header) return header;
    let record: GameRecord;
    try {
      record = decodeGameRecord(bytes);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    return gameRecordContentProblem(record, this.expected) ?? record;
  }

  /** Reports a record not taken in; false, for `return this.dropped(...)` in the checks above. */
  private dropped(reason: 'invalid' | 'duplicate', source: string, detail: string): false {
    this.emit({ kind: 'dropped', reason, source, detail });
    return false;
  }

  private remoteWorker(name: string, device: string): RemoteWorker {
    let w = this.workersByName.get(name);
    if (!w) {
      w = {
        id: this.workersByName.size,
        name,
        machine: name.split('#')[0] || 'unknown',
        device,
        pid: -1,
        incarnation: 0,
        state: 'running',
        restarts: 0,
        gamesReceived: 0,
        weightsVersion: -1,
        stats: { games: 0, positions: 0, evaluations: 0, evaluatorCalls: 0 },
        stoppedCleanly: false,
        lastGameAt: 0,
      };
      this.workersByName.set(name, w);
    }
    return w;
  }

  /** Reads the heartbeat keys: joins, restarts and departures become worker events. */
  private async scanWorkers(): Promise<void> {
    const k = this.keys;
    let names: string[];
    let values: (string | null)[];
    try {
      names = [];
      let cursor = '0';
      do {
        const [next, found] = await this.cmd.scan(cursor, 'MATCH', k.workerPattern, 'COUNT', 1000);
        cursor = next;
        names.push(...found);
      } while (cursor !== '0');
      values = names.length ? await this.cmd.mget(...names) : [];
    } catch {
      return; // Redis is away; the next tick tries again
    }
    const seen = new Set<string>();
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      if (value === null) continue;
      const name = names[i].slice(k.workerPrefix.length);
      const text = this.signer.open('heartbeat', value, name);
      if (text === undefined) {
        this.refusedHeartbeat(name, value);
        continue;
      }
      let beat: RemoteHeartbeat;
      try {
        beat = JSON.parse(text) as RemoteHeartbeat;
      } catch {
        continue;
      }
      seen.add(name);
      const known = this.workersByName.get(name);
      const w = known ?? this.remoteWorker(name, beat.device);
      const wasLive = known !== undefined && (known.state === 'running' || known.state === 'starting') && known.pid > 0;
      const device = `${beat.machine}/${beat.device}`;
      w.machine = beat.machine;
      w.device = beat.device;
      w.weightsVersion = beat.weightsVersion;
      w.stats = workerPlayStatsOf(beat);
      if (beat.state === 'stopped') {
        if (w.state !== 'stopped' && w.pid > 0) this.emit({ kind: 'exited', workerId: w.id, device, pid: w.pid, incarnation: w.incarnation, reason: 'stopped', code: 0, signal: null, gamesSent: w.gamesReceived });
        w.state = 'stopped';
        w.stoppedCleanly = true;
        continue;
      }
      // A process still loading the game and network is not ready yet (nor lost: its key is there).
      if (beat.state === 'starting') continue;
      if (wasLive && beat.incarnation > w.incarnation) {
        w.restarts++;
        this.emit({ kind: 'restarting', workerId: w.id, device, incarnation: beat.incarnation, delayMs: 0 });
      }
      if (!wasLive || beat.incarnation !== w.incarnation || beat.pid !== w.pid) {
        w.pid = beat.pid;
        w.incarnation = beat.incarnation;
        w.state = 'running';
        w.stoppedCleanly = false;
        this.emit({ kind: 'ready', workerId: w.id, device, pid: beat.pid, incarnation: beat.incarnation, backend: beat.backend, weightsVersion: beat.weightsVersion });
      }
    }
    for (const w of this.workersByName.values()) {
      if (seen.has(w.name) || w.state === 'stopped') continue;
      if (w.pid <= 0) {
        // Known only from its games, its heartbeat never seen (e.g. entries a resumed learner reads from a
        // previous run's workers): gone once it has sent nothing for a heartbeat timeout.
        if (Date.now() - w.lastGameAt > this.options.heartbeatTimeoutMs) w.state = 'stopped';
        continue;
      }
      // The heartbeat key expired: the worker (or its machine, or the network to it) is gone.
      w.state = 'stopped';
      this.emit({ kind: 'exited', workerId: w.id, device: `${w.machine}/${w.device}`, pid: w.pid, incarnation: w.incarnation, reason: 'hung', code: null, signal: null, gamesSent: w.gamesReceived, detail: 'its heartbeat key expired' });
    }
    this.logWorkersPerMachine();
  }

  /** A heartbeat key whose value the run key did not sign: no worker is shown for it; counted once per value. */
  private refusedHeartbeat(name: string, value: string): void {
    if (this.refusedBeats.get(name) === value) return;
    this.refusedBeats.set(name, value);
    if (this.refusedBeats.size > 10_000) this.refusedBeats.clear();
    this.emit({ kind: 'dropped', reason: 'heartbeat', source: name.slice(0, 200), detail: 'a heartbeat not signed with the run key (written by someone without it, or by a worker given another key); no worker is shown for it' });
  }

  /** Says how many workers each machine runs, when that changed since it last said so. */
  private logWorkersPerMachine(): void {
    const perMachine = new Map<string, number>();
    for (const w of this.workersByName.values()) if (w.state === 'running') perMachine.set(w.machine, (perMachine.get(w.machine) ?? 0) + 1);
    const line = [...perMachine].map(([m, n]) => `${m} ${n}`).join(', ');
    if (line !== this.lastMachineLine) {
      this.lastMachineLine = line;
      this.options.log?.(`redis: live workers per machine: ${line || 'none'}`);
    }
  }
}

/** A stream reply (RESP2, buffers) as entries with their fields; deleted entries have `fields` null. */
export function parseStreamReply(reply: unknown): { id: string; fields: Map<string, Buffer> | null }[] {
  const out: { id: string; fields: Map<string, Buffer> | null }[] = [];
  if (!Array.isArray(reply)) return out;
  // RESP2: [[key, entries], ...]; RESP3 (flattened map): [key, entries, ...].
  const lists = reply.length > 0 && Buffer.isBuffer(reply[0]) ? reply.filter((_, i) => i % 2 === 1) : reply.map((stream) => (stream as unknown[])[1]);
  for (const items of lists) {
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      const [id, raw] = item as [Buffer, Buffer[] | null];
      if (!Array.isArray(raw)) {
        out.push({ id: id.toString(), fields: null });
        continue;
      }
      const fields = new Map<string, Buffer>();
      for (let i = 0; i + 1 < raw.length; i += 2) fields.set(raw[i].toString('latin1'), raw[i + 1]);
      out.push({ id: id.toString(), fields });
    }
  }
  return out;
}

function minStreamId(a: string, b: string): string {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am < bm || (am === bm && as < bs) ? a : b;
}

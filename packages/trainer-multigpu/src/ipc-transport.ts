/**
 * `SelfPlayTransport` over local child processes: one `child_process.fork` of worker.js per worker slot,
 * with CUDA_VISIBLE_DEVICES set to the slot's GPU, talking over Node's IPC channel with
 * `serialization: 'advanced'` (game records and weights travel as raw bytes).
 *
 * Faults: a worker that exits unexpectedly, or sends nothing for `heartbeatTimeoutMs` (killed with
 * SIGKILL), is restarted in the same slot with the newest weights. Games it sent before dying are
 * delivered first: a process is only considered gone on 'close', after its IPC channel has been read to
 * the end. A slot that fails to start `maxStartFailures` times in a row ends the run ('fatal').
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BackendName } from '@az/nn';
import type { Device } from './devices.js';
import type {
  FromWorkerMessage,
  IncomingGame,
  PublishedWeights,
  SelfPlayTransport,
  ToWorkerMessage,
  WorkerEvent,
  WorkerPlayStats,
  WorkerSetup,
  WorkerSlot,
  WorkerStatus,
} from './transport.js';
import { workerPlayStatsOf } from './transport.js';

export interface LocalIpcTransportOptions {
  readonly slots: readonly WorkerSlot[];
  /** The tfjs backend a worker on `device` initialises. */
  readonly backendFor: (device: Device) => BackendName;
  /** A worker that sends nothing for this long is killed and restarted. */
  readonly heartbeatTimeoutMs: number;
  /** Allowance for a new process to load tfjs, the game and the network before its first message (default max(120 s, heartbeat timeout)). */
  readonly startupTimeoutMs?: number;
  /** How long `stop` waits for workers to finish their move before killing them (default max(30 s, heartbeat timeout)). */
  readonly stopGraceMs?: number;
  /** Consecutive failed starts of one slot before the run gives up (default 3). */
  readonly maxStartFailures?: number;
  /** Seeds every worker process (each slot and restart gets its own stream). */
  readonly seed: number;
  /** The worker entry module (default: worker.js beside this module in the package's dist). */
  readonly workerModule?: string;
  /** Node flags for the workers (default: this process's, without --inspect flags). */
  readonly execArgv?: readonly string[];
  /** Extra environment for every worker. */
  readonly env?: Readonly<Record<string, string>>;
  /** Lines a worker writes to stdout/stderr, prefixed with its slot. */
  readonly log?: (line: string) => void;
}

interface Slot {
  readonly id: number;
  readonly device: Device;
  child: ChildProcess | null;
  pid: number | null;
  incarnation: number;
  state: WorkerStatus['state'];
  ready: boolean;
  restarts: number;
  consecutiveFailures: number;
  /** Watchdog clock: last message (or spawn) time, pushed forward by trainer-side stalls. */
  lastSeen: number;
  nextSeq: number;
  gamesFromProcess: number;
  gamesReceived: number;
  weightsVersion: number;
  killedAsHung: boolean;
  /** Stats of earlier processes of this slot, plus the current process's latest report. */
  doneStats: WorkerPlayStats;
  liveStats: WorkerPlayStats;
  stderrTail: string[];
  restartTimer: NodeJS.Timeout | null;
  closed: Promise<void> | null;
}

const ZERO_STATS: WorkerPlayStats = { games: 0, positions: 0, evaluations: 0, evaluatorCalls: 0 };

/** The worker module shipped in dist; from sources (tests run on src/*.ts) the built one is used. */
export function defaultWorkerModule(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const built = fileURLToPath(new URL('../dist/worker.js', import.meta.url));
    if (!existsSync(built)) throw new Error(`self-play worker ${built} is missing: build @az/trainer-multigpu first (npx tsc -p packages/trainer-multigpu/tsconfig.build.json)`);
    return built;
  }
  return fileURLToPath(new URL('./worker.js', import.meta.url));
}

export class LocalIpcTransport implements SelfPlayTransport {
  private readonly slots: Slot[];
  private readonly gameListeners: ((game: IncomingGame) => void)[] = [];
  private readonly eventListeners: ((event: WorkerEvent) => void)[] = [];
  private setup: WorkerSetup | null = null;
  private weights: PublishedWeights | null = null;
  private stopping = false;
  private paused = false;
  /** A pause-after limit was sent since the last resume (workers may have paused themselves). */
  private limited = false;
  private watchdog: NodeJS.Timeout | null = null;
  private lastTick = 0;
  private readonly tickMs: number;
  private readonly heartbeatMs: number;
  private readonly startupTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly maxStartFailures: number;
  private readonly workerModule: string;
  private readonly execArgv: string[];
  private startWaiters: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private fatalError: Error | null = null;

  constructor(private readonly options: LocalIpcTransportOptions) {
    if (options.slots.length === 0) throw new RangeError('LocalIpcTransport: no worker slots');
    if (!(options.heartbeatTimeoutMs > 0)) throw new RangeError(`heartbeat timeout must be positive (got ${options.heartbeatTimeoutMs} ms)`);
    this.slots = options.slots.map((s) => ({
      id: s.id,
      device: s.device,
      child: null,
      pid: null,
      incarnation: -1,
      state: 'stopped',
      ready: false,
      restarts: 0,
      consecutiveFailures: 0,
      lastSeen: 0,
      nextSeq: 0,
      gamesFromProcess: 0,
      gamesReceived: 0,
      weightsVersion: -1,
      killedAsHung: false,
      doneStats: ZERO_STATS,
      liveStats: ZERO_STATS,
      stderrTail: [],
      restartTimer: null,
      closed: null,
    }));
    // Workers beat four times per timeout, so one late beat never looks like a hang.
    this.heartbeatMs = Math.max(50, Math.floor(options.heartbeatTimeoutMs / 4));
    this.tickMs = Math.min(1000, Math.max(50, Math.floor(options.heartbeatTimeoutMs / 8)));
    this.startupTimeoutMs = options.startupTimeoutMs ?? Math.max(120_000, options.heartbeatTimeoutMs);
    this.stopGraceMs = options.stopGraceMs ?? Math.max(30_000, options.heartbeatTimeoutMs);
    this.maxStartFailures = options.maxStartFailures ?? 3;
    this.workerModule = options.workerModule ?? defaultWorkerModule();
    // An inherited --inspect would make every worker fight over the debugger port.
    this.execArgv = [...(options.execArgv ?? process.execArgv.filter((a) => !a.startsWith('--inspect')))];
  }

  onGame(listener: (game: IncomingGame) => void): void {
    this.gameListeners.push(listener);
  }

  onWorkerEvent(listener: (event: WorkerEvent) => void): void {
    this.eventListeners.push(listener);
  }

  start(setup: WorkerSetup, weights: PublishedWeights): Promise<void> {
    if (this.setup) throw new Error('LocalIpcTransport.start called twice');
    this.setup = setup;
    this.weights = weights;
    const started = new Promise<void>((resolve, reject) => {
      this.startWaiters = { resolve, reject };
    });
    this.lastTick = performance.now();
    this.watchdog = setInterval(() => this.tick(), this.tickMs);
    this.watchdog.unref();
    for (const slot of this.slots) this.spawn(slot);
    return started;
  }

  publishWeights(weights: PublishedWeights): void {
    this.weights = weights;
    for (const slot of this.slots) this.sendTo(slot, { t: 'weights', version: weights.version, data: weights.data });
  }

  setPaused(paused: boolean): void {
    // Workers holding a pause-after limit may have paused themselves: releasing them is a resume too.
    if (paused === this.paused && !(this.limited && !paused)) return;
    this.paused = paused;
    this.limited = false;
    for (const slot of this.slots) this.sendTo(slot, { t: paused ? 'pause' : 'resume' });
  }

  pauseAfter(games: number): void {
    if (this.paused) return;
    this.limited = true;
    for (const slot of this.slots) this.sendTo(slot, { t: 'pause-after', games });
  }

  workers(): readonly WorkerStatus[] {
    return this.slots.map((s) => ({
      id: s.id,
      device: s.device.label,
      pid: s.pid,
      incarnation: Math.max(0, s.incarnation),
      state: s.state,
      restarts: s.restarts,
      gamesReceived: s.gamesReceived,
      weightsVersion: s.weightsVersion,
      stats: addStats(s.doneStats, s.liveStats),
    }));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // The watchdog keeps running: a hung worker cannot finish its move, and is killed at its heartbeat timeout.
    this.settleStart(new Error('stopped before every worker was ready'));
    for (const slot of this.slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.restartTimer = null;
      if (slot.state === 'restarting') slot.state = 'stopped';
    }
    const live = this.slots.filter((s) => s.child && s.closed);
    for (const slot of live) this.sendTo(slot, { t: 'stop' });
    // Workers finish the move in hand; after the grace period they are asked (SIGTERM), then made (SIGKILL), to go.
    const all = Promise.all(live.map((s) => s.closed));
    const grace = setTimeout(() => {
      for (const s of live) s.child?.kill('SIGTERM');
    }, this.stopGraceMs);
    const hard = setTimeout(() => {
      for (const s of live) s.child?.kill('SIGKILL');
    }, this.stopGraceMs + 5000);
    try {
      await all;
    } finally {
      clearTimeout(grace);
      clearTimeout(hard);
      if (this.watchdog) clearInterval(this.watchdog);
      this.watchdog = null;
    }
  }

  /** Kills every worker at once (error paths); games still in flight are lost. */
  kill(): void {
    this.stopping = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const slot of this.slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.child?.kill('SIGKILL');
    }
  }

  private emit(event: WorkerEvent): void {
    for (const listener of this.eventListeners) listener(event);
  }

  private settleStart(err?: Error): void {
    const waiters = this.startWaiters;
    if (!waiters) return;
    this.startWaiters = null;
    if (err) waiters.reject(err);
    else waiters.resolve();
  }

  private fail(message: string): void {
    if (this.fatalError) return;
    this.fatalError = new Error(message);
    this.emit({ kind: 'fatal', message });
    this.settleStart(this.fatalError);
  }

  private spawn(slot: Slot): void {
    const setup = this.setup;
    const weights = this.weights;
    if (!setup || !weights || this.stopping) return;
    slot.incarnation++;
    slot.state = 'starting';
    slot.ready = false;
    slot.killedAsHung = false;
    slot.nextSeq = 0;
    slot.gamesFromProcess = 0;
    slot.liveStats = ZERO_STATS;
    slot.stderrTail = [];
    slot.lastSeen = performance.now();
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.options.env };
    // Each GPU worker sees exactly one GPU, which tfjs-node-gpu then calls device 0.
    if (slot.device.kind === 'gpu') env.CUDA_VISIBLE_DEVICES = String(slot.device.index);
    const child = fork(this.workerModule, [], {
      env,
      execArgv: this.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    slot.child = child;
    slot.pid = child.pid ?? null;
    const prefix = `worker ${slot.id} (${slot.device.label})`;
    const onOutput = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        slot.stderrTail.push(line);
        if (slot.stderrTail.length > 20) slot.stderrTail.shift();
        this.options.log?.(`${prefix}: ${line}`);
      }
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.on('message', (m) => this.onMessage(slot, child, m as FromWorkerMessage));
    // A failed send (the worker just died) is handled by 'close'; without a listener it would throw.
    child.on('error', (err) => this.options.log?.(`${prefix}: ${err.message}`));
    // 'close' comes after 'exit' once stdio and the IPC channel are drained: every game sent has been seen.
    slot.closed = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.onClose(slot, child, code, signal);
        resolve();
      });
    });
    const seed = (this.options.seed * 1_000_003 + slot.id * 7919 + slot.incarnation * 104_729) >>> 0;
    this.sendTo(slot, {
      t: 'init',
      workerId: slot.id,
      device: slot.device,
      incarnation: slot.incarnation,
      seed,
      backend: this.options.backendFor(slot.device),
      heartbeatMs: this.heartbeatMs,
      paused: this.paused,
      setup,
      weights,
    });
  }

  private sendTo(slot: Slot, message: ToWorkerMessage): void {
    const child = slot.child;
    if (!child || !child.connected) return;
    try {
      child.send(message);
    } catch {
      // The channel closed under us: 'close' will restart or retire the worker.
    }
  }

  private onMessage(slot: Slot, child: ChildProcess, message: FromWorkerMessage): void {
    if (slot.child !== child) return;
    slot.lastSeen = performance.now();
    switch (message.t) {
      case 'ready': {
        slot.ready = true;
        slot.state = 'running';
        slot.weightsVersion = message.weightsVersion;
        this.emit({ kind: 'ready', workerId: slot.id, device: slot.device.label, pid: child.pid ?? -1, incarnation: slot.incarnation, backend: message.backend, weightsVersion: message.weightsVersion });
        if (this.slots.every((s) => s.ready)) this.settleStart();
        return;
      }
      case 'games': {
        if (message.firstSeq !== slot.nextSeq) this.emit({ kind: 'gap', workerId: slot.id, device: slot.device.label, expected: slot.nextSeq, got: message.firstSeq });
        slot.nextSeq = message.firstSeq + message.games.length;
        slot.gamesFromProcess += message.games.length;
        slot.gamesReceived += message.games.length;
        // A worker that delivers games has started successfully, whatever happens to it later.
        slot.consecutiveFailures = 0;
        slot.liveStats = workerPlayStatsOf(message.stats);
        for (let i = 0; i < message.games.length; i++) {
          const g = message.games[i];
          const bytes = g.bytes instanceof Uint8Array ? g.bytes : new Uint8Array(g.bytes as ArrayBufferLike);
          const game: IncomingGame = { workerId: slot.id, device: slot.device.label, incarnation: slot.incarnation, seq: message.firstSeq + i, weightsVersion: g.weightsVersion, bytes };
          for (const listener of this.gameListeners) listener(game);
        }
        return;
      }
      case 'beat':
        slot.weightsVersion = message.weightsVersion;
        slot.liveStats = workerPlayStatsOf(message);
        return;
      case 'fatal':
        this.fail(`worker ${slot.id} (${slot.device.label}): ${message.message}`);
        return;
      case 'error':
        slot.stderrTail.push(message.message);
        return;
    }
  }

  private onClose(slot: Slot, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.child !== child) return;
    slot.child = null;
    slot.closed = null;
    slot.doneStats = addStats(slot.doneStats, slot.liveStats);
    slot.liveStats = ZERO_STATS;
    const expected = this.stopping;
    const reason = slot.killedAsHung ? 'hung' : expected ? 'stopped' : 'crashed';
    this.emit({
      kind: 'exited',
      workerId: slot.id,
      device: slot.device.label,
      pid: child.pid ?? -1,
      incarnation: slot.incarnation,
      reason,
      code,
      signal,
      gamesSent: slot.gamesFromProcess,
      ...(reason === 'crashed' && slot.stderrTail.length ? { detail: slot.stderrTail.slice(-5).join('\n') } : {}),
    });
    if (expected || this.fatalError) {
      slot.state = 'stopped';
      return;
    }
    if (!slot.ready) slot.consecutiveFailures++;
    if (slot.consecutiveFailures >= this.maxStartFailures) {
      const last = slot.stderrTail.slice(-5).join('\n');
      this.fail(`worker ${slot.id} (${slot.device.label}) failed to start ${slot.consecutiveFailures} times in a row${last ? `; its last output:\n${last}` : ''}`);
      slot.state = 'stopped';
      return;
    }
    slot.restarts++;
    slot.state = 'restarting';
    // Back off only when the slot keeps failing to start; a worker that was playing comes back at once.
    const delayMs = slot.consecutiveFailures === 0 ? 0 : Math.min(10_000, 250 * 2 ** (slot.consecutiveFailures - 1));
    this.emit({ kind: 'restarting', workerId: slot.id, device: slot.device.label, incarnation: slot.incarnation + 1, delayMs });
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = null;
      this.spawn(slot);
    }, delayMs);
  }

  /**
   * The watchdog. Time when this process itself could not read messages (a long training step or arena
   * blocks the event loop; the tick then runs late) does not count against the workers: their messages
   * are waiting in the pipe, unread.
   */
  private tick(): void {
    const now = performance.now();
    const stall = now - this.lastTick - this.tickMs;
    this.lastTick = now;
    for (const slot of this.slots) {
      if (!slot.child || slot.killedAsHung) continue;
      if (stall > 50) slot.lastSeen += stall;
      const limit = slot.ready ? this.options.heartbeatTimeoutMs : this.startupTimeoutMs;
      if (now - slot.lastSeen > limit) {
        slot.killedAsHung = true;
        this.options.log?.(
          `worker ${slot.id} (${slot.device.label}) ${slot.ready ? 'sent no heartbeat' : 'did not start'} for ${((now - slot.lastSeen) / 1000).toFixed(1)}s: killing it (pid ${slot.pid})`,
        );
        slot.child.kill('SIGKILL');
      }
    }
  }
}

function addStats(a: WorkerPlayStats, b: WorkerPlayStats): WorkerPlayStats {
  const sum = { games: a.games + b.games, positions: a.positions + b.positions, evaluations: a.evaluations + b.evaluations, evaluatorCalls: a.evaluatorCalls + b.evaluatorCalls };
  if (a.cacheLookups === undefined && b.cacheLookups === undefined) return sum;
  return { ...sum, cacheLookups: (a.cacheLookups ?? 0) + (b.cacheLookups ?? 0), cacheHits: (a.cacheHits ?? 0) + (b.cacheHits ?? 0) };
}

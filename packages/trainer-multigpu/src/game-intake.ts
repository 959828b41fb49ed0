/**
 * The trainer's side of multi-process self-play, without the processes: games arriving from workers go
 * into the replay buffer (unless too old or unreadable), counted per device and per iteration window;
 * worker events are counted and logged; a loop waits on it for an iteration's worth of games. Tests feed
 * it `IncomingGame`s directly.
 */
import type { Device } from './devices.js';
import { decodeGameRecord, gameRecordContentProblem, type GameRecord } from './game-record.js';
import type { DeviceIterationMetrics } from './metrics.js';
import { OutcomeTally } from './outcome-tally.js';
import type { ReplayBuffer } from './replay-buffer.js';
import type { IncomingGame, WorkerEvent, WorkerStatus } from './transport.js';

/** Per-device totals of a multi-process run (this session, not earlier sessions of a resumed run). */
export interface DeviceTotals {
  readonly workers: number;
  readonly gamesReceived: number;
  readonly gamesAccepted: number;
  readonly positionsAccepted: number;
  readonly staleGamesDropped: number;
  readonly restarts: number;
  /** The newest weights version among games accepted from this device (-1: none): shows workers took up new weights. */
  readonly newestGameVersion: number;
}

export interface MultiProcessSummary {
  readonly devices: Readonly<Record<string, DeviceTotals>>;
  /** Every game that arrived = accepted + stale + surplus + corrupt. */
  readonly gamesReceived: number;
  readonly gamesAccepted: number;
  /** Positions added to the replay buffer from accepted games. */
  readonly positionsAccepted: number;
  readonly staleGamesDropped: number;
  /**
   * Games that arrived when no iteration had room for them: the current iteration's games were all in
   * (sent before the pause reached the worker, or while the trainer was too busy to read), or the last
   * iteration had closed. Dropped, so every iteration trains on exactly `gamesPerIteration` games.
   */
  readonly surplusGamesDropped: number;
  /** Games over local IPC whose bytes did not decode or failed `gameRecordContentProblem` (never expected; counted so none vanish silently). */
  readonly corruptGames: number;
  /** Records from the Redis stream dropped by validation (signature, fields, game, a weights version never published, the record itself: `gameRecordContentProblem`). */
  readonly invalidRecords: number;
  /** Heartbeat values over Redis the run key did not sign (each counted once): no worker was shown for them. */
  readonly forgedHeartbeats: number;
  /** Games received twice (a resend, or a restarted learner re-reading what its checkpoint holds) and taken in once. */
  readonly duplicateGames: number;
  readonly restarts: number;
  readonly crashes: number;
  readonly hangs: number;
  /** Sequence gaps seen: games a worker sent that never arrived (never expected over local IPC). */
  readonly sequenceGaps: number;
  readonly finalWeightsVersion: number;
}

interface DeviceCounters {
  workers: number;
  received: number;
  accepted: number;
  positions: number;
  stale: number;
  restarts: number;
  newestVersion: number;
}

/** The counters at one moment; an iteration's figures are the difference of two. */
export interface IntakeSnapshot {
  received: number;
  accepted: number;
  positions: number;
  stale: number;
  surplus: number;
  restarts: number;
  ageSum: number;
  evaluations: number;
  evaluatorCalls: number;
  /** NN-cache lookups and hits, summed over the workers that report them. */
  cacheLookups: number;
  cacheHits: number;
  devices: Map<string, DeviceCounters>;
}

export type IntakeDelta = Omit<IntakeSnapshot, 'devices'> & { devices: Record<string, DeviceIterationMetrics> };

export interface GameIntakeOptions {
  readonly replay: ReplayBuffer;
  /** The trainer's state: games are judged against its weights version; a closed window's games are counted into gamesPlayed. */
  readonly state: { readonly weightsVersion: number; gamesPlayed: number };
  readonly devices: readonly Device[];
  /** Count devices not in `devices` from their first game or event (remote workers over Redis). */
  readonly labelsOnArrival?: boolean;
  readonly workersPerDevice: number;
  readonly gamesPerIteration: number;
  readonly maxGameAge: number;
  readonly numPlayers: number;
  readonly log: (message: string) => void;
  /** Self-play progress (games of the current window), while a loop waits for them. */
  readonly progress?: (done: number) => void;
  /**
   * Each iteration takes exactly `gamesPerIteration` games (default): games beyond that, or after the last
   * iteration, are dropped as surplus, and `gamesPlayed` counts a window's games when an iteration takes
   * them. False (Redis, whose stream promises every game sent reaches a checkpoint): every fresh game is
   * taken in and counted on arrival, and a window may hold more (docs/distributed.md, Limits).
   */
  readonly exactWindows?: boolean;
  /** Hold (true) or release the workers. */
  readonly setPaused: (paused: boolean) => void;
}

export class GameIntake {
  private readonly perDevice = new Map<string, DeviceCounters>();
  private readonly totals = { received: 0, accepted: 0, positions: 0, stale: 0, surplus: 0, corrupt: 0, invalid: 0, forgedHeartbeats: 0, duplicates: 0, restarts: 0, crashes: 0, hangs: 0, gaps: 0, ageSum: 0 };
  private readonly waiters = new Set<() => void>();
  /** How the accepted games ended, taken (and reset) with each iteration's metrics. */
  readonly outcomes: OutcomeTally;
  /** Games accepted since the current iteration window opened (with exact windows, never more than `gamesPerIteration`). */
  gamesThisWindow = 0;
  /** True while a loop waits for the window's games (later arrivals pause the workers instead). */
  inSelfPlayPhase = false;
  /** Set once the last iteration's window has closed: no iteration will train on a later game. */
  private closed = false;
  private readonly exact: boolean;
  /** A worker problem restarting cannot fix; the loop stops on it. */
  fatal: Error | null = null;

  constructor(private readonly o: GameIntakeOptions) {
    for (const d of o.devices) this.perDevice.set(d.label, { workers: o.workersPerDevice, received: 0, accepted: 0, positions: 0, stale: 0, restarts: 0, newestVersion: -1 });
    this.outcomes = new OutcomeTally(o.numPlayers);
    this.exact = o.exactWindows ?? true;
  }

  /** A game from a worker. Never throws (it runs inside an IPC event): problems are counted and logged. */
  accept(incoming: IncomingGame): void {
    const { state, replay, maxGameAge, gamesPerIteration } = this.o;
    const device = this.deviceCounters(incoming.device);
    const totals = this.totals;
    totals.received++;
    if (device) device.received++;
    // Staleness is judged on arrival, against the version the trainer holds now.
    if (incoming.weightsVersion < state.weightsVersion - maxGameAge) {
      totals.stale++;
      if (device) device.stale++;
      return;
    }
    // No room: this window already holds its iteration's games (the pause reached the worker too late, or
    // the trainer read a backlog at once), or no iteration follows. Kept, the game would make an iteration
    // train on more games than the options say, or be counted without being trained on.
    if (this.exact && (this.closed || this.gamesThisWindow >= gamesPerIteration)) {
      totals.surplus++;
      return;
    }
    let record: GameRecord;
    try {
      record = incoming.record ?? this.decodeSound(incoming.bytes);
      replay.addGame(record);
    } catch (err) {
      totals.corrupt++;
      this.o.log(`dropped an invalid game from worker ${incoming.workerId} (${incoming.device}), incarnation ${incoming.incarnation}, game ${incoming.seq}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    totals.accepted++;
    this.outcomes.add(record);
    totals.positions += record.length;
    totals.ageSum += state.weightsVersion - record.weightsVersion;
    if (device) {
      device.accepted++;
      device.positions += record.length;
      device.newestVersion = Math.max(device.newestVersion, record.weightsVersion);
    }
    if (!this.exact) state.gamesPlayed++;
    this.gamesThisWindow++;
    if (this.inSelfPlayPhase) this.o.progress?.(Math.min(this.gamesThisWindow, gamesPerIteration));
    if (this.gamesThisWindow >= gamesPerIteration) {
      this.notify();
      // The next iteration's games are in while the trainer is still busy: hold the workers until it
      // wants more, so the ratio of training steps to games stays what the options say.
      if (!this.inSelfPlayPhase) this.o.setPaused(true);
    }
  }

  /** The record in `bytes`, or an error naming what is wrong with it: the same checks a Redis record meets. */
  private decodeSound(bytes: Uint8Array): GameRecord {
    const record = decodeGameRecord(bytes);
    const problem = gameRecordContentProblem(record, this.o.replay.shape);
    if (problem) throw new Error(problem);
    return record;
  }

  /**
   * Ends the current window (its games are the iteration's: counted into `gamesPlayed`) and opens the
   * next, or, when `last`, none: the workers are paused and every later game is dropped as surplus
   * (with `exactWindows` false, only the count restarts).
   */
  closeWindow(last: boolean): void {
    if (this.exact) this.o.state.gamesPlayed += this.gamesThisWindow;
    this.gamesThisWindow = 0;
    if (last && this.exact) {
      this.closed = true;
      this.o.setPaused(true);
    }
  }

  /** Counts and logs a worker's life events; a 'fatal' one stops the waiting loop. */
  workerEvent(e: WorkerEvent): void {
    const log = this.o.log;
    switch (e.kind) {
      case 'ready':
        log(`worker ${e.workerId} (${e.device}) ready: pid ${e.pid}, search on ${e.backend}, weights v${e.weightsVersion}${e.incarnation > 0 ? `, restart ${e.incarnation}` : ''}`);
        return;
      case 'exited': {
        if (e.reason === 'stopped') return;
        if (e.reason === 'hung') this.totals.hangs++;
        else this.totals.crashes++;
        const how = e.reason === 'hung' ? 'hung and was killed' : `crashed (${e.signal ? `signal ${e.signal}` : `exit code ${e.code}`})`;
        log(`worker ${e.workerId} (${e.device}) pid ${e.pid} ${how} after sending ${e.gamesSent} games; they are kept${e.detail ? `\n${e.detail}` : ''}`);
        return;
      }
      case 'restarting': {
        this.totals.restarts++;
        const device = this.deviceCounters(e.device);
        if (device) device.restarts++;
        log(`worker ${e.workerId} (${e.device}): restarting${e.delayMs ? ` in ${(e.delayMs / 1000).toFixed(1)}s` : ''} (restart ${e.incarnation})`);
        return;
      }
      case 'dropped': {
        const n = e.reason === 'duplicate' ? ++this.totals.duplicates : e.reason === 'heartbeat' ? ++this.totals.forgedHeartbeats : ++this.totals.invalid;
        const what = e.reason === 'invalid' ? 'an invalid record' : e.reason === 'duplicate' ? 'a duplicate game' : 'a forged heartbeat';
        // The first few in full, then every hundredth: a rogue sender must not flood the log.
        if (n <= 5 || n % 100 === 0) log(`dropped ${what} from ${e.source}: ${e.detail} (${n} so far)`);
        return;
      }
      case 'gap':
        this.totals.gaps++;
        log(`worker ${e.workerId} (${e.device}): game ${e.expected} never arrived (next was ${e.got})`);
        return;
      case 'fatal':
        this.fatal = new Error(`self-play worker failed: ${e.message}`);
        this.notify();
        return;
    }
  }

  private deviceCounters(label: string): DeviceCounters | undefined {
    let c = this.perDevice.get(label);
    if (!c && this.o.labelsOnArrival) this.perDevice.set(label, (c = { workers: 1, received: 0, accepted: 0, positions: 0, stale: 0, restarts: 0, newestVersion: -1 }));
    return c;
  }

  /** Wakes every waiter (a game, an abort, a fatal error). */
  notify(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }

  /** Resolves when `done()` holds, re-checking whenever `notify` is called. */
  async waitUntil(done: () => boolean): Promise<void> {
    while (!done()) await new Promise<void>((resolve) => this.waiters.add(resolve));
  }

  get totalRestarts(): number {
    return this.totals.restarts;
  }

  get totalStale(): number {
    return this.totals.stale;
  }

  snapshot(workers: readonly WorkerStatus[]): IntakeSnapshot {
    const stats = { evaluations: 0, evaluatorCalls: 0, cacheLookups: 0, cacheHits: 0 };
    for (const w of workers) {
      stats.evaluations += w.stats.evaluations;
      stats.evaluatorCalls += w.stats.evaluatorCalls;
      stats.cacheLookups += w.stats.cacheLookups ?? 0;
      stats.cacheHits += w.stats.cacheHits ?? 0;
    }
    const devicesCopy = new Map<string, DeviceCounters>();
    for (const [label, c] of this.perDevice) devicesCopy.set(label, { ...c });
    return { ...this.totals, ...stats, devices: devicesCopy };
  }

  summarize(finalWeightsVersion: number): MultiProcessSummary {
    const devices: Record<string, DeviceTotals> = {};
    for (const [label, c] of this.perDevice) {
      devices[label] = { workers: c.workers, gamesReceived: c.received, gamesAccepted: c.accepted, positionsAccepted: c.positions, staleGamesDropped: c.stale, restarts: c.restarts, newestGameVersion: c.newestVersion };
    }
    const t = this.totals;
    return {
      devices,
      gamesReceived: t.received,
      gamesAccepted: t.accepted,
      positionsAccepted: t.positions,
      staleGamesDropped: t.stale,
      surplusGamesDropped: t.surplus,
      corruptGames: t.corrupt,
      invalidRecords: t.invalid,
      forgedHeartbeats: t.forgedHeartbeats,
      duplicateGames: t.duplicates,
      restarts: t.restarts,
      crashes: t.crashes,
      hangs: t.hangs,
      sequenceGaps: t.gaps,
      finalWeightsVersion,
    };
  }
}

/** What happened between two snapshots. */
export function intakeDelta(now: IntakeSnapshot, before: IntakeSnapshot): IntakeDelta {
  const devices: Record<string, DeviceIterationMetrics> = {};
  for (const [label, c] of now.devices) {
    const b = before.devices.get(label);
    devices[label] = {
      games: c.accepted - (b?.accepted ?? 0),
      positions: c.positions - (b?.positions ?? 0),
      restarts: c.restarts - (b?.restarts ?? 0),
      staleGamesDropped: c.stale - (b?.stale ?? 0),
    };
  }
  return {
    received: now.received - before.received,
    accepted: now.accepted - before.accepted,
    positions: now.positions - before.positions,
    stale: now.stale - before.stale,
    surplus: now.surplus - before.surplus,
    restarts: now.restarts - before.restarts,
    ageSum: now.ageSum - before.ageSum,
    // Worker stats drop when a process dies (its last report is folded in late); never report negative work.
    evaluations: Math.max(0, now.evaluations - before.evaluations),
    evaluatorCalls: Math.max(0, now.evaluatorCalls - before.evaluatorCalls),
    cacheLookups: Math.max(0, now.cacheLookups - before.cacheLookups),
    cacheHits: Math.max(0, now.cacheHits - before.cacheHits),
    devices,
  };
}

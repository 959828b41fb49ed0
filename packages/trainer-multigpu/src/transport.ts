/**
 * The trainer's two streams, behind one small interface: finished games come in from self-play
 * workers, weights versions go out to them. `LocalIpcTransport` (ipc-transport.ts) implements it with
 * one child process per worker on this machine; a transport over Redis streams could implement the same
 * interface so workers on other machines join a run (see docs/multi-gpu.md).
 */
import type { NetworkConfig, ResolvedConfig } from '@az/core';
import type { WeightSpec } from '@az/nn';
import type { Device } from './devices.js';
import type { GameRecord } from './game-record.js';
import type { WorkerSettings } from './options.js';

/** Where a worker imports the game plugin from (workers are separate programs: they cannot share the trainer's registry). */
export interface PluginModuleRef {
  /** A file: URL (or a bare specifier the worker can resolve) of an ES module. */
  readonly moduleUrl: string;
  /** The export holding the GamePlugin. */
  readonly exportName: string;
}

/** What every worker of a run needs in order to play: the same for all of them. */
export interface WorkerSetup {
  readonly plugin: PluginModuleRef;
  readonly gameId: string;
  /** The game's resolved config (the trainer resolved it; workers re-validate it). */
  readonly gameConfig: ResolvedConfig;
  /** Workers refuse to play when their copy of the game encodes positions differently. */
  readonly encoderVersion: string;
  readonly network: NetworkConfig;
  /** Layout of `PublishedWeights.data`, sent once; every version has the same layout. */
  readonly weightSpecs: readonly WeightSpec[];
  /** The run's self-play and inference sections: how to search, record and evaluate positions (no folder, learning rate or evaluation). */
  readonly settings: WorkerSettings;
}

/** One weights version, as bytes: the float32 values of `serializeWeights` in `WorkerSetup.weightSpecs` order. */
export interface PublishedWeights {
  readonly version: number;
  readonly data: Uint8Array;
}

/** Where workers run: one entry per worker process. */
export interface WorkerSlot {
  /** 0..n-1, stable across restarts of the slot's process. */
  readonly id: number;
  readonly device: Device;
}

/** A finished game as it arrived. */
export interface IncomingGame {
  readonly workerId: number;
  /** The device label, e.g. 'gpu:1'. */
  readonly device: string;
  /** Which process of this slot sent it (0 for the first, +1 per restart). */
  readonly incarnation: number;
  /** Per-process sequence number, from 0; a gap means a lost game. */
  readonly seq: number;
  /** The weights version current when the game started (the oldest network that played in it). */
  readonly weightsVersion: number;
  /** The game in `encodeGameRecord` form. */
  readonly bytes: Uint8Array;
  /**
   * The game already decoded and found sound (`gameRecordContentProblem`) by the transport, which checks
   * untrusted records before it takes them in; absent, the intake decodes and checks `bytes` itself.
   */
  readonly record?: GameRecord;
}

export type WorkerExitReason = 'crashed' | 'hung' | 'stopped';

/** Worker lifecycle, for logs and metrics. */
export type WorkerEvent =
  | { readonly kind: 'ready'; readonly workerId: number; readonly device: string; readonly pid: number; readonly incarnation: number; readonly backend: string; readonly weightsVersion: number }
  | {
      readonly kind: 'exited';
      readonly workerId: number;
      readonly device: string;
      readonly pid: number;
      readonly incarnation: number;
      readonly reason: WorkerExitReason;
      readonly code: number | null;
      readonly signal: string | null;
      readonly gamesSent: number;
      /** The process's last words on stderr, when it crashed. */
      readonly detail?: string;
    }
  | { readonly kind: 'restarting'; readonly workerId: number; readonly device: string; readonly incarnation: number; readonly delayMs: number }
  /** A game that arrived with a sequence number other than the next expected one. */
  | { readonly kind: 'gap'; readonly workerId: number; readonly device: string; readonly expected: number; readonly got: number }
  /**
   * Something from another machine that was not taken in: an invalid record (counted, never trusted), a
   * duplicate of a game already taken in, or a heartbeat the run key did not sign.
   */
  | { readonly kind: 'dropped'; readonly reason: 'invalid' | 'duplicate' | 'heartbeat'; readonly source: string; readonly detail: string }
  /** The run cannot continue (a worker cannot start at all, e.g. the game module fails to load). */
  | { readonly kind: 'fatal'; readonly message: string };

/** Counters a worker reports with its heartbeats and games (cumulative for its process). */
export interface WorkerPlayStats {
  readonly games: number;
  readonly positions: number;
  readonly evaluations: number;
  readonly evaluatorCalls: number;
  /**
   * With `evalCacheSize`: the NN cache's lookups and hits over the process's life (the cache empties on
   * new weights, its counters do not). Absent without a cache (or from a worker older than the field).
   */
  readonly cacheLookups?: number;
  readonly cacheHits?: number;
}

/**
 * Just the counters of a worker's report (a 'beat' or 'games' message, or a remote heartbeat read from
 * JSON): the cache's pair only when the report has a numeric `cacheLookups` (hits default to 0).
 */
export function workerPlayStatsOf(report: WorkerPlayStats): WorkerPlayStats {
  const stats = { games: report.games, positions: report.positions, evaluations: report.evaluations, evaluatorCalls: report.evaluatorCalls };
  return typeof report.cacheLookups === 'number' ? { ...stats, cacheLookups: report.cacheLookups, cacheHits: typeof report.cacheHits === 'number' ? report.cacheHits : 0 } : stats;
}

/** One finished game inside a 'games' message. */
export interface FinishedGameMessage {
  readonly weightsVersion: number;
  readonly bytes: Uint8Array;
}

export interface WorkerStatus {
  readonly id: number;
  readonly device: string;
  readonly pid: number | null;
  readonly incarnation: number;
  readonly state: 'starting' | 'running' | 'restarting' | 'stopped';
  readonly restarts: number;
  /** Games received from this slot, all its processes. */
  readonly gamesReceived: number;
  /** The weights version the worker reported playing with last. */
  readonly weightsVersion: number;
  /** Totals over all of the slot's processes. */
  readonly stats: WorkerPlayStats;
}

/**
 * Games in, weights out, and the workers' lifecycle. Implementations deliver every game a worker finished
 * and sent before it died, restart workers that crash or stop sending heartbeats, and report both.
 */
export interface SelfPlayTransport {
  /** Registers the listener for finished games (register before `start`: workers play as soon as they are up). */
  onGame(listener: (game: IncomingGame) => void): void;
  onWorkerEvent(listener: (event: WorkerEvent) => void): void;
  /** Starts the workers with the first weights; resolves when every worker is playing, rejects if one cannot start. */
  start(setup: WorkerSetup, weights: PublishedWeights): Promise<void>;
  /** Sends a new weights version; workers switch between moves. Later versions supersede pending ones. */
  publishWeights(weights: PublishedWeights): void;
  /**
   * Flow control: paused workers stop between moves (games in progress wait, nothing is lost) and keep
   * sending heartbeats; workers started while paused start paused. The trainer pauses them when the
   * next iteration's games are already in, so self-play cannot run ahead of training.
   */
  setPaused(paused: boolean): void;
  /**
   * Optional flow control on the worker's side: each worker plays on and pauses itself once it has sent
   * `games` more games; `setPaused(false)` lifts the limit. The trainer sets it as an iteration's games
   * are all in, before it trains: a trainer busy training cannot read games, so a pause it sends when the
   * next iteration's games are in arrives late, and everything played meanwhile would be surplus.
   */
  pauseAfter?(games: number): void;
  workers(): readonly WorkerStatus[];
  /** Stops every worker (they finish their current move; unfinished games are dropped); resolves when all have exited and their last games were delivered. */
  stop(): Promise<void>;
  /**
   * Optional, for transports that acknowledge games to a durable source (Redis): called as a checkpoint's
   * extra is assembled. Returns what the checkpoint must carry, and holds further games back until
   * `checkpointed`, so the checkpoint's replay buffer holds exactly the games it describes.
   */
  checkpointState?(): Readonly<Record<string, unknown>>;
  /** Optional: the checkpoint holding every game delivered so far is on disk (acknowledge them). */
  checkpointed?(): Promise<void>;
  /** Optional: release connections once the run is over (after the final `checkpointed`). */
  close?(): Promise<void>;
}

// ---- The local IPC protocol (trainer <-> child process). Sent with `serialization: 'advanced'`, so the
// Uint8Array payloads travel as raw bytes inside V8's structured-clone format, never as JSON.

/** Trainer -> worker. */
export type ToWorkerMessage =
  | {
      readonly t: 'init';
      readonly workerId: number;
      readonly device: Device;
      readonly incarnation: number;
      readonly seed: number;
      /** The tfjs backend the worker initialises ('gpu' on a GPU, 'wasm' for CPU workers). */
      readonly backend: string;
      readonly heartbeatMs: number;
      /** Start paused (see SelfPlayTransport.setPaused). */
      readonly paused: boolean;
      readonly setup: WorkerSetup;
      readonly weights: PublishedWeights;
    }
  | { readonly t: 'weights'; readonly version: number; readonly data: Uint8Array }
  | { readonly t: 'pause' }
  /** Pause once `games` more games have been sent (see SelfPlayTransport.pauseAfter). */
  | { readonly t: 'pause-after'; readonly games: number }
  | { readonly t: 'resume' }
  | { readonly t: 'stop' };

/** Worker -> trainer. */
export type FromWorkerMessage =
  | { readonly t: 'ready'; readonly backend: string; readonly weightsVersion: number }
  /**
   * The games finished in one search step, in order: game i has sequence number `firstSeq + i`. One
   * message per step rather than per game: a step of 64 tic-tac-toe games finishes ~8 of them, and a
   * message each cost the worker and the trainer more than the games. With the worker's stats as of the
   * last of them, so per-iteration rates need not wait for a heartbeat.
   */
  | ({ readonly t: 'games'; readonly firstSeq: number; readonly games: readonly FinishedGameMessage[]; readonly stats: WorkerPlayStats })
  | ({ readonly t: 'beat'; readonly weightsVersion: number } & WorkerPlayStats)
  /** A problem restarting will not fix (wrong game module, encoder mismatch): the trainer gives up. */
  | { readonly t: 'fatal'; readonly message: string }
  /** An error about to crash the worker (it exits right after; the trainer restarts it). */
  | { readonly t: 'error'; readonly message: string };

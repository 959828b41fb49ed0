/** What a training run reports: events for a front end, one metrics.jsonl line per iteration, the summary. */
import type { AgentAssessment } from '@az/core';
import type { SelfPlayOutcomes } from './outcome-tally.js';
import type { WorkerEvent } from './transport.js';

/** 'records' reads game records and 'pretrain' trains on them alone, both before the first iteration (`az train --records`). */
export type TrainPhase = 'records' | 'pretrain' | 'self-play' | 'train' | 'eval' | 'assess';

/** What a front end (the CLI's progress bars, a test) hears from a run. */
export interface TrainerEvents {
  phase?(phase: TrainPhase, total: number, iteration: number): void;
  progress?(done: number): void;
  iteration?(metrics: IterationMetrics): void;
  log?(message: string): void;
  /** Multi-process runs: a self-play worker started, exited, restarted... */
  worker?(event: WorkerEvent): void;
  /**
   * After each iteration's checkpoint is written, before its metrics line: whatever this returns is
   * recorded as the line's `rating` (e.g. the new checkpoint's Elo, see `az train --rate-every`).
   */
  rate?(iteration: number, checkpointDir: string): Promise<Readonly<Record<string, unknown>> | undefined>;
}

export interface ArenaSummary {
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly meanReturn: number;
}

/** An iteration's NN-cache counters: lookups made and how many the cache answered. */
export interface CacheCounters {
  readonly lookups: number;
  readonly hits: number;
}

/**
 * The `selfPlay.cacheHitRate` field from an iteration's cache counters (the single-process loop's cache,
 * or the workers' counters summed over the iteration): hits / lookups; nothing without a cache
 * (`undefined`) or without a lookup.
 */
export function cacheHitRateField(counters: CacheCounters | undefined): { cacheHitRate?: number } {
  return counters && counters.lookups > 0 ? { cacheHitRate: counters.hits / counters.lookups } : {};
}

/** One line of metrics.jsonl. */
export interface IterationMetrics {
  readonly iteration: number;
  readonly weightsVersion: number;
  readonly time: string;
  /** Seconds since this session's run started (the clock `--time-limit` counts), at the checkpoint. */
  readonly sessionSeconds: number;
  /**
   * `total` includes writing the checkpoint, except in a line a resume restored from the checkpoint's
   * own record (its session was killed before the line: see metrics-log.ts), which also lacks `rating`.
   */
  readonly seconds: { readonly selfPlay: number; readonly train: number; readonly eval: number; readonly total: number };
  readonly selfPlay: {
    readonly games: number;
    readonly positions: number;
    readonly evaluations: number;
    readonly gamesPerSecond: number;
    readonly evalsPerSecond: number;
    readonly averageBatch: number;
    /**
     * With `evalCacheSize`: share of this iteration's cache lookups (leaf evaluations) answered by the NN
     * cache, summed over all workers in a multi-process run (`cacheHitRateField`). Absent without lookups.
     */
    readonly cacheHitRate?: number;
    /** With a playout cap: share of moves searched in full (and recorded). */
    readonly fullSearchShare?: number;
    /** How this iteration's games ended (games accepted into the replay buffer). */
    readonly outcomes: SelfPlayOutcomes;
  };
  readonly train: {
    readonly steps: number;
    readonly policyLoss: number;
    readonly valueLoss: number;
    readonly l2: number;
    readonly total: number;
    readonly positionsPerSecond: number;
    /** The learning rate of this iteration's steps (`learningRateAt`). */
    readonly learningRate: number;
    /** With records (`az train --records`): the share of each minibatch drawn from them. */
    readonly recordsShare?: number;
  };
  readonly replay: { readonly size: number; readonly totalAdded: number };
  /** Arena results of the current network (with search) against each opponent. */
  readonly eval: Readonly<Record<string, ArenaSummary>>;
  /** Multi-process runs only: where this iteration's games came from and what happened to the workers. */
  readonly workers?: WorkerIterationMetrics;
  /** What the `rate` event returned for this iteration's checkpoint (an Elo estimate), when it ran. */
  readonly rating?: Readonly<Record<string, unknown>>;
}

/** Per device (e.g. 'gpu:1', 'cpu:0'), for one iteration of a multi-process run. */
export interface DeviceIterationMetrics {
  /** Games accepted into the replay buffer from this device's workers. */
  readonly games: number;
  readonly positions: number;
  /** Worker processes restarted on this device (crashed or hung). */
  readonly restarts: number;
  /** Games from this device dropped on arrival as too old. */
  readonly staleGamesDropped: number;
}

/** The multi-process part of a metrics.jsonl line (counts are for this iteration unless named total). */
export interface WorkerIterationMetrics {
  readonly devices: Readonly<Record<string, DeviceIterationMetrics>>;
  /** Worker processes live at the end of the iteration. */
  readonly live: number;
  readonly restarts: number;
  readonly staleGamesDropped: number;
  /** Games dropped because this iteration's (or the previous one's) games were already all in: see `MultiProcessSummary.surplusGamesDropped`. */
  readonly surplusGamesDropped: number;
  /** Games received over IPC (accepted + stale + surplus + corrupt). */
  readonly gamesReceived: number;
  /** Oldest weights version a game may carry and still be accepted (current version - max age). */
  readonly minAcceptedVersion: number;
  /** Mean age in weights versions of the games accepted this iteration. */
  readonly meanGameAge: number;
  readonly totalRestarts: number;
  readonly totalStaleGamesDropped: number;
}

export interface TrainSummary {
  readonly game: string;
  readonly iterations: number;
  readonly seconds: number;
  readonly gamesPlayed: number;
  /** The run directory (what `--resume` and `az play --model` take). */
  readonly runDir: string;
  /** The newest checkpoint directory. */
  readonly checkpointDir: string;
  readonly metricsFile: string;
  readonly lastMetrics?: IterationMetrics;
  readonly assessment?: AgentAssessment;
  /** True when the run stopped early on request (Ctrl-C); the checkpoint holds what was done. */
  readonly interrupted: boolean;
  /** Set when the time limit (`--time-limit`) ended the run before its iteration count: the budget in seconds. */
  readonly timeLimitReached?: number;
  readonly backend: string;
}

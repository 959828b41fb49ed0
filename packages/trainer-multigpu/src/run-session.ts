/**
 * A training session on an opened run (run-open.ts opens one): what the single-process and the
 * multi-process loops share, and how the run is saved, closed and ended. The run directory stays locked
 * from the open to endRun (or disposeRun on an error path).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentAssessment, Game, GamePlugin, ResolvedConfig, Rng } from '@az/core';
import { listCheckpoints, saveRunCheckpoint, type BackendInfo, type NetworkTrainer } from '@az/nn';
import { defaultPlaySimulations } from '@az/mcts';
import type { IterationMetrics, TrainerEvents, TrainSummary } from './metrics.js';
import { METRICS_RECORD_FILE, metricsRecordBytes } from './metrics-log.js';
import type { TrainOptions } from './options.js';
import type { ReplayBuffer } from './replay-buffer.js';
import { REPLAY_INDEX_FILE, parseReplayIndex, pruneReplay, saveReplay, type ReplayIndex } from './replay-store.js';
import type { RunPaths } from './run-dir.js';
import type { RunLock } from './run-lock.js';
import { disposeNetworks, refreshEngines, trainingWeightsFiles, type RunNetworks } from './run-networks.js';
import { makeSearchAgent } from './search-settings.js';
import { formatDuration, type TimeBudget } from './time-budget.js';

/** Where the run is: the checkpoint manifest's iteration and weights version, and what its `extra` carries (games played, the rng's state). */
export interface TrainerState {
  iteration: number;
  weightsVersion: number;
  gamesPlayed: number;
  rngState: number[];
}

/** Internal to this package: the loops are the public API. */
export interface RunSession {
  readonly plugin: GamePlugin;
  readonly options: TrainOptions;
  readonly backend: BackendInfo;
  readonly game: Game<unknown>;
  readonly gameConfig: ResolvedConfig;
  readonly paths: RunPaths;
  /** The run directory's lock, held until disposeRun (see run-lock.ts). */
  readonly lock: RunLock;
  /** The trained and the playing network, on their inference engines (see run-networks.ts). */
  readonly networks: RunNetworks;
  /** The optimizer of `networks.model`. */
  readonly trainer: NetworkTrainer;
  readonly replay: ReplayBuffer;
  readonly state: TrainerState;
  /** Drives every seed of the run (self-play, sampling); its state is checkpointed. */
  readonly rng: Rng;
  /** The replay segments the newest checkpoint lists (null before a run's first save); set by saveRun. */
  replayIndex: ReplayIndex | null;
  /** The newest checkpoint directory (null until the first save of a new run); set by saveRun. */
  latestCheckpoint: string | null;
  readonly startedAt: number;
  /** The session's wall-clock budget (`--time-limit`): told of each finished iteration, asked before the next. */
  readonly timeBudget: TimeBudget;
  readonly events: TrainerEvents;
  readonly stopped: () => boolean;
  log(message: string): void;
}

/** Brings the session's engines up to its current weights version. */
export function refreshInference(run: RunSession): Promise<void> {
  return refreshEngines(run.networks, run.state.weightsVersion);
}

/**
 * Writes a new checkpoint (the playing network, the optimizer, iteration, weights version, rng, replay
 * index) and the replay's new positions; with `metrics`, the iteration's metrics record too (see
 * metrics-log.ts). Segments no kept checkpoint lists any more are pruned.
 */
export async function saveRun(run: RunSession, extra: Readonly<Record<string, unknown>> = {}, metrics?: IterationMetrics): Promise<void> {
  const { paths, state, game, networks } = run;
  state.rngState = run.rng.getState();
  // Games may arrive while the replay segment is written (multi-process intake): the checkpoint
  // counts those its replay index holds.
  const gamesPlayed = state.gamesPlayed;
  const index = await saveReplay(paths.dir, run.replay, run.replayIndex);
  const saved = await saveRunCheckpoint(
    paths.dir,
    networks.playingModel,
    {
      gameId: game.traits.id,
      gameConfig: run.gameConfig,
      encoderVersion: game.encoder.version,
      iteration: state.iteration,
      weightsVersion: state.weightsVersion,
      network: networks.config,
      backend: run.backend.name,
      extra: { ...extra, gamesPlayed, rngState: state.rngState },
    },
    run.trainer.getOptimizerState(),
    {
      keep: run.options.keepCheckpoints,
      extraFiles: {
        [REPLAY_INDEX_FILE]: JSON.stringify(index) + '\n',
        ...(metrics ? { [METRICS_RECORD_FILE]: metricsRecordBytes(metrics) } : {}),
        ...trainingWeightsFiles(networks),
      },
    },
  );
  run.replayIndex = index;
  run.latestCheckpoint = saved.entry.dir;
  const inUse = segmentsInUse(paths.dir);
  if (inUse) await pruneReplay(paths.dir, inUse);
}

/** Segment files the kept checkpoints list; when one cannot be read, every segment counts as in use. */
function segmentsInUse(runDir: string): Set<string> | null {
  const files = new Set<string>();
  for (const entry of listCheckpoints(runDir)) {
    try {
      const index = parseReplayIndex(readFileSync(join(entry.dir, REPLAY_INDEX_FILE), 'utf8'), entry.dir);
      for (const s of index.segments) files.add(s.file);
    } catch {
      return null;
    }
  }
  return files;
}

/**
 * Whether the run goes on to another iteration: its count not reached, no stop asked, and the time limit
 * leaving room for one more (said once in the log when it does not).
 */
export function anotherIteration(run: RunSession): boolean {
  const { options, state, timeBudget } = run;
  if (state.iteration >= options.iterations || run.stopped()) return false;
  if (!timeBudget.wouldOverrun()) return true;
  run.log(
    `time limit ${formatDuration(timeBudget.limitSeconds)}: stopping after iteration ${state.iteration} at ${formatDuration(Math.round(timeBudget.elapsedSeconds()))} (another would take about ${formatDuration(Math.round(timeBudget.lastIterationSeconds()))})`,
  );
  return false;
}

/**
 * Closes a run: a final checkpoint when it was interrupted, the game's own assessment of the final network
 * when it was not, and the tensors freed. The run stays locked until endRun.
 */
export async function closeRun(run: RunSession, interrupted: boolean, lastMetrics: IterationMetrics | undefined, saveExtra?: () => Readonly<Record<string, unknown>>): Promise<TrainSummary> {
  const { options, game, state, paths } = run;
  if (interrupted) {
    await saveRun(run, saveExtra?.());
    run.log(`interrupted: checkpoint written at iteration ${state.iteration} to ${run.latestCheckpoint}`);
  }
  const assessment = interrupted ? undefined : await assessPlayingNetwork(run);
  freeTensors(run);
  const timeLimitReached = !interrupted && state.iteration < options.iterations && run.timeBudget.limitSeconds > 0 ? run.timeBudget.limitSeconds : undefined;
  return {
    game: game.traits.id,
    iterations: state.iteration,
    seconds: (performance.now() - run.startedAt) / 1000,
    gamesPlayed: state.gamesPlayed,
    runDir: paths.dir,
    checkpointDir: run.latestCheckpoint ?? paths.checkpoints,
    metricsFile: paths.metrics,
    lastMetrics,
    assessment,
    interrupted,
    ...(timeLimitReached !== undefined ? { timeLimitReached } : {}),
    backend: run.backend.name,
  };
}

/** The game's own assessment of the playing network at its play-time search (undefined when the game has none). */
async function assessPlayingNetwork(run: RunSession): Promise<AgentAssessment | undefined> {
  const { plugin, options, game, state } = run;
  if (!plugin.assessAgent) return undefined;
  await refreshInference(run);
  run.events.phase?.('assess', 0, state.iteration);
  const playSettings: TrainOptions = { ...options, evalSimulations: defaultPlaySimulations(plugin) };
  return plugin.assessAgent(game, makeSearchAgent(game, run.networks.playingEvaluator, playSettings, options.seed));
}

/**
 * The last of a session that closed (after closeRun, and whatever the loop still had to do with the run:
 * the Redis acknowledgements): summary.json, then the run directory unlocked.
 */
export function endRun<S extends TrainSummary>(run: RunSession, summary: S): S {
  try {
    const { lastMetrics: _last, ...rest } = summary;
    writeFileSync(run.paths.summary, JSON.stringify({ ...rest, finished: new Date().toISOString() }, null, 2) + '\n');
  } finally {
    disposeRun(run);
  }
  return summary;
}

/**
 * Ends the session: its tensors freed and the run directory unlocked. Safe to call again (error paths may
 * reach it after closeRun or endRun).
 */
export function disposeRun(run: RunSession): void {
  freeTensors(run);
  run.lock.release();
}

const disposedRuns = new WeakSet<RunSession>();

function freeTensors(run: RunSession): void {
  if (disposedRuns.has(run)) return;
  disposedRuns.add(run);
  run.trainer.dispose();
  disposeNetworks(run.networks);
}

/**
 * Opening a run: its options resolved (a resume's checkpoint fixes the game config and network, the
 * caller's options fix the rest), every size and the run directory checked before anything is created,
 * then the directory claimed (its lock, and for a new run the directory itself) and, with it held, the
 * backend, networks, optimizer and replay buffer set up and options.json written.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { Rng, defaultRegistry, resolveGameConfig, type Game, type GamePlugin, type GameRegistry, type NetworkConfig, type ResolvedConfig } from '@az/core';
import { NetworkTrainer, initBackend, writeFileAtomic } from '@az/nn';
import type { TrainerEvents } from './metrics.js';
import { discardLaterMetrics, restoreCommittedMetrics } from './metrics-log.js';
import { resolveTrainOptions, type TrainOptions, type TrainOptionsInput } from './options.js';
import { ReplayBuffer } from './replay-buffer.js';
import type { ReplayIndex } from './replay-store.js';
import { checkRunFitsMemory, claimRunDirectory, runPaths, type RunPaths } from './run-dir.js';
import { acquireRunLock, checkRunUnlocked, type RunLock, type RunLockOptions } from './run-lock.js';
import { disposeModels, openRunNetworks, trainedAndPlayingModels, type RunNetworks } from './run-networks.js';
import {
  changedOptions,
  checkIterationsAhead,
  findResumePoint,
  loadResumedCheckpoint,
  readResumedReplay,
  resumedInput,
  resumedState,
  type ResumePoint,
  type ResumedCheckpoint,
} from './run-resume.js';
import type { RunSession, TrainerState } from './run-session.js';
import { TimeBudget } from './time-budget.js';

export interface RunDeps {
  registry?: GameRegistry;
  events?: TrainerEvents;
  signal?: AbortSignal;
  /** The command the run's lock records, for whoever finds the run taken, as words (default: this process's arguments). */
  command?: readonly string[];
}

/** What openRun has settled before the run directory is taken. */
interface SettledRun {
  readonly plugin: GamePlugin;
  readonly options: TrainOptions;
  readonly game: Game<unknown>;
  readonly gameConfig: ResolvedConfig;
  readonly replayShape: ReplayBuffer['shape'];
  readonly paths: RunPaths;
  readonly resume: ResumePoint | null;
}

/**
 * Opens a run for a session: settled and checked, then claimed, then set up with the directory held (the
 * lock is released again when the setup fails).
 */
export async function openRun(input: TrainOptionsInput, deps: RunDeps): Promise<RunSession> {
  const log = (m: string): void => deps.events?.log?.(m);
  const plugin = (deps.registry ?? defaultRegistry).resolve(input.game);
  const resume = input.resume ? await findResumePoint(input.resume, input, plugin) : null;
  const options = resolveTrainOptions(resume ? resumedInput(resume, input, log) : input, plugin);
  const refusing = forceRefusal(options);
  if (resume) checkIterationsAhead(resume, options, input);
  else checkRunUnlocked(options.out, { refusing });
  const settled = settleRun(plugin, options, resume);
  const lock = claimRun(settled.paths, options, plugin.traits.id, resume !== null, { command: deps.command, log, refusing });
  try {
    return await openClaimedRun(settled, lock, deps);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** The game the run plays and the checks of its sizes, before anything in the run directory changes. */
function settleRun(plugin: GamePlugin, options: TrainOptions, resume: ResumePoint | null): SettledRun {
  const gameConfig = resolveGameConfig(plugin, options.gameConfig);
  const game = plugin.create(gameConfig);
  if (options.valueShaping > 0 && !game.estimateReturns) {
    throw new RangeError(`valueShaping ${options.valueShaping}: game '${plugin.traits.id}' has no estimateReturns to shape value targets with (use 0)`);
  }
  const replayShape = { inputSize: game.encoder.size, actionSize: game.masker.actionSize, numSeats: game.numPlayers, policyWidth: 256 };
  checkRunFitsMemory(options.replayCapacity, options.batchSize, replayShape);
  return { plugin, options, game, gameConfig, replayShape, paths: runPaths(options.out), resume };
}

/** What a refusal of --force adds: that it archived nothing. */
function forceRefusal(options: TrainOptions): string | undefined {
  return options.force ? '--force moves no run aside while it is being trained' : undefined;
}

/**
 * Takes the run directory for the session: its lock, refused while another session holds it, before
 * anything is changed; then, for a new run, the directory itself (refused when it holds a run; with
 * --force the old run is moved aside, its lock with it: the archive's is dropped once the new
 * directory's is taken).
 */
function claimRun(paths: RunPaths, options: TrainOptions, gameId: string, resuming: boolean, lockOptions: RunLockOptions): RunLock {
  const lock = acquireRunLock(paths.dir, lockOptions);
  if (resuming) return lock;
  let archived: string | null;
  try {
    archived = claimRunDirectory(options.out, gameId, options.force === true);
  } catch (err) {
    lock.release();
    throw err;
  }
  if (archived === null) return lock;
  lock.movedWith(archived);
  lockOptions.log?.(`--force: the previous contents of ${paths.dir} were moved to ${archived}`);
  try {
    return acquireRunLock(paths.dir, lockOptions);
  } finally {
    lock.release();
  }
}

/** The rest of openRun, with the run directory held: backend, models, optimizer, trainer state and replay, options.json, engines. */
async function openClaimedRun(settled: SettledRun, lock: RunLock, deps: RunDeps): Promise<RunSession> {
  const { options, game, gameConfig, paths, resume } = settled;
  const events = deps.events ?? {};
  const log = (m: string): void => events.log?.(m);
  const backend = await initBackend(options.backend);
  log(`backend: ${backend.name}${backend.skipped.length ? ` (skipped ${backend.skipped.map((s) => s.name).join(', ')})` : ''}`);

  const resumed = resume ? await loadResumedCheckpoint(resume, game, log) : null;
  const networkConfig: NetworkConfig = { spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };
  const models = trainedAndPlayingModels(resumed, networkConfig, options, log);
  const trainer = new NetworkTrainer(models.model, networkConfig, { learningRate: options.learningRate, weightDecay: options.weightDecay });
  if (resumed?.optimizerState) trainer.setOptimizerState(resumed.optimizerState);
  let progress: RunProgress;
  let networks: RunNetworks;
  try {
    progress = await restoreProgress(settled, resumed, log);
    networks = await openRunNetworks(models, networkConfig, game, options, progress.state.weightsVersion, log);
  } catch (err) {
    trainer.dispose();
    disposeModels(models);
    throw err;
  }
  const rng = new Rng(0);
  rng.setState(progress.state.rngState);
  if (game.traits.information === 'imperfect' && options.selfPlaySearchMethod === 'information-set') {
    log(`self-play: information-set search, one tree per game, ${options.determinizations} x ${options.simulations} simulations a move, a world each (--self-play-search information-set)`);
  }
  const startedAt = performance.now();
  return {
    plugin: settled.plugin,
    options,
    backend,
    game,
    gameConfig,
    paths,
    lock,
    networks,
    trainer,
    replay: progress.replay,
    state: progress.state,
    rng,
    replayIndex: progress.replayIndex,
    latestCheckpoint: resume?.checkpointDir ?? null,
    startedAt,
    timeBudget: new TimeBudget(options.timeLimitSeconds, startedAt),
    events,
    stopped: () => deps.signal?.aborted === true,
    log,
  };
}

/** Where a session starts: the trainer's state and the replay buffer, fresh or as the resumed checkpoint left them. */
interface RunProgress {
  readonly state: TrainerState;
  readonly replay: ReplayBuffer;
  readonly replayIndex: ReplayIndex | null;
}

/**
 * The trainer's state and replay buffer (and, resuming, the metrics history put back in line with the
 * checkpoint), then options.json written and what a resume changed recorded.
 */
async function restoreProgress(settled: SettledRun, resumed: ResumedCheckpoint | null, log: (m: string) => void): Promise<RunProgress> {
  const { options, paths, resume, replayShape } = settled;
  const fresh: TrainerState = { iteration: 0, weightsVersion: 0, gamesPlayed: 0, rngState: new Rng(options.seed).getState() };
  if (!resumed || !resume) {
    await recordRunOptions(paths, options, settled.gameConfig);
    return { state: fresh, replay: new ReplayBuffer(options.replayCapacity, replayShape), replayIndex: null };
  }
  const state = resumedState(resumed.manifest, fresh);
  const { replay, replayIndex } = readResumedReplay(resume, paths, options, replayShape, log);
  discardLaterMetrics(paths, state.iteration, log);
  restoreCommittedMetrics(paths, resume.checkpointDir, resumed.manifest, log);
  log(`resumed from ${resume.checkpointDir} at iteration ${state.iteration} (weights v${state.weightsVersion}, replay ${replay.size} positions)`);
  // Read before options.json is replaced, recorded once it is (a failed write leaves both as they were).
  const changes = changedOptions(paths.options, options);
  await recordRunOptions(paths, options, settled.gameConfig);
  recordChanges(paths, state.iteration, changes, log);
  return { state, replay, replayIndex };
}

/**
 * Writes options.json whole or not at all: a run killed or out of disk here keeps the options.json it had
 * (none, for a new run), never an empty one no resume can read.
 */
async function recordRunOptions(paths: RunPaths, options: TrainOptions, gameConfig: ResolvedConfig): Promise<void> {
  const { force: _force, ...recorded } = options;
  mkdirSync(paths.dir, { recursive: true });
  try {
    await writeFileAtomic(paths.options, JSON.stringify({ ...recorded, gameConfig }, null, 2) + '\n');
  } catch (err) {
    throw new Error(
      `cannot write ${paths.options} (${err instanceof Error ? err.message : String(err)}); nothing was trained and the run's files are as they were: free some disk space (or fix the cause) and run the same command again`,
    );
  }
}

/** What a resume changed of the run's options, appended to changes.jsonl and said in the log. */
function recordChanges(paths: RunPaths, iteration: number, changes: Record<string, [unknown, unknown]>, log: (m: string) => void): void {
  if (Object.keys(changes).length === 0) return;
  appendFileSync(paths.changes, JSON.stringify({ time: new Date().toISOString(), iteration, changes }) + '\n');
  log(`resume changes ${Object.entries(changes).map(([k, [a, b]]) => `${k} ${JSON.stringify(a)} -> ${JSON.stringify(b)}`).join(', ')} (recorded in ${paths.changes})`);
}

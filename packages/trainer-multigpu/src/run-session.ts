/**
 * A training run opened from its options (and its newest checkpoint, when resuming): everything the
 * single-process and the multi-process loops share, and how a run is saved and closed.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import {
  ConfigError,
  Rng,
  defaultRegistry,
  resolveGameConfig,
  type AgentAssessment,
  type Game,
  type GamePlugin,
  type GameRegistry,
  type NetworkConfig,
  type ResolvedConfig,
} from '@az/core';
import {
  CheckpointError,
  NetworkTrainer,
  buildModel,
  openInferenceEngine,
  foldWeightsAverage,
  initBackend,
  listCheckpoints,
  loadCheckpoint,
  readCheckpointManifest,
  removeStaleTemporaries,
  saveRunCheckpoint,
  serializeWeights,
  loadWeightsInto,
  verifyCheckpointFile,
  verifyCheckpointFiles,
  writeFileAtomic,
  type BackendInfo,
  type CheckpointManifest,
  type InferenceEngine,
  type LayersModel,
  type OptimizerState,
} from '@az/nn';
import { NetworkEvaluator, defaultPlaySimulations } from '@az/mcts';
import type { IterationMetrics, TrainerEvents, TrainSummary } from './metrics.js';
import { UNBOUNDED_ITERATIONS, resolveTrainOptions, type TrainOptions, type TrainOptionsInput } from './options.js';
import { METRICS_RECORD_FILE, discardLaterMetrics, metricsRecordBytes, restoreCommittedMetrics } from './metrics-log.js';
import { ReplayBuffer } from './replay-buffer.js';
import { REPLAY_INDEX_FILE, loadReplay, parseReplayIndex, pruneReplay, saveReplay, type ReplayIndex } from './replay-store.js';
import { RunDirectoryError, checkRunFitsMemory, claimRunDirectory, resolveResume, runPaths, type RunPaths } from './run-dir.js';
import { acquireRunLock, checkRunUnlocked, type RunLock, type RunLockOptions } from './run-lock.js';
import { makeSearchAgent, selfPlayWorkload } from './search-settings.js';
import { TimeBudget, formatDuration } from './time-budget.js';

/**
 * With a weights average on, a checkpoint's model files (model.json, weights.bin, model.onnx) hold the
 * average, so everything that plays from a checkpoint plays the average; the trained weights, which a
 * resumed run trains on, are this file (float32, in `model.weights` order: `serializeWeights`' layout).
 */
export const TRAINING_WEIGHTS_FILE = 'training-weights.bin';

/** What a checkpoint's `extra` carries besides the manifest's iteration and weights version. */
interface TrainerState {
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
  readonly networkConfig: NetworkConfig;
  readonly paths: RunPaths;
  /** The run directory's lock, held until disposeRun (see run-lock.ts). */
  readonly lock: RunLock;
  /** The network being trained (self-play plays it). */
  readonly model: LayersModel;
  /**
   * The network that plays for the run (evaluation, checkpoints, the final assessment): `model` itself, or
   * the moving average of its weights when `weightsAverageDecay` > 0.
   */
  readonly playingModel: LayersModel;
  readonly trainer: NetworkTrainer;
  readonly replay: ReplayBuffer;
  readonly state: TrainerState;
  /** Drives every seed of the run (self-play, sampling); its state is checkpointed. */
  readonly rng: Rng;
  /** The network the search calls, on the inference engine (an onnxruntime session on a snapshot of the weights, or the training model on tfjs). */
  readonly inference: InferenceEngine;
  /** The trained network with search: single-process self-play. */
  readonly evaluator: NetworkEvaluator<unknown>;
  /** `playingModel` with search: evaluation and the final assessment (`evaluator` when there is no average). */
  readonly playingEvaluator: NetworkEvaluator<unknown>;
  /** Brings both evaluators' engines up to the current weights version (`InferenceEngine.refresh`). */
  refreshInference(): Promise<void>;
  /** Folds the weights just trained in `iteration` into `playingModel` (nothing without an average). */
  foldWeightsAverage(iteration: number): void;
  /** The newest checkpoint directory (null until the first save of a new run). */
  readonly latestCheckpoint: () => string | null;
  readonly startedAt: number;
  /** The session's wall-clock budget (`--time-limit`): told of each finished iteration, asked before the next. */
  readonly timeBudget: TimeBudget;
  readonly events: TrainerEvents;
  readonly stopped: () => boolean;
  log(message: string): void;
  /**
   * A new checkpoint (weights, optimizer, iteration, weights version, rng, replay index) and the replay's
   * new positions; with `metrics`, the iteration's metrics record too (see metrics-log.ts).
   */
  saveAll(extra?: Readonly<Record<string, unknown>>, metrics?: IterationMetrics): Promise<void>;
}

export interface RunDeps {
  registry?: GameRegistry;
  events?: TrainerEvents;
  signal?: AbortSignal;
  /** The command the run's lock records, for whoever finds the run taken, as words (default: this process's arguments). */
  command?: readonly string[];
}

/** Options a resume cannot change (the network depends on them); the rest it applies and records. */
function refuseFixedChanges(input: TrainOptionsInput, manifest: CheckpointManifest, plugin: GamePlugin, runDir: string): void {
  if (input.gameConfig && Object.keys(input.gameConfig).length > 0) {
    const given = input.gameConfig;
    let asked: Readonly<Record<string, unknown>>;
    try {
      asked = resolveGameConfig(plugin, { ...manifest.gameConfig, ...given });
    } catch (err) {
      // The setting asked for clashes with one the run fixes (Blob: roundCards above its maxHand, or rounds=game
      // with the run's roundCards): it is a change all the same. (An unknown setting, or a clash no setting
      // asked for changes, is the game's own error, said as it is.)
      if (!(err instanceof ConfigError) || !Object.hasOwn(plugin.configSchema, err.field)) throw err;
      asked = given;
      if (!Object.keys(given).some((k) => String(given[k]) !== String(manifest.gameConfig[k]))) throw err;
    }
    const changed = Object.keys(given).filter((k) => String(asked[k]) !== String(manifest.gameConfig[k]));
    if (changed.length) {
      const k = changed[0];
      throw new RunDirectoryError(runDir, `--resume cannot change the game settings the network was trained for: the run has ${k}=${String(manifest.gameConfig[k])}, --config asks for ${k}=${String(asked[k])} (start a new run with --out to train that)`);
    }
  }
  if (input.network && JSON.stringify(input.network) !== JSON.stringify(manifest.network.spec)) {
    throw new RunDirectoryError(runDir, `--resume cannot change the network: the run's is ${JSON.stringify(manifest.network.spec)}, --network asks for ${JSON.stringify(input.network)} (start a new run with --out to train that)`);
  }
}

/** A damaged newest checkpoint: the error, plus how to go back to the one before it when there is one. */
function withRollbackHint(err: unknown, runDir: string, damaged: string): unknown {
  if (!(err instanceof CheckpointError)) return err;
  // Damage outside the checkpoint's own folder (the run's replay segments, which every checkpoint lists)
  // is in the older checkpoints too: sending the user back to one would only repeat the error.
  const inside = err.path === damaged || err.path.startsWith(damaged + sep);
  if (!inside) {
    return new CheckpointError(
      err.path,
      `${err.message}. It is shared by the run's checkpoints, not part of ${basename(damaged)} alone, so an older checkpoint will not get past it: restore it, or start a new run (--out; the weights in ${damaged} still play with az play / az eval)`,
    );
  }
  const older = listCheckpoints(runDir).filter((c) => c.dir !== damaged).at(-1);
  if (!older) return err;
  return new CheckpointError(
    err.path,
    `${err.message}. The run's previous checkpoint is ${older.name}: to continue from it, move ${damaged} out of ${dirname(damaged)} (keep it for inspection) and resume again`,
  );
}

/**
 * A resumed run keeps the settings it was running with (options.json) unless a flag says otherwise. An
 * unreadable file is refused: resuming on the game's defaults instead (256 games an iteration where the
 * run had 6) would change the run without a word. A missing one is said out loud, then the defaults apply.
 */
function recordedOptions(path: string, log: (m: string) => void): Partial<TrainOptionsInput> {
  if (!existsSync(path)) {
    log(`warning: ${path} is missing: the resumed run takes the game's defaults and this command's flags, not the settings it ran with (they are not recorded anywhere else)`);
    return {};
  }
  const unreadable = (why: string): RunDirectoryError =>
    new RunDirectoryError(
      path,
      `cannot resume: ${path}, the settings the run was trained with, is unreadable (${why}). Repair it, or delete it to resume with the game's defaults and the flags you give (say every setting the run used, e.g. --games-per-iter, --sims)`,
    );
  let recorded: unknown;
  try {
    recorded = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw unreadable(err instanceof Error ? err.message : String(err));
  }
  if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) throw unreadable('not a JSON object');
  const { out: _out, resume: _resume, force: _force, gameConfig: _config, network: _network, game: _game, ...rest } = recorded as TrainOptionsInput;
  return rest;
}

/**
 * What a resumed session keeps of the run's recorded options. The time limit was the earlier session's
 * budget, never carried over. The iteration count is dropped when this session gives a time limit
 * without one (the budget alone then ends it), and when the earlier session ran to a time limit only
 * (its count was no count): the game's default applies, or the user's --iterations.
 */
function resumableOptions(recorded: Partial<TrainOptionsInput>, input: TrainOptionsInput): Partial<TrainOptionsInput> {
  const { timeLimitSeconds: _limit, iterations, ...rest } = recorded;
  const keepCount = iterations !== undefined && iterations !== UNBOUNDED_ITERATIONS && !(input.timeLimitSeconds && input.iterations === undefined);
  return keepCount ? { ...rest, iterations } : rest;
}

/** Options that differ from the previous session's options.json, as [old, new]. */
function changedOptions(previousPath: string, options: TrainOptions): Record<string, [unknown, unknown]> {
  if (!existsSync(previousPath)) return {};
  let previous: Record<string, unknown>;
  try {
    previous = JSON.parse(readFileSync(previousPath, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'resume' || key === 'out' || key === 'gameConfig' || key === 'force' || key === 'iterations' || key === 'timeLimitSeconds') continue;
    if (JSON.stringify(previous[key]) !== JSON.stringify(value)) changes[key] = [previous[key], value];
  }
  return changes;
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

/**
 * Resolves options (the checkpoint fixes the game config and network when resuming; the caller's options
 * fix the rest), checks every size and the run directory before creating anything, then initialises the
 * backend, builds or loads the model, optimizer and replay buffer, and writes options.json.
 */
export async function openRun(input: TrainOptionsInput, deps: RunDeps): Promise<RunSession> {
  const registry = deps.registry ?? defaultRegistry;
  const events = deps.events ?? {};
  const log = (m: string): void => events.log?.(m);
  const plugin = registry.resolve(input.game);

  let resumeFrom: ReturnType<typeof resolveResume> | null = null;
  let resumedManifest: CheckpointManifest | null = null;
  if (input.resume) {
    resumeFrom = resolveResume(input.resume);
    // A run another session trains is refused first, whatever else this resume would be refused for.
    checkRunUnlocked(resumeFrom.runDir);
    if (input.out !== undefined && runPaths(input.out).dir !== resumeFrom.runDir) {
      throw new RunDirectoryError(resumeFrom.runDir, `--resume continues the run in its own directory ${resumeFrom.runDir}; --out ${input.out} names another (leave --out out)`);
    }
    resumedManifest = await readCheckpointManifest(resumeFrom.checkpointDir, { gameId: plugin.traits.id });
    refuseFixedChanges(input, resumedManifest, plugin, resumeFrom.runDir);
  }
  const options = resolveTrainOptions(
    resumeFrom && resumedManifest
      ? { ...resumableOptions(recordedOptions(runPaths(resumeFrom.runDir).options, log), input), ...input, out: resumeFrom.runDir, gameConfig: resumedManifest.gameConfig, network: resumedManifest.network.spec }
      : input,
    plugin,
  );
  const refusing = forceRefusal(options);
  if (!resumeFrom) checkRunUnlocked(options.out, { refusing });
  if (resumedManifest && options.iterations <= resumedManifest.iteration) {
    throw new RunDirectoryError(
      resumeFrom?.runDir ?? '',
      input.iterations === undefined
        ? `the run is at iteration ${resumedManifest.iteration} already, and this session would train to ${options.iterations} (the run's earlier --iterations, else the game's default); give --iterations N with N above ${resumedManifest.iteration} (the total to reach), or --time-limit`
        : `the run is at iteration ${resumedManifest.iteration} already; --iterations ${options.iterations} asks for no more (--iterations is the total to reach: give more than ${resumedManifest.iteration})`,
    );
  }
  const gameConfig = resolveGameConfig(plugin, options.gameConfig);
  const game = plugin.create(gameConfig);
  if (options.valueShaping > 0 && !game.estimateReturns) {
    throw new RangeError(`valueShaping ${options.valueShaping}: game '${plugin.traits.id}' has no estimateReturns to shape value targets with (use 0)`);
  }
  const replayShape = { inputSize: game.encoder.size, actionSize: game.masker.actionSize, numSeats: game.numPlayers, policyWidth: 256 };
  checkRunFitsMemory(options.replayCapacity, options.batchSize, replayShape);
  const paths = runPaths(options.out);
  const lock = claimRun(paths, options, plugin.traits.id, resumeFrom !== null, { command: deps.command, log, refusing });
  try {
    return await openClaimedRun({ plugin, options, game, gameConfig, replayShape, paths, resumeFrom, resumedManifest, lock }, deps);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** What openRun has settled before the run directory is taken. */
interface ClaimedRun {
  readonly plugin: GamePlugin;
  readonly options: TrainOptions;
  readonly game: Game<unknown>;
  readonly gameConfig: ResolvedConfig;
  readonly replayShape: ReplayBuffer['shape'];
  readonly paths: RunPaths;
  readonly resumeFrom: ReturnType<typeof resolveResume> | null;
  readonly resumedManifest: CheckpointManifest | null;
  readonly lock: RunLock;
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

/** The rest of openRun, with the run directory held: backend, model, optimizer, replay, options.json, inference. */
async function openClaimedRun(claimed: ClaimedRun, deps: RunDeps): Promise<RunSession> {
  const { plugin, options, game, gameConfig, replayShape, paths, resumeFrom, resumedManifest, lock } = claimed;
  const events = deps.events ?? {};
  const log = (m: string): void => events.log?.(m);
  const backend = await initBackend(options.backend);
  log(`backend: ${backend.name}${backend.skipped.length ? ` (skipped ${backend.skipped.map((s) => s.name).join(', ')})` : ''}`);

  let resumed: { model: LayersModel; manifest: CheckpointManifest; optimizerState?: OptimizerState; optimizerMissing?: boolean } | null = null;
  if (resumeFrom) {
    await removeStaleTemporaries(resumeFrom.runDir);
    try {
      // Every file is checked, model.onnx too, though training does not read it: a damaged checkpoint is named, never built on.
      await verifyCheckpointFiles(resumeFrom.checkpointDir, resumedManifest ?? (await readCheckpointManifest(resumeFrom.checkpointDir)));
      resumed = await loadCheckpoint(resumeFrom.checkpointDir, { gameId: plugin.traits.id, encoderVersion: game.encoder.version });
    } catch (err) {
      throw withRollbackHint(err, resumeFrom.runDir, resumeFrom.checkpointDir);
    }
    if (resumed.optimizerMissing) log(`warning: the optimizer files of ${resumeFrom.checkpointDir} are missing: training continues with a fresh Adam state (moments reset)`);
  }
  const networkConfig: NetworkConfig = { spec: options.network, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: game.numPlayers };

  const { model, playingModel } = trainedAndPlayingModels(resumed, resumeFrom?.checkpointDir ?? null, networkConfig, options, log);
  const trainer = new NetworkTrainer(model, networkConfig, { learningRate: options.learningRate, weightDecay: options.weightDecay });
  if (resumed?.optimizerState) trainer.setOptimizerState(resumed.optimizerState);
  let replay: ReplayBuffer;
  let replayIndex: ReplayIndex | null = null;
  let changes: Record<string, [unknown, unknown]> = {};
  const state: TrainerState = { iteration: 0, weightsVersion: 0, gamesPlayed: 0, rngState: new Rng(options.seed).getState() };
  try {
    if (resumed && resumeFrom) {
      const extra = resumed.manifest.extra as Partial<TrainerState> | undefined;
      state.iteration = resumed.manifest.iteration;
      state.weightsVersion = resumed.manifest.weightsVersion;
      state.gamesPlayed = extra?.gamesPlayed ?? 0;
      if (Array.isArray(extra?.rngState)) state.rngState = extra.rngState;
      try {
        ({ replay, replayIndex } = readResumedReplay(resumeFrom.checkpointDir, resumed.manifest, paths, options, replayShape, log));
      } catch (err) {
        throw withRollbackHint(err, resumeFrom.runDir, resumeFrom.checkpointDir);
      }
      discardLaterMetrics(paths, state.iteration, log);
      restoreCommittedMetrics(paths, resumeFrom.checkpointDir, resumed.manifest, log);
      log(`resumed from ${resumeFrom.checkpointDir} at iteration ${state.iteration} (weights v${state.weightsVersion}, replay ${replay.size} positions)`);
      // Read before options.json is replaced, recorded once it is (a failed write leaves both as they were).
      changes = changedOptions(paths.options, options);
    } else {
      replay = new ReplayBuffer(options.replayCapacity, replayShape);
    }
    await recordRunOptions(paths, options, gameConfig);
    if (Object.keys(changes).length) {
      appendFileSync(paths.changes, JSON.stringify({ time: new Date().toISOString(), iteration: state.iteration, changes }) + '\n');
      log(`resume changes ${Object.entries(changes).map(([k, [a, b]]) => `${k} ${JSON.stringify(a)} -> ${JSON.stringify(b)}`).join(', ')} (recorded in ${paths.changes})`);
    }
  } catch (err) {
    trainer.dispose();
    model.dispose();
    throw err;
  }

  const rng = new Rng(0);
  rng.setState(state.rngState);
  // The search runs on the registry's engine (onnxruntime when it loads) while tfjs trains; 'auto' falls
  // back to the training model itself, with the reason logged.
  const engineOptions = { threads: options.inferenceThreads, workload: selfPlayWorkload(game, options), weightsVersion: state.weightsVersion, log };
  const inference = await openInferenceEngine(model, networkConfig, { ...engineOptions, engine: options.inferenceBackend });
  log(`inference: ${inference.describe()}`);
  const evaluator = new NetworkEvaluator(inference);
  const averaged = playingModel !== model;
  if (game.traits.information === 'imperfect' && options.selfPlaySearchMethod === 'information-set') {
    log(`self-play: information-set search, one tree per game, ${options.determinizations} x ${options.simulations} simulations a move, a world each (--self-play-search information-set)`);
  }
  if (averaged) log(`playing network: the moving average of the trained weights (decay ${options.weightsAverageDecay} per iteration); self-play uses the trained weights`);
  // The playing network on the engine the trained one got, without passing over engines again.
  const playingInference = averaged ? await openInferenceEngine(playingModel, networkConfig, { ...engineOptions, engine: inference.name }) : inference;
  const playingEvaluator = averaged ? new NetworkEvaluator(playingInference) : evaluator;
  const refreshInference = async (): Promise<void> => {
    await inference.refresh(state.weightsVersion);
    if (averaged) await playingInference.refresh(state.weightsVersion);
  };
  const foldAverage = (iteration: number): void => {
    if (!averaged) return;
    // Until the average spans 1 / (1 - decay) iterations it is the plain mean of those trained so far,
    // so the random initial weights never weigh in.
    foldWeightsAverage(playingModel, model, Math.min(options.weightsAverageDecay, (iteration - 1) / iteration));
  };

  let latest: string | null = resumeFrom?.checkpointDir ?? null;
  const saveAll = async (extra: Readonly<Record<string, unknown>> = {}, metrics?: IterationMetrics): Promise<void> => {
    state.rngState = rng.getState();
    // Games may arrive while the replay segment is written (multi-process intake): the checkpoint
    // counts those its replay index holds.
    const gamesPlayed = state.gamesPlayed;
    const index = await saveReplay(paths.dir, replay, replayIndex);
    const saved = await saveRunCheckpoint(
      paths.dir,
      playingModel,
      {
        gameId: game.traits.id,
        gameConfig,
        encoderVersion: game.encoder.version,
        iteration: state.iteration,
        weightsVersion: state.weightsVersion,
        network: networkConfig,
        backend: backend.name,
        extra: { ...extra, gamesPlayed, rngState: state.rngState },
      },
      trainer.getOptimizerState(),
      {
        keep: options.keepCheckpoints,
        extraFiles: {
          [REPLAY_INDEX_FILE]: JSON.stringify(index) + '\n',
          ...(metrics ? { [METRICS_RECORD_FILE]: metricsRecordBytes(metrics) } : {}),
          ...(averaged ? { [TRAINING_WEIGHTS_FILE]: new Uint8Array(serializeWeights(model).data) } : {}),
        },
      },
    );
    replayIndex = index;
    latest = saved.entry.dir;
    const inUse = segmentsInUse(paths.dir);
    if (inUse) await pruneReplay(paths.dir, inUse);
  };

  const startedAt = performance.now();
  const session: RunSession = {
    plugin,
    options,
    backend,
    game,
    gameConfig,
    networkConfig,
    paths,
    lock,
    model,
    playingModel,
    trainer,
    replay,
    state,
    rng,
    inference,
    evaluator,
    playingEvaluator,
    startedAt,
    timeBudget: new TimeBudget(options.timeLimitSeconds, startedAt),
    events,
    stopped: () => deps.signal?.aborted === true,
    log,
    saveAll,
    refreshInference,
    foldWeightsAverage: foldAverage,
    latestCheckpoint: () => latest,
  };
  return session;
}

/** The replay buffer as of the resumed checkpoint: its replay.json's segments, or a pre-segment run's replay.bin. */
function readResumedReplay(
  checkpointDir: string,
  manifest: CheckpointManifest,
  paths: RunPaths,
  options: TrainOptions,
  shape: ReplayBuffer['shape'],
  log: (m: string) => void,
): { replay: ReplayBuffer; replayIndex: ReplayIndex | null } {
  const indexPath = join(checkpointDir, REPLAY_INDEX_FILE);
  if (existsSync(indexPath)) {
    const bytes = readFileSync(indexPath);
    verifyCheckpointFile(checkpointDir, manifest, REPLAY_INDEX_FILE, bytes);
    const index = parseReplayIndex(bytes.toString('utf8'), indexPath);
    return { replay: loadReplay(paths.dir, index, options.replayCapacity, shape), replayIndex: index };
  }
  if (manifest.files?.[REPLAY_INDEX_FILE]) throw new CheckpointError(indexPath, `checkpoint ${checkpointDir} is incomplete: ${REPLAY_INDEX_FILE} is missing`);
  if (existsSync(paths.legacyReplay)) {
    try {
      return { replay: ReplayBuffer.load(paths.legacyReplay, shape), replayIndex: null };
    } catch (err) {
      throw new CheckpointError(paths.legacyReplay, err instanceof Error ? err.message : String(err));
    }
  }
  log(`warning: no replay buffer saved with ${checkpointDir}: starting with an empty one`);
  return { replay: new ReplayBuffer(options.replayCapacity, shape), replayIndex: null };
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
  const { plugin, options, game, playingEvaluator, state, paths, events } = run;
  if (interrupted) {
    await run.saveAll(saveExtra?.());
    run.log(`interrupted: checkpoint written at iteration ${state.iteration} to ${run.latestCheckpoint()}`);
  }
  let assessment: AgentAssessment | undefined;
  if (!interrupted && plugin.assessAgent) {
    await run.refreshInference();
    events.phase?.('assess', 0, state.iteration);
    const playSettings: TrainOptions = { ...options, evalSimulations: defaultPlaySimulations(plugin) };
    assessment = await plugin.assessAgent(game, makeSearchAgent(game, playingEvaluator, playSettings, options.seed));
  }
  freeTensors(run);
  const timeLimitReached = !interrupted && state.iteration < options.iterations && run.timeBudget.limitSeconds > 0 ? run.timeBudget.limitSeconds : undefined;
  return {
    game: game.traits.id,
    iterations: state.iteration,
    seconds: (performance.now() - run.startedAt) / 1000,
    gamesPlayed: state.gamesPlayed,
    runDir: paths.dir,
    checkpointDir: run.latestCheckpoint() ?? paths.checkpoints,
    metricsFile: paths.metrics,
    lastMetrics,
    assessment,
    interrupted,
    ...(timeLimitReached !== undefined ? { timeLimitReached } : {}),
    backend: run.backend.name,
  };
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
  run.inference.dispose();
  if (run.playingEvaluator !== run.evaluator) run.playingEvaluator.model.dispose();
  if (run.playingModel !== run.model) run.playingModel.dispose();
  run.model.dispose();
}

/**
 * The network to train and the one that plays. A resumed checkpoint that holds training weights (it was
 * written with an average) trains on those and plays its model files; one without them trains on its
 * model files and, with an average asked for, starts the average there.
 */
function trainedAndPlayingModels(
  resumed: { model: LayersModel; manifest: CheckpointManifest } | null,
  checkpointDir: string | null,
  networkConfig: NetworkConfig,
  options: TrainOptions,
  log: (m: string) => void,
): { model: LayersModel; playingModel: LayersModel } {
  const averaging = options.weightsAverageDecay > 0;
  const copyOf = (source: LayersModel): LayersModel => {
    const copy = buildModel(networkConfig, { seed: options.seed });
    foldWeightsAverage(copy, source, 0);
    return copy;
  };
  if (!resumed || !checkpointDir) {
    const model = buildModel(networkConfig, { seed: options.seed });
    return { model, playingModel: averaging ? copyOf(model) : model };
  }
  if (!resumed.manifest.files?.[TRAINING_WEIGHTS_FILE]) return { model: resumed.model, playingModel: averaging ? copyOf(resumed.model) : resumed.model };
  const path = join(checkpointDir, TRAINING_WEIGHTS_FILE);
  const trained = buildModel(networkConfig, { seed: options.seed });
  try {
    const bytes = readFileSync(path);
    verifyCheckpointFile(checkpointDir, resumed.manifest, TRAINING_WEIGHTS_FILE, bytes);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    loadWeightsInto(trained, { specs: serializeWeights(resumed.model).specs, data });
  } catch (err) {
    trained.dispose();
    resumed.model.dispose();
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(path, `${path} does not fit the checkpoint's network: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (averaging) return { model: trained, playingModel: resumed.model };
  log(`--weights-average 0: training continues from the trained weights of ${checkpointDir}; its average is dropped`);
  resumed.model.dispose();
  return { model: trained, playingModel: trained };
}

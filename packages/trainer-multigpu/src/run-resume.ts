/**
 * Resuming a run: which checkpoint `--resume` names, what a resume may not change, the settings it keeps
 * from the run's options.json, and what it reads back (the checkpoint, the trainer's state, the replay
 * buffer). A damaged newest checkpoint is named with the way back to the one before it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { ConfigError, resolveGameConfig, type Game, type GamePlugin } from '@az/core';
import {
  CheckpointError,
  listCheckpoints,
  loadCheckpoint,
  readCheckpointManifest,
  removeStaleTemporaries,
  verifyCheckpointFile,
  verifyCheckpointFiles,
  type CheckpointManifest,
  type OptimizerState,
} from '@az/nn';
import { UNBOUNDED_ITERATIONS, type TrainOptions, type TrainOptionsInput } from './options.js';
import { ReplayBuffer } from './replay-buffer.js';
import { REPLAY_INDEX_FILE, loadReplay, parseReplayIndex, type ReplayIndex } from './replay-store.js';
import { RunDirectoryError, resolveResume, runPaths, type RunPaths } from './run-dir.js';
import { checkRunUnlocked } from './run-lock.js';
import type { ResumedModel } from './run-networks.js';
import type { TrainerState } from './run-session.js';

/** The checkpoint a session resumes from: its run directory, its folder and its manifest. */
export interface ResumePoint {
  readonly runDir: string;
  readonly checkpointDir: string;
  readonly manifest: CheckpointManifest;
}

/** The resumed checkpoint's network and optimizer. */
export interface ResumedCheckpoint extends ResumedModel {
  readonly optimizerState?: OptimizerState;
}

/**
 * The checkpoint `--resume path` names, refused when another session trains the run (first, whatever else
 * it would be refused for), when --out names another directory, or when the input changes what the
 * network was trained for.
 */
export async function findResumePoint(path: string, input: TrainOptionsInput, plugin: GamePlugin): Promise<ResumePoint> {
  const { runDir, checkpointDir } = resolveResume(path);
  checkRunUnlocked(runDir);
  if (input.out !== undefined && runPaths(input.out).dir !== runDir) {
    throw new RunDirectoryError(runDir, `--resume continues the run in its own directory ${runDir}; --out ${input.out} names another (leave --out out)`);
  }
  const manifest = await readCheckpointManifest(checkpointDir, { gameId: plugin.traits.id });
  refuseFixedChanges(input, manifest, plugin, runDir);
  return { runDir, checkpointDir, manifest };
}

/** The options a resumed session resolves: the run's recorded ones, the caller's over them, the checkpoint's game config and network over both. */
export function resumedInput(resume: ResumePoint, input: TrainOptionsInput, log: (m: string) => void): TrainOptionsInput {
  const recorded = recordedOptions(runPaths(resume.runDir).options, log);
  return { ...resumableOptions(recorded, input), ...input, out: resume.runDir, gameConfig: resume.manifest.gameConfig, network: resume.manifest.network.spec };
}

/** Refuses a session that would train no further than the checkpoint already is. */
export function checkIterationsAhead(resume: ResumePoint, options: TrainOptions, input: TrainOptionsInput): void {
  const at = resume.manifest.iteration;
  if (options.iterations > at) return;
  throw new RunDirectoryError(
    resume.runDir,
    input.iterations === undefined
      ? `the run is at iteration ${at} already, and this session would train to ${options.iterations} (the run's earlier --iterations, else the game's default); give --iterations N with N above ${at} (the total to reach), or --time-limit`
      : `the run is at iteration ${at} already; --iterations ${options.iterations} asks for no more (--iterations is the total to reach: give more than ${at})`,
  );
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
export function changedOptions(previousPath: string, options: TrainOptions): Record<string, [unknown, unknown]> {
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
 * The checkpoint's network and optimizer, every file checked first (model.onnx too, though training does
 * not read it): a damaged checkpoint is named, never built on. Leftovers of killed saves go first.
 */
export async function loadResumedCheckpoint(resume: ResumePoint, game: Game<unknown>, log: (m: string) => void): Promise<ResumedCheckpoint> {
  await removeStaleTemporaries(resume.runDir);
  let resumed: Awaited<ReturnType<typeof loadCheckpoint>>;
  try {
    await verifyCheckpointFiles(resume.checkpointDir, resume.manifest);
    resumed = await loadCheckpoint(resume.checkpointDir, { gameId: game.traits.id, encoderVersion: game.encoder.version });
  } catch (err) {
    throw withRollbackHint(err, resume.runDir, resume.checkpointDir);
  }
  if (resumed.optimizerMissing) log(`warning: the optimizer files of ${resume.checkpointDir} are missing: training continues with a fresh Adam state (moments reset)`);
  return { model: resumed.model, manifest: resumed.manifest, optimizerState: resumed.optimizerState, checkpointDir: resume.checkpointDir };
}

/** The trainer's state as the checkpoint left it; `fresh` supplies what a checkpoint written without it lacks. */
export function resumedState(manifest: CheckpointManifest, fresh: TrainerState): TrainerState {
  const extra = manifest.extra as Partial<TrainerState> | undefined;
  return {
    iteration: manifest.iteration,
    weightsVersion: manifest.weightsVersion,
    gamesPlayed: extra?.gamesPlayed ?? 0,
    rngState: Array.isArray(extra?.rngState) ? extra.rngState : fresh.rngState,
  };
}

/** The replay buffer as of the resumed checkpoint: its replay.json's segments. */
export function readResumedReplay(
  resume: ResumePoint,
  paths: RunPaths,
  options: TrainOptions,
  shape: ReplayBuffer['shape'],
  log: (m: string) => void,
): { replay: ReplayBuffer; replayIndex: ReplayIndex | null } {
  try {
    return readReplayOf(resume.checkpointDir, resume.manifest, paths, options, shape, log);
  } catch (err) {
    throw withRollbackHint(err, resume.runDir, resume.checkpointDir);
  }
}

function readReplayOf(
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
  log(`warning: no replay buffer saved with ${checkpointDir}: starting with an empty one`);
  return { replay: new ReplayBuffer(options.replayCapacity, shape), replayIndex: null };
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

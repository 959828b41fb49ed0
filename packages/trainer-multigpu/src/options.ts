import { DEFAULT_LEAF_VALUES, type GamePlugin, type TrainingHints, type InformationKind, type LeafValues, type NetworkSpec, type SearchMethod, type WorldSampling } from '@az/core';
import type { BackendName, InferenceEngineChoice } from '@az/nn';
import { DEFAULT_DETERMINIZATIONS, gamePlayoutShare, playSearchHints } from '@az/imperfect-info';
import { defaultSearchConfig, type RootSelection } from '@az/mcts';
import type { SelfPlayOptions } from './self-play.js';

export type LearningRateSchedule = 'constant' | 'cosine';

/** What the run is and where it lives: the game, how long it runs, its folder and seed. */
export interface RunSettings {
  readonly game: string;
  /** Raw game config (validated by the game's schema): the user's settings over the game's `training.gameConfig`. */
  readonly gameConfig: Readonly<Record<string, unknown>>;
  readonly iterations: number;
  readonly gamesPerIteration: number;
  readonly out: string;
  readonly resume?: string;
  /** A new run in a directory that holds another: move the old one aside (`<out>.archived-<time>`) instead of refusing. */
  readonly force?: boolean;
  /** Checkpoints kept in the run directory, the newest included. */
  readonly keepCheckpoints: number;
  /**
   * Wall-clock budget of this session in seconds (0: none). No iteration starts that the last one's
   * duration says would end after it (see `TimeBudget`); `iterations` stays the upper bound.
   */
  readonly timeLimitSeconds: number;
  readonly seed: number;
}

/** How self-play searches and what it records: all a self-play worker is sent, with `InferenceSettings`. */
export interface SelfPlaySettings {
  /** Games played at once per self-play process (slots of the batched search). */
  readonly parallelGames: number;
  readonly simulations: number;
  /** Imperfect-information games: worlds sampled and searched per move (ignored for perfect information). */
  readonly determinizations: number;
  /**
   * Imperfect-information games: leaf values of determinized search, 'playouts', 'world' (the network
   * on the sampled world's full state; self-play then records true full states as value rows too) or
   * 'policy-playouts' (every seat playing the network's top move in the sampled world).
   */
  readonly leafValues: LeafValues;
  /**
   * Imperfect-information games: the search self-play plays and trains with (the game's
   * `selfPlaySearchMethod` hint, else determinized). 'information-set' (one tree per game, a world per
   * simulation, `determinizations * simulations` simulations a move) is for experiments; with
   * `rootSelection: 'gumbel'` it runs one Gumbel root per information set; it refuses forced playouts.
   * Ignored for perfect information.
   */
  readonly selfPlaySearchMethod: SearchMethod;
  /** Leaves per tree per network call. */
  readonly leavesPerTree: number;
  readonly cPuct: number;
  readonly dirichletAlpha: number;
  readonly dirichletEpsilon: number;
  readonly temperatureMoves: number;
  /** Weight of the game's `estimateReturns` in value targets, in [0, 1) (0 = game results only). */
  readonly valueShaping: number;
  /** Weight of the root search value in value targets, in [0, 1] (0 = game results only). */
  readonly rootValueWeight: number;
  /** Worlds whose searched root children are recorded as value-only rows (`SelfPlayOptions.childValueWorlds`; 0 = off). */
  readonly childValueWorlds: number;
  /** Prove results in the self-play tree (`SearchConfig.solve`): won positions end early, their targets are exact. */
  readonly selfPlaySolve: boolean;
  /** Playout cap randomization: share of moves searched with `simulations` and recorded (1 = every move, off). */
  readonly fullSearchShare: number;
  /** Playout cap randomization: simulations of the other moves (not recorded). */
  readonly reducedSimulations: number;
  /** Positions the self-play NN evaluation cache holds (0 = no cache). */
  readonly evalCacheSize: number;
  /** Self-play root search (`SearchConfig.rootSelection`): 'puct' or 'gumbel'. Evaluation always plays with PUCT. */
  readonly rootSelection: RootSelection;
  /** Gumbel: root actions considered (m). */
  readonly gumbelConsideredActions: number;
  /** Gumbel: c_visit of σ(q). */
  readonly gumbelCVisit: number;
  /** Gumbel: c_scale of σ(q). */
  readonly gumbelCScale: number;
  /** PUCT self-play: k of forced playouts at the root, pruned from policy targets (0 = off). */
  readonly forcedPlayouts: number;
}

/** The arena games after each iteration, played as `az eval` plays the game (tree settings shared with self-play). */
export interface EvaluationSettings {
  /** Arena games per opponent after each iteration (0 = none). */
  readonly evalGames: number;
  readonly evalSimulations: number;
  /** Imperfect-information games: leaf values of the evaluation games (the game's `playLeafValues` hint, else `leafValues`). */
  readonly playLeafValues: LeafValues;
  /**
   * Imperfect-information games: the share of a random playout in each leaf's value in the evaluation
   * games (the game's `playPlayoutWeight` hint when they play its `playLeafValues`; undefined: 0 with
   * world values, 1 with playouts).
   */
  readonly playPlayoutWeight?: number;
  /** Imperfect-information games: the search of the evaluation games (the game's `playSearchMethod` hint, else determinized). */
  readonly playSearchMethod: SearchMethod;
  /** Imperfect-information games: how the evaluation games' information-set search draws worlds (the game's `playWorldSampling` hint, else uniform). */
  readonly playWorldSampling: WorldSampling;
  /** Evaluation's `SearchConfig.networkValueScale`: the game's `playValueScale` hint, else 1. */
  readonly playValueScale: number;
}

/** The learner: its steps, optimizer, replay buffer and the tfjs backend it trains on. */
export interface TrainingSettings {
  readonly trainingSteps: number;
  readonly batchSize: number;
  /** Adam's learning rate: the whole run's under 'constant', the first iteration's under 'cosine'. */
  readonly learningRate: number;
  /** How the learning rate moves over the iterations (see `learningRateAt`). */
  readonly learningRateSchedule: LearningRateSchedule;
  /** 'cosine': the learning rate of the last iteration (default learningRate / 10). */
  readonly finalLearningRate: number;
  readonly weightDecay: number;
  /**
   * Decay per iteration of the moving average of the weights that plays (evaluation, checkpoints, the
   * final assessment): after each training phase average = d * average + (1 - d) * trained. 0 = off (the
   * trained weights play). Self-play always uses the trained weights. See docs/training.md.
   */
  readonly weightsAverageDecay: number;
  readonly replayCapacity: number;
  /** The tfjs backend that trains (and runs inference when `inferenceBackend` is 'tfjs' or onnx is unavailable). */
  readonly backend: BackendName;
}

/** The architecture trained. */
export interface NetworkSettings {
  readonly network: NetworkSpec;
}

/** The engine self-play and evaluation search with. */
export interface InferenceSettings {
  /** The engine self-play and evaluation search with: 'auto' = onnxruntime when it loads, else tfjs. */
  readonly inferenceBackend: InferenceEngineChoice;
  /** onnxruntime intra-op threads (default: the cores available to the process). */
  readonly inferenceThreads?: number;
}

/** Everything a training run is configured by, section by section; `resolveTrainOptions` fills the defaults. Stored flat in a run's options.json. */
export type TrainOptions = RunSettings & SelfPlaySettings & EvaluationSettings & TrainingSettings & NetworkSettings & InferenceSettings;

/** Game hints that are no run setting: the arena's and `az play`'s simulations, and the CLI's self-play process count. */
type HintsOutsideTheRun = 'playSimulations' | 'selfPlayProcesses';
// Plugins write `TrainingHints` flat; each of its other fields is a setting of these sections under the
// same name and type, so resolving reads a hint where it reads the user's value: this fails to compile otherwise.
type HintsWithoutSetting = Exclude<keyof TrainingHints, keyof TrainOptions | HintsOutsideTheRun>;
const hintsAreSettings: [HintsWithoutSetting] extends [never] ? Partial<TrainOptions> : HintsWithoutSetting = {} as Omit<TrainingHints, HintsOutsideTheRun>;
void hintsAreSettings;

/** The self-play section's fields: what `selfPlaySection` copies for the workers. */
const SELF_PLAY_KEYS = ['parallelGames', 'simulations', 'determinizations', 'leafValues', 'selfPlaySearchMethod', 'leavesPerTree', 'cPuct', 'dirichletAlpha', 'dirichletEpsilon', 'temperatureMoves', 'valueShaping', 'rootValueWeight', 'childValueWorlds', 'selfPlaySolve', 'fullSearchShare', 'reducedSimulations', 'evalCacheSize', 'rootSelection', 'gumbelConsideredActions', 'gumbelCVisit', 'gumbelCScale', 'forcedPlayouts'] as const satisfies readonly (keyof SelfPlaySettings)[];
const INFERENCE_KEYS = ['inferenceBackend', 'inferenceThreads'] as const satisfies readonly (keyof InferenceSettings)[];
// A field added to either section without its key would silently stay home: this fails to compile then.
type Unlisted = Exclude<keyof SelfPlaySettings, (typeof SELF_PLAY_KEYS)[number]> | Exclude<keyof InferenceSettings, (typeof INFERENCE_KEYS)[number]>;
const allListed: [Unlisted] extends [never] ? true : Unlisted = true;
void allListed;

/** What a self-play worker is sent: how it searches and records, and the engine it searches with; not the run's folder, learning rate or evaluation. */
export type WorkerSettings = SelfPlaySettings & InferenceSettings;

/** The self-play and inference sections of a run's options, alone. */
export function workerSettings(o: TrainOptions): WorkerSettings {
  const picked: Record<string, unknown> = {};
  for (const key of [...SELF_PLAY_KEYS, ...INFERENCE_KEYS]) if (o[key] !== undefined) picked[key] = o[key];
  return picked as unknown as WorkerSettings;
}

export type TrainOptionsInput = Partial<TrainOptions> & Pick<TrainOptions, 'game'>;

/** `iterations` of a run bounded only by its time limit. */
export const UNBOUNDED_ITERATIONS = Number.MAX_SAFE_INTEGER;

/** Framework defaults where neither the user nor the game's hints say otherwise. */
export const FRAMEWORK_TRAIN_DEFAULTS = {
  iterations: 10,
  gamesPerIteration: 128,
  parallelGames: 64,
  simulations: 64,
  determinizations: DEFAULT_DETERMINIZATIONS,
  leavesPerTree: 8,
  cPuct: 1.5,
  dirichletAlpha: 0.3,
  dirichletEpsilon: 0.25,
  trainingSteps: 100,
  batchSize: 256,
  learningRate: 1e-3,
  weightDecay: 1e-4,
  replayCapacity: 50_000,
  evalGames: 20,
  keepCheckpoints: 5,
  backend: 'auto' as BackendName,
  inferenceBackend: 'auto' as InferenceEngineChoice,
  seed: 1,
} as const;

/**
 * The user's architecture over the game's. A user's resnet (`--network resnet:32x3` gives only the tower)
 * keeps the game's head settings (pooled value head, head widths), since those were chosen for the game's
 * board, not for one tower size; any other change of kind replaces the game's spec whole.
 */
export function networkFrom(user: NetworkSpec | undefined, game: NetworkSpec | undefined): NetworkSpec {
  if (user === undefined) return game ?? { kind: 'mlp', hidden: [128, 128] };
  if (user.kind === 'resnet' && game?.kind === 'resnet') return { ...game, ...user };
  return user;
}

/**
 * Merges user options over the game's training hints over the framework defaults: each section resolved
 * and checked by its own function, once, before a run starts.
 */
export function resolveTrainOptions(input: TrainOptionsInput, plugin: GamePlugin): TrainOptions {
  const hints = plugin.training ?? {};
  const run = resolveRunSettings(input, hints);
  const selfPlay = resolveSelfPlaySettings(input, hints, plugin);
  return {
    ...run,
    ...selfPlay,
    ...resolveEvaluationSettings(input, plugin, selfPlay),
    ...resolveTrainingSettings(input, hints, run),
    network: networkFrom(input.network, hints.network),
    ...resolveInferenceSettings(input),
  };
}

/** What the run is, how long it runs and where; checked. */
function resolveRunSettings(input: TrainOptionsInput, hints: TrainingHints): RunSettings {
  const d = FRAMEWORK_TRAIN_DEFAULTS;
  const run: RunSettings = {
    game: input.game,
    // The game's suggested training settings, under whatever the user set.
    gameConfig: { ...hints.gameConfig, ...input.gameConfig },
    // A time limit without a count runs iterations until the budget is spent.
    iterations: input.iterations ?? (input.timeLimitSeconds ? UNBOUNDED_ITERATIONS : (hints.iterations ?? d.iterations)),
    gamesPerIteration: input.gamesPerIteration ?? hints.gamesPerIteration ?? d.gamesPerIteration,
    out: input.out ?? input.resume ?? `runs/${input.game}`,
    resume: input.resume,
    ...(input.force ? { force: true } : {}),
    keepCheckpoints: input.keepCheckpoints ?? d.keepCheckpoints,
    timeLimitSeconds: input.timeLimitSeconds ?? 0,
    seed: input.seed ?? d.seed,
  };
  checkPositiveIntegers(run, ['gamesPerIteration', 'keepCheckpoints']);
  // Iterations 0: a run that only learns from records (az train --records), then stops.
  checkNonNegativeIntegers(run, ['iterations', 'seed']);
  if (!(run.timeLimitSeconds >= 0 && Number.isFinite(run.timeLimitSeconds))) throw new RangeError(`timeLimitSeconds (--time-limit) must be a non-negative number of seconds, got ${run.timeLimitSeconds}`);
  return run;
}

/** How self-play searches and records, the game's hints under the user's; checked, the hidden-information rules included. */
function resolveSelfPlaySettings(input: TrainOptionsInput, hints: TrainingHints, plugin: GamePlugin): SelfPlaySettings {
  const d = FRAMEWORK_TRAIN_DEFAULTS;
  const simulations = input.simulations ?? hints.simulations ?? d.simulations;
  const o: SelfPlaySettings = {
    parallelGames: input.parallelGames ?? hints.parallelGames ?? d.parallelGames,
    simulations,
    determinizations: input.determinizations ?? hints.determinizations ?? d.determinizations,
    leafValues: input.leafValues ?? hints.leafValues ?? DEFAULT_LEAF_VALUES,
    selfPlaySearchMethod: input.selfPlaySearchMethod ?? hints.selfPlaySearchMethod ?? 'determinized',
    leavesPerTree: input.leavesPerTree ?? d.leavesPerTree,
    cPuct: input.cPuct ?? d.cPuct,
    dirichletAlpha: input.dirichletAlpha ?? hints.dirichletAlpha ?? d.dirichletAlpha,
    dirichletEpsilon: input.dirichletEpsilon ?? d.dirichletEpsilon,
    temperatureMoves: input.temperatureMoves ?? hints.temperatureMoves ?? Math.min(30, Math.ceil(plugin.traits.maxGameLength / 4)),
    valueShaping: input.valueShaping ?? hints.valueShaping ?? 0,
    rootValueWeight: input.rootValueWeight ?? hints.rootValueWeight ?? 0,
    childValueWorlds: input.childValueWorlds ?? hints.childValueWorlds ?? 0,
    selfPlaySolve: input.selfPlaySolve ?? hints.selfPlaySolve ?? false,
    fullSearchShare: input.fullSearchShare ?? hints.fullSearchShare ?? 1,
    reducedSimulations: input.reducedSimulations ?? hints.reducedSimulations ?? Math.max(1, Math.round(simulations / 8)),
    evalCacheSize: input.evalCacheSize ?? hints.evalCacheSize ?? 0,
    rootSelection: input.rootSelection ?? hints.rootSelection ?? defaultSearchConfig.rootSelection,
    gumbelConsideredActions: input.gumbelConsideredActions ?? hints.gumbelConsideredActions ?? defaultSearchConfig.gumbelConsideredActions,
    gumbelCVisit: input.gumbelCVisit ?? hints.gumbelCVisit ?? defaultSearchConfig.gumbelCVisit,
    gumbelCScale: input.gumbelCScale ?? hints.gumbelCScale ?? defaultSearchConfig.gumbelCScale,
    forcedPlayouts: input.forcedPlayouts ?? hints.forcedPlayouts ?? 0,
  };
  checkSelfPlaySettings(o);
  if (plugin.traits.information === 'imperfect') {
    checkInformationSetSelfPlay(o);
    checkChildValues(o);
  }
  return o;
}

function checkSelfPlaySettings(o: SelfPlaySettings): void {
  checkPositiveIntegers(o, ['reducedSimulations', 'parallelGames', 'simulations', 'determinizations', 'leavesPerTree']);
  checkNonNegativeIntegers(o, ['gumbelConsideredActions', 'evalCacheSize', 'temperatureMoves']);
  if (!(o.cPuct > 0)) throw new RangeError(`cPuct must be a positive number, got ${String(o.cPuct)}`);
  if (!(o.dirichletEpsilon >= 0 && o.dirichletEpsilon <= 1)) throw new RangeError(`dirichletEpsilon must be in [0, 1], got ${o.dirichletEpsilon}`);
  if (!(o.dirichletAlpha >= 0)) throw new RangeError(`dirichletAlpha must be >= 0, got ${o.dirichletAlpha}`);
  checkLeafValues('leafValues', o.leafValues);
  checkSearchMethod('selfPlaySearchMethod', o.selfPlaySearchMethod);
  if (!(o.valueShaping >= 0 && o.valueShaping < 1)) throw new RangeError(`valueShaping must be in [0, 1), got ${o.valueShaping}`);
  if (!(o.rootValueWeight >= 0 && o.rootValueWeight <= 1)) throw new RangeError(`rootValueWeight must be in [0, 1], got ${o.rootValueWeight}`);
  if (!(Number.isInteger(o.childValueWorlds) && o.childValueWorlds >= 0)) throw new RangeError(`childValueWorlds (--child-values) must be an integer >= 0, got ${o.childValueWorlds}`);
  if (o.valueShaping + o.rootValueWeight > 1) throw new RangeError(`valueShaping + rootValueWeight must not exceed 1, got ${o.valueShaping} + ${o.rootValueWeight}`);
  if (!(o.fullSearchShare > 0 && o.fullSearchShare <= 1)) throw new RangeError(`fullSearchShare must be in (0, 1], got ${o.fullSearchShare}`);
  if (o.fullSearchShare < 1 && o.reducedSimulations > o.simulations) throw new RangeError(`reducedSimulations (${o.reducedSimulations}) must not exceed simulations (${o.simulations})`);
  if (o.rootSelection !== 'puct' && o.rootSelection !== 'gumbel') throw new RangeError(`rootSelection must be 'puct' or 'gumbel', got ${String(o.rootSelection)}`);
  if (!(o.gumbelConsideredActions >= 1)) throw new RangeError(`gumbelConsideredActions must be a positive integer, got ${o.gumbelConsideredActions}`);
  if (!(o.gumbelCVisit >= 0)) throw new RangeError(`gumbelCVisit must be >= 0, got ${o.gumbelCVisit}`);
  if (!(o.gumbelCScale > 0)) throw new RangeError(`gumbelCScale must be > 0, got ${o.gumbelCScale}`);
  if (!(o.forcedPlayouts >= 0)) throw new RangeError(`forcedPlayouts must be >= 0, got ${o.forcedPlayouts}`);
  if (o.forcedPlayouts > 0 && o.rootSelection === 'gumbel') throw new RangeError('forcedPlayouts is a PUCT technique: it cannot be combined with rootSelection gumbel');
}

/**
 * Root children's value rows under hidden information are sampled worlds' states, so they are recorded
 * through the world encoder, which world values turn on; and information-set search keeps no per-world
 * children. Refused here, before a run starts, rather than from inside self-play.
 */
function checkChildValues(o: SelfPlaySettings): void {
  if (o.childValueWorlds === 0) return;
  if (o.leafValues !== 'world') {
    throw new RangeError(`childValueWorlds (--child-values ${o.childValueWorlds}) needs world values in self-play under hidden information (the children are sampled worlds' states, encoded as worlds), got leafValues '${o.leafValues}': add --leaf-values world or drop --child-values`);
  }
  if (o.selfPlaySearchMethod === 'information-set') {
    throw new RangeError(`childValueWorlds (--child-values ${o.childValueWorlds}) needs determinized self-play (one tree per sampled world), got selfPlaySearchMethod 'information-set'`);
  }
}

/**
 * Information-set self-play has no forced playouts (`InformationSetMcts` refuses them): refused here,
 * before a run starts, naming the flag to add, rather than from inside the search (or a self-play worker).
 */
function checkInformationSetSelfPlay(o: SelfPlaySettings): void {
  if (o.selfPlaySearchMethod !== 'information-set') return;
  if (o.forcedPlayouts > 0) {
    throw new RangeError(`selfPlaySearchMethod 'information-set' (--self-play-search information-set) must be used without forced playouts, got forcedPlayouts ${o.forcedPlayouts}; information-set search has none: add --forced-playouts 0`);
  }
}

/** The arena games, played as the game plays for real (its play hints), with self-play's simulations unless set; checked. */
function resolveEvaluationSettings(input: TrainOptionsInput, plugin: GamePlugin, selfPlay: SelfPlaySettings): EvaluationSettings {
  const play = playSearchHints(plugin);
  const playLeafValues = input.playLeafValues ?? play.leafValues ?? selfPlay.leafValues;
  const o: EvaluationSettings = {
    evalGames: input.evalGames ?? FRAMEWORK_TRAIN_DEFAULTS.evalGames,
    evalSimulations: input.evalSimulations ?? selfPlay.simulations,
    playLeafValues,
    playPlayoutWeight: input.playPlayoutWeight ?? gamePlayoutShare(play, playLeafValues),
    playSearchMethod: input.playSearchMethod ?? play.method ?? 'determinized',
    playWorldSampling: input.playWorldSampling ?? play.worldSampling ?? 'uniform',
    playValueScale: input.playValueScale ?? play.tree?.networkValueScale ?? 1,
  };
  checkPositiveIntegers(o, ['evalSimulations']);
  checkNonNegativeIntegers(o, ['evalGames']);
  checkLeafValues('playLeafValues', o.playLeafValues);
  if (o.playPlayoutWeight !== undefined && !(o.playPlayoutWeight >= 0 && o.playPlayoutWeight <= 1)) throw new RangeError(`playPlayoutWeight must be in [0, 1], got ${o.playPlayoutWeight}`);
  checkSearchMethod('playSearchMethod', o.playSearchMethod);
  if (o.playWorldSampling !== 'uniform' && o.playWorldSampling !== 'inferred') throw new RangeError(`playWorldSampling must be 'uniform' or 'inferred', got ${String(o.playWorldSampling)}`);
  if (!(o.playValueScale > 0 && o.playValueScale <= 1)) throw new RangeError(`playValueScale must be in (0, 1], got ${o.playValueScale}`);
  return o;
}

/** The learner's steps, optimizer and buffer; checked (a learning-rate schedule needs the run's iteration count). */
function resolveTrainingSettings(input: TrainOptionsInput, hints: TrainingHints, run: RunSettings): TrainingSettings {
  const d = FRAMEWORK_TRAIN_DEFAULTS;
  const learningRate = input.learningRate ?? d.learningRate;
  const o: TrainingSettings = {
    trainingSteps: input.trainingSteps ?? hints.trainingSteps ?? d.trainingSteps,
    batchSize: input.batchSize ?? hints.batchSize ?? d.batchSize,
    learningRate,
    learningRateSchedule: input.learningRateSchedule ?? hints.learningRateSchedule ?? 'constant',
    finalLearningRate: input.finalLearningRate ?? learningRate / 10,
    weightDecay: input.weightDecay ?? d.weightDecay,
    weightsAverageDecay: input.weightsAverageDecay ?? hints.weightsAverageDecay ?? 0,
    replayCapacity: input.replayCapacity ?? hints.replayCapacity ?? d.replayCapacity,
    backend: input.backend ?? d.backend,
  };
  checkPositiveIntegers(o, ['trainingSteps', 'batchSize', 'replayCapacity']);
  for (const key of ['learningRate', 'finalLearningRate'] as const) {
    if (!(o[key] > 0)) throw new RangeError(`${key} must be a positive number, got ${String(o[key])}`);
  }
  // Adam moves each weight by about the learning rate per step: beyond 1 a network only diverges.
  if (!(o.learningRate <= 1)) throw new RangeError(`learningRate (--lr) must be at most 1, got ${o.learningRate}: Adam steps that large make the network diverge (try 1e-3)`);
  if (o.learningRateSchedule !== 'constant' && o.learningRateSchedule !== 'cosine') throw new RangeError(`learningRateSchedule (--lr-schedule) must be 'constant' or 'cosine', got ${String(o.learningRateSchedule)}`);
  if (!(o.finalLearningRate <= o.learningRate)) throw new RangeError(`finalLearningRate (--lr-final) must not exceed the learning rate (--lr ${o.learningRate}), got ${o.finalLearningRate}`);
  if (!(o.weightsAverageDecay >= 0 && o.weightsAverageDecay < 1)) throw new RangeError(`weightsAverageDecay (--weights-average) must be in [0, 1), got ${o.weightsAverageDecay}: 0 plays the trained weights, 0.75 averages over about the last four iterations`);
  if (o.learningRateSchedule !== 'constant' && run.iterations === UNBOUNDED_ITERATIONS) {
    throw new RangeError(`learningRateSchedule '${o.learningRateSchedule}' (--lr-schedule) must be given --iterations with --time-limit: the schedule runs over the iteration count, and a run bounded only by its time limit has none (or keep the constant rate)`);
  }
  if (!(o.weightDecay >= 0)) throw new RangeError(`weightDecay must be >= 0, got ${o.weightDecay}`);
  return o;
}

/** The search's engine; checked. */
function resolveInferenceSettings(input: TrainOptionsInput): InferenceSettings {
  const o: InferenceSettings = {
    inferenceBackend: input.inferenceBackend ?? FRAMEWORK_TRAIN_DEFAULTS.inferenceBackend,
    ...(input.inferenceThreads !== undefined ? { inferenceThreads: input.inferenceThreads } : {}),
  };
  if (o.inferenceThreads !== undefined && !(Number.isInteger(o.inferenceThreads) && o.inferenceThreads >= 1)) {
    throw new RangeError(`inferenceThreads must be a positive integer, got ${String(o.inferenceThreads)}`);
  }
  return o;
}

function checkPositiveIntegers<T extends object>(o: T, keys: readonly (keyof T & string)[]): void {
  for (const key of keys) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new RangeError(`${key} must be a positive integer, got ${String(v)}`);
  }
}

function checkNonNegativeIntegers<T extends object>(o: T, keys: readonly (keyof T & string)[]): void {
  for (const key of keys) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new RangeError(`${key} must be a non-negative integer, got ${String(v)}`);
  }
}

function checkLeafValues(key: string, value: LeafValues): void {
  if (value !== 'playouts' && value !== 'world' && value !== 'policy-playouts') throw new RangeError(`${key} must be 'playouts', 'world' or 'policy-playouts', got ${String(value)}`);
}

function checkSearchMethod(key: string, value: SearchMethod): void {
  if (value !== 'determinized' && value !== 'information-set') throw new RangeError(`${key} must be 'determinized' or 'information-set', got ${String(value)}`);
}

/**
 * The learning rate of iteration `iteration` (1-based) of a run of `iterations`. 'cosine' falls from
 * `learningRate` at the first iteration to `finalLearningRate` at the last along half a cosine, so the
 * last iterations fit the replay buffer with small steps; 'constant' is `learningRate` throughout. Set
 * before every training phase, so a resumed run follows the schedule of its new options.
 */
export function learningRateAt(o: Pick<TrainOptions, 'learningRate' | 'learningRateSchedule' | 'finalLearningRate' | 'iterations'>, iteration: number): number {
  if (o.learningRateSchedule === 'constant' || o.iterations <= 1) return o.learningRate;
  const progress = Math.min(1, Math.max(0, (iteration - 1) / (o.iterations - 1)));
  return o.finalLearningRate + (o.learningRate - o.finalLearningRate) * 0.5 * (1 + Math.cos(Math.PI * progress));
}

/**
 * How self-play plays and records its games, from the run's options (the same in every process). The
 * playout cap's budgets go to the engine's `search` as they are: information-set search
 * (`selfPlaySearchMethod`, imperfect information) counts its simulations per move, not per world, so
 * they are `determinizations` times the per-world `simulations` and `reducedSimulations`, the same
 * evaluator work as determinized search.
 */
export function selfPlaySettings(o: SelfPlaySettings, information: InformationKind): Pick<SelfPlayOptions, 'temperatureMoves' | 'valueShaping' | 'rootValueWeight' | 'childValueWorlds' | 'playoutCap' | 'recordWorldStates'> {
  const perMove = information === 'imperfect' && o.selfPlaySearchMethod === 'information-set' ? o.determinizations : 1;
  return {
    temperatureMoves: o.temperatureMoves,
    valueShaping: o.valueShaping,
    rootValueWeight: o.rootValueWeight,
    childValueWorlds: o.childValueWorlds,
    recordWorldStates: o.leafValues === 'world',
    ...(o.fullSearchShare < 1 ? { playoutCap: { fullShare: o.fullSearchShare, fullSimulations: perMove * o.simulations, reducedSimulations: perMove * o.reducedSimulations } } : {}),
  };
}

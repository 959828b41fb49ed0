import { appendFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  RandomAgent,
  Rng,
  defaultRegistry,
  resolveGameConfig,
  type Agent,
  type AgentAssessment,
  type Game,
  type GamePlugin,
  type GameRegistry,
  type InferenceModel,
  type NetworkConfig,
  type ResolvedConfig,
} from '@az/core';
import {
  CheckpointError,
  NetworkTrainer,
  OnnxInferenceModel,
  TfjsInferenceModel,
  buildModel,
  createInferenceModelFor,
  initBackend,
  loadCheckpoint,
  saveCheckpoint,
  type BackendInfo,
  type CheckpointManifest,
  type LayersModel,
  type OptimizerState,
} from '@az/nn';
import { MctsAgent, NetworkEvaluator, playSearchConfig, type Evaluator, type SearchConfig, type SearchEngine } from '@az/mcts';
import { playArena } from './arena.js';
import { defaultPlaySimulations, resolveTrainOptions, type TrainOptions, type TrainOptionsInput } from './options.js';
import { ReplayBuffer } from './replay-buffer.js';
import { createSearchEngine } from './search-factory.js';
import { OutcomeTally, type SelfPlayOutcomes } from './outcome-tally.js';
import { SelfPlay } from './self-play.js';
import type { WorkerEvent } from './transport.js';

export type TrainPhase = 'self-play' | 'train' | 'eval' | 'assess';

/** What a front end (the CLI's progress bars, a test) hears from a run. */
export interface TrainerEvents {
  phase?(phase: TrainPhase, total: number, iteration: number): void;
  progress?(done: number): void;
  iteration?(metrics: IterationMetrics): void;
  log?(message: string): void;
  /** Multi-process runs: a self-play worker started, exited, restarted... */
  worker?(event: WorkerEvent): void;
}

export interface ArenaSummary {
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly meanReturn: number;
}

/** One line of metrics.jsonl. */
export interface IterationMetrics {
  readonly iteration: number;
  readonly weightsVersion: number;
  readonly time: string;
  readonly seconds: { readonly selfPlay: number; readonly train: number; readonly eval: number; readonly total: number };
  readonly selfPlay: {
    readonly games: number;
    readonly positions: number;
    readonly evaluations: number;
    readonly gamesPerSecond: number;
    readonly evalsPerSecond: number;
    readonly averageBatch: number;
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
  };
  readonly replay: { readonly size: number; readonly totalAdded: number };
  /** Arena results of the current network (with search) against each opponent. */
  readonly eval: Readonly<Record<string, ArenaSummary>>;
  /** Multi-process runs only: where this iteration's games came from and what happened to the workers. */
  readonly workers?: WorkerIterationMetrics;
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
  /** Games received over IPC (accepted + stale). */
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
  readonly checkpointDir: string;
  readonly metricsFile: string;
  readonly lastMetrics?: IterationMetrics;
  readonly assessment?: AgentAssessment;
  /** True when the run stopped early on request (Ctrl-C); the checkpoint holds what was done. */
  readonly interrupted: boolean;
  readonly backend: string;
}

/** Where a run keeps its files. */
export function runPaths(out: string): { checkpoint: string; replay: string; metrics: string; options: string } {
  const dir = resolve(out);
  return { checkpoint: join(dir, 'checkpoint'), replay: join(dir, 'replay.bin'), metrics: join(dir, 'metrics.jsonl'), options: join(dir, 'options.json') };
}

/** A run directory or a checkpoint directory: returns the checkpoint directory inside it. */
export function findCheckpointDir(path: string): string {
  const dir = resolve(path);
  if (existsSync(join(dir, 'manifest.json'))) return dir;
  const inner = join(dir, 'checkpoint');
  if (existsSync(join(inner, 'manifest.json'))) return inner;
  if (!existsSync(dir)) throw new CheckpointError(dir, `no checkpoint at ${dir}: the directory does not exist`);
  throw new CheckpointError(dir, `no checkpoint at ${dir}: neither ${join(dir, 'manifest.json')} nor ${join(inner, 'manifest.json')} exists`);
}

/** What a checkpoint's `extra` carries besides the manifest's iteration and weights version. */
interface TrainerState {
  iteration: number;
  weightsVersion: number;
  gamesPlayed: number;
  rngState: number[];
}

/** The search settings self-play and evaluation use, from the run's options. */
export function searchConfigFrom(o: TrainOptions, seed: number, forEvaluation: boolean): Partial<SearchConfig> {
  const simulations = forEvaluation ? o.evalSimulations : o.simulations;
  const common: Partial<SearchConfig> = {
    simulations,
    leavesPerTree: o.leavesPerTree,
    cPuct: o.cPuct,
    dirichletAlpha: o.dirichletAlpha,
    nodeCapacity: nodeCapacityFor(simulations, o.leavesPerTree),
    seed,
  };
  // Evaluation plays as `az eval` does, with the game's play value scale; self-play keeps the cheaper
  // plain search it trains on.
  if (forEvaluation) return { ...common, ...playSearchConfig, networkValueScale: o.playValueScale };
  return { ...common, dirichletEpsilon: o.dirichletEpsilon, resolveDepth: 1, solve: false, networkValueScale: 1 };
}

/** Enough nodes for `simulations` expansions plus reuse from the previous move, bounded for memory. */
function nodeCapacityFor(simulations: number, leavesPerTree: number): number {
  return Math.max(256, (simulations + leavesPerTree) * 48);
}

/**
 * The self-play search engine, built the same way in the single-process loop and in every self-play
 * worker process (worker.ts), so both paths play with identical settings.
 */
export function createSelfPlayEngine<S>(game: Game<S>, evaluator: Evaluator<S>, options: TrainOptions, slots: number, seed: number): SearchEngine<S> {
  return createSearchEngine(game, evaluator, slots, searchConfigFrom(options, seed, false), {
    determinizations: options.determinizations,
  });
}

/**
 * A training run opened from its options (and checkpoint, when resuming): everything the single-process
 * and the multi-process loops share. Internal to this package: the loops are the public API.
 */
export interface RunSession {
  readonly plugin: GamePlugin;
  readonly options: TrainOptions;
  readonly backend: BackendInfo;
  readonly game: Game<unknown>;
  readonly gameConfig: ResolvedConfig;
  readonly networkConfig: NetworkConfig;
  readonly paths: ReturnType<typeof runPaths>;
  readonly model: LayersModel;
  readonly trainer: NetworkTrainer;
  readonly replay: ReplayBuffer;
  readonly state: TrainerState;
  /** Drives every seed of the run (self-play, sampling); its state is checkpointed. */
  readonly rng: Rng;
  /**
   * The network the search calls: an onnxruntime session on a snapshot of the weights (replaced by
   * `refreshInference`), or, on tfjs, the training model itself.
   */
  inference: InferenceModel;
  /** The trainer's own network with search: self-play (single process), evaluation and the final assessment. */
  readonly evaluator: NetworkEvaluator<unknown>;
  /**
   * Brings `inference` up to the trainer's weights: an onnx session is re-exported and swapped into the
   * evaluator when the weights version moved; tfjs shares the weights and needs nothing.
   */
  refreshInference(): Promise<void>;
  readonly startedAt: number;
  readonly events: TrainerEvents;
  readonly stopped: () => boolean;
  log(message: string): void;
  /** Checkpoint (weights, optimizer, iteration, weights version, rng) and replay buffer, both atomically. */
  saveAll(extra?: Readonly<Record<string, unknown>>): Promise<void>;
}

export interface RunDeps {
  registry?: GameRegistry;
  events?: TrainerEvents;
  signal?: AbortSignal;
}

/**
 * Resolves options (the checkpoint fixes the game config and network when resuming; the caller's options
 * fix the rest), initialises the backend, builds or loads the model, optimizer and replay buffer, and
 * writes options.json.
 */
export async function openRun(input: TrainOptionsInput, deps: RunDeps): Promise<RunSession> {
  const registry = deps.registry ?? defaultRegistry;
  const events = deps.events ?? {};
  const log = (m: string): void => events.log?.(m);
  const plugin = registry.resolve(input.game);

  // Resuming: the checkpoint fixes the game config and network; the user's flags fix the rest.
  let resumed: { model: LayersModel; manifest: CheckpointManifest; optimizerState?: OptimizerState } | null = null;
  if (input.resume) {
    const dir = findCheckpointDir(input.resume);
    resumed = await loadCheckpoint(dir, { gameId: plugin.traits.id });
  }
  const options = resolveTrainOptions(
    resumed ? { ...input, gameConfig: resumed.manifest.gameConfig, network: resumed.manifest.network.spec } : input,
    plugin,
  );
  const backend = await initBackend(options.backend);
  log(`backend: ${backend.name}${backend.skipped.length ? ` (skipped ${backend.skipped.map((s) => s.name).join(', ')})` : ''}`);
  const gameConfig = resolveGameConfig(plugin, options.gameConfig);
  const game = plugin.create(gameConfig);
  if (options.valueShaping > 0 && !game.estimateReturns) {
    throw new RangeError(`valueShaping ${options.valueShaping}: game '${plugin.traits.id}' has no estimateReturns to shape value targets with (use 0)`);
  }
  if (resumed && resumed.manifest.encoderVersion !== game.encoder.version) {
    throw new CheckpointError(input.resume ?? '', `checkpoint encoder ${resumed.manifest.encoderVersion} does not match the game's encoder ${game.encoder.version}`);
  }
  const networkConfig: NetworkConfig = {
    spec: options.network,
    inputShape: game.encoder.shape,
    actionSize: game.masker.actionSize,
    numSeats: game.numPlayers,
  };
  const paths = runPaths(options.out);
  mkdirSync(resolve(options.out), { recursive: true });

  const model = resumed ? resumed.model : buildModel(networkConfig, { seed: options.seed });
  const trainer = new NetworkTrainer(model, networkConfig, { learningRate: options.learningRate, weightDecay: options.weightDecay });
  if (resumed?.optimizerState) trainer.setOptimizerState(resumed.optimizerState);
  const replayShape = { inputSize: game.encoder.size, actionSize: game.masker.actionSize, numSeats: game.numPlayers, policyWidth: 256 };
  let replay: ReplayBuffer;
  const state: TrainerState = { iteration: 0, weightsVersion: 0, gamesPlayed: 0, rngState: new Rng(options.seed).getState() };
  if (resumed) {
    const extra = resumed.manifest.extra as Partial<TrainerState> | undefined;
    state.iteration = resumed.manifest.iteration;
    state.weightsVersion = resumed.manifest.weightsVersion;
    state.gamesPlayed = extra?.gamesPlayed ?? 0;
    if (Array.isArray(extra?.rngState)) state.rngState = extra.rngState;
    // The replay buffer sits beside the checkpoint directory, in the run directory.
    const replayPath = join(findCheckpointDir(input.resume ?? ''), '..', 'replay.bin');
    const found = existsSync(replayPath);
    replay = found ? ReplayBuffer.load(replayPath, replayShape) : new ReplayBuffer(options.replayCapacity, replayShape);
    log(`resumed from ${findCheckpointDir(input.resume ?? '')} at iteration ${state.iteration} (weights v${state.weightsVersion}, replay ${replay.size} positions${found ? '' : `: no ${replayPath}, starting empty`})`);
  } else {
    replay = new ReplayBuffer(options.replayCapacity, replayShape);
  }
  writeFileSync(paths.options, JSON.stringify({ ...options, gameConfig }, null, 2) + '\n');

  const rng = new Rng(0);
  rng.setState(state.rngState);
  // The search runs on onnxruntime when it loads (several times faster than tfjs on a CPU) while tfjs
  // trains; 'auto' falls back to the training model itself, with the reason logged.
  const inferenceOptions = { threads: options.inferenceThreads, log };
  const inference = await createInferenceModelFor(model, networkConfig, { ...inferenceOptions, backend: options.inferenceBackend });
  log(`inference: ${inference instanceof OnnxInferenceModel ? `${inference.backendName} (onnxruntime, ${inference.threads} thread${inference.threads > 1 ? 's' : ''})` : `tfjs ${inference.backendName}`}`);
  const evaluator = new NetworkEvaluator(inference);
  let inferenceVersion = state.weightsVersion;
  const refreshInference = async (): Promise<void> => {
    const current = session.inference;
    if (inferenceVersion === state.weightsVersion || current instanceof TfjsInferenceModel) return;
    const next = await createInferenceModelFor(model, networkConfig, { ...inferenceOptions, backend: current.backendName === 'onnx-cuda' ? 'onnx-cuda' : 'onnx' });
    evaluator.setModel(next);
    current.dispose();
    session.inference = next;
    inferenceVersion = state.weightsVersion;
  };

  const saveAll = async (extra: Readonly<Record<string, unknown>> = {}): Promise<void> => {
    state.rngState = rng.getState();
    await saveCheckpoint(
      paths.checkpoint,
      model,
      {
        gameId: game.traits.id,
        gameConfig,
        encoderVersion: game.encoder.version,
        iteration: state.iteration,
        weightsVersion: state.weightsVersion,
        network: networkConfig,
        backend: backend.name,
        extra: { ...extra, gamesPlayed: state.gamesPlayed, rngState: state.rngState },
      },
      trainer.getOptimizerState(),
    );
    const tmp = `${paths.replay}.tmp`;
    replay.save(tmp);
    renameSync(tmp, paths.replay);
  };

  const session: RunSession = {
    plugin,
    options,
    backend,
    game,
    gameConfig,
    networkConfig,
    paths,
    model,
    trainer,
    replay,
    state,
    rng,
    inference,
    evaluator,
    startedAt: performance.now(),
    events,
    stopped: () => deps.signal?.aborted === true,
    log,
    saveAll,
    refreshInference,
  };
  return session;
}

/** What one iteration's training phase did (averaged losses). */
export type TrainPhaseResult = IterationMetrics['train'];

/**
 * One iteration's training phase: `trainingSteps` Adam steps on minibatches sampled uniformly from the
 * replay buffer, stopping early on request. It does not bump the weights version; the caller does, once
 * per phase. `betweenSteps` lets the multi-process loop serve its workers' messages between steps.
 */
export async function trainPhase(run: RunSession, iteration: number, betweenSteps?: () => Promise<void>): Promise<TrainPhaseResult> {
  const { options, replay, trainer, rng, events, stopped, game } = run;
  const symmetries = game.symmetries ?? [];
  const t1 = performance.now();
  events.phase?.('train', options.trainingSteps, iteration);
  const shape = replay.shape;
  const B = options.batchSize;
  const inputs = new Float32Array(B * shape.inputSize);
  const policy = new Float32Array(B * shape.actionSize);
  const values = new Float32Array(B * shape.numSeats);
  const legal = new Float32Array(B * shape.actionSize);
  const sums = { policyLoss: 0, valueLoss: 0, l2: 0, total: 0 };
  let steps = 0;
  for (; steps < options.trainingSteps && !stopped(); steps++) {
    // Each position is seen through a random symmetry of the game (or as is): free data augmentation.
    replay.sample(B, rng, inputs, policy, values, symmetries, legal);
    // The policy softmax is taken over each position's legal actions, as the search's priors are.
    const losses = trainer.trainBatch(inputs, policy, values, B, legal);
    sums.policyLoss += losses.policyLoss;
    sums.valueLoss += losses.valueLoss;
    sums.l2 += losses.l2;
    sums.total += losses.total;
    events.progress?.(steps + 1);
    if (betweenSteps) await betweenSteps();
  }
  const t2 = performance.now();
  return {
    steps,
    policyLoss: steps ? sums.policyLoss / steps : 0,
    valueLoss: steps ? sums.valueLoss / steps : 0,
    l2: steps ? sums.l2 / steps : 0,
    total: steps ? sums.total / steps : 0,
    positionsPerSecond: (steps * B) / Math.max(1e-9, (t2 - t1) / 1000),
  };
}

/** Evaluation: the trainer's network with search against random and the game's own bots. */
export async function evalPhase(run: RunSession, iteration: number): Promise<Record<string, ArenaSummary>> {
  const { options, game, plugin, evaluator, events, stopped } = run;
  const evalResults: Record<string, ArenaSummary> = {};
  if (options.evalGames > 0 && !stopped()) {
    await run.refreshInference();
    const opponents = evaluationOpponents(game, plugin.bots ?? {}, options.seed + iteration);
    events.phase?.('eval', options.evalGames * opponents.length, iteration);
    let doneBefore = 0;
    for (const opponent of opponents) {
      const me = makeSearchAgent(game, evaluator, options, options.seed + iteration);
      const lineup = Array.from({ length: game.numPlayers }, (_, seat) => (seat === 0 ? me : opponent));
      const result = await playArena(game, lineup, options.evalGames, { seed: options.seed * 7919 + iteration, onProgress: (n) => events.progress?.(doneBefore + n) });
      doneBefore += options.evalGames;
      evalResults[opponent.name] = {
        games: result.games,
        wins: result.wins[0],
        draws: result.draws[0],
        losses: result.losses[0],
        meanReturn: result.totalReturn[0] / result.games,
      };
    }
  }
  return evalResults;
}

/** Appends one line to metrics.jsonl and tells the front end. */
export function recordIteration(run: RunSession, metrics: IterationMetrics): void {
  appendFileSync(run.paths.metrics, JSON.stringify(metrics) + '\n');
  run.events.iteration?.(metrics);
}

/**
 * Ends a run: a final checkpoint when it was interrupted, the game's own assessment of the final network
 * when it was not, and the tensors freed.
 */
export async function closeRun(run: RunSession, interrupted: boolean, lastMetrics: IterationMetrics | undefined, saveExtra?: () => Readonly<Record<string, unknown>>): Promise<TrainSummary> {
  const { plugin, options, game, evaluator, state, paths, events } = run;
  if (interrupted) {
    await run.saveAll(saveExtra?.());
    run.log(`interrupted: checkpoint written at iteration ${state.iteration} to ${paths.checkpoint}`);
  }
  let assessment: AgentAssessment | undefined;
  if (!interrupted && plugin.assessAgent) {
    await run.refreshInference();
    events.phase?.('assess', 0, state.iteration);
    const playSettings: TrainOptions = { ...options, evalSimulations: defaultPlaySimulations(plugin) };
    assessment = await plugin.assessAgent(game, makeSearchAgent(game, evaluator, playSettings, options.seed));
  }
  disposeRun(run);
  return {
    game: game.traits.id,
    iterations: state.iteration,
    seconds: (performance.now() - run.startedAt) / 1000,
    gamesPlayed: state.gamesPlayed,
    checkpointDir: paths.checkpoint,
    metricsFile: paths.metrics,
    lastMetrics,
    assessment,
    interrupted,
    backend: run.backend.name,
  };
}

const disposedRuns = new WeakSet<RunSession>();

/** Frees the run's tensors; safe to call again (error paths may reach it after closeRun). */
export function disposeRun(run: RunSession): void {
  if (disposedRuns.has(run)) return;
  disposedRuns.add(run);
  run.trainer.dispose();
  run.inference.dispose();
  run.model.dispose();
}

/**
 * The single-device AlphaZero loop: self-play (all games of an iteration in lock-step) -> replay
 * buffer -> training -> arena evaluation -> checkpoint, repeated; metrics appended to metrics.jsonl.
 * `signal` stops the run between moves or steps and still writes a checkpoint (Ctrl-C).
 */
export async function runTraining(
  input: TrainOptionsInput,
  deps: { registry?: GameRegistry; events?: TrainerEvents; signal?: AbortSignal } = {},
): Promise<TrainSummary> {
  const run = await openRun(input, deps);
  const { options, game, replay, state, rng, evaluator, events, stopped } = run;
  let lastMetrics: IterationMetrics | undefined;
  let interrupted = false;

  while (state.iteration < options.iterations && !stopped()) {
    const iteration = state.iteration + 1;
    const t0 = performance.now();

    // Self-play with the current weights.
    const engine = createSelfPlayEngine(game, evaluator, options, Math.min(options.parallelGames, options.gamesPerIteration), rng.nextUint32());
    const selfPlay = new SelfPlay(game, engine, { temperatureMoves: options.temperatureMoves, valueShaping: options.valueShaping, seed: rng.nextUint32(), weightsVersion: state.weightsVersion });
    events.phase?.('self-play', options.gamesPerIteration, iteration);
    const outcomes = new OutcomeTally(game.numPlayers);
    const sp = await selfPlay.play(
      options.gamesPerIteration,
      (r) => {
        replay.addGame(r);
        outcomes.add(r);
      },
      (n) => events.progress?.(n),
      stopped,
    );
    state.gamesPlayed += sp.games;
    const t1 = performance.now();
    if (stopped()) {
      interrupted = true;
      break;
    }

    // Training on uniformly sampled positions from the buffer; one new weights version per phase.
    const train = await trainPhase(run, iteration);
    state.weightsVersion++;
    state.iteration = iteration;
    // Self-play and evaluation search with the new weights (a fresh onnx export when on onnxruntime).
    await run.refreshInference();
    const t2 = performance.now();

    const evalResults = await evalPhase(run, iteration);
    const t3 = performance.now();
    await run.saveAll();
    const t4 = performance.now();

    const metrics: IterationMetrics = {
      iteration,
      weightsVersion: state.weightsVersion,
      time: new Date().toISOString(),
      seconds: { selfPlay: (t1 - t0) / 1000, train: (t2 - t1) / 1000, eval: (t3 - t2) / 1000, total: (t4 - t0) / 1000 },
      selfPlay: {
        games: sp.games,
        positions: sp.positions,
        evaluations: sp.evaluations,
        gamesPerSecond: sp.games / sp.seconds,
        evalsPerSecond: sp.evaluations / sp.seconds,
        averageBatch: sp.averageBatch,
        outcomes: outcomes.take(),
      },
      train,
      replay: { size: replay.size, totalAdded: replay.totalAdded },
      eval: evalResults,
    };
    recordIteration(run, metrics);
    lastMetrics = metrics;
  }
  if (stopped()) interrupted = true;
  return closeRun(run, interrupted, lastMetrics);
}

/** The network with the evaluation search settings, as a batched agent. */
function makeSearchAgent<S>(game: Game<S>, evaluator: NetworkEvaluator<S>, o: TrainOptions, seed: number): Agent<S> {
  const engine = createSearchEngine(game, evaluator, 64, searchConfigFrom(o, seed, true), { determinizations: o.determinizations });
  return new MctsAgent('az', engine, game.masker.actionSize, 0, seed);
}

function evaluationOpponents<S>(game: Game<S>, bots: Readonly<Record<string, (g: Game<S>, seed: number) => Agent<S>>>, seed: number): Agent<S>[] {
  const out: Agent<S>[] = [new RandomAgent(game, seed)];
  for (const [name, make] of Object.entries(bots)) {
    const bot = make(game, seed);
    out.push({ name, act: (states) => bot.act(states) });
  }
  return out;
}

/**
 * The phases of one iteration after self-play, shared by the single-process and the multi-process loops:
 * training (with a guard against non-finite losses and weights), the new weights version, evaluation,
 * the checkpoint and the metrics line (`finishIteration`).
 */
import { RandomAgent, playArena, type Agent, type Game } from '@az/core';
import type { ArenaSummary, IterationMetrics, WorkerIterationMetrics } from './metrics.js';
import { appendMetricsLine } from './metrics-log.js';
import { foldTrainedWeights } from './run-networks.js';
import { refreshInference, saveRun, type RunSession } from './run-session.js';
import { learningRateAt } from './options.js';
import { MAX_INPUT_MAGNITUDE, showFloat32 } from './game-record.js';
import type { ReplayShape } from './replay-buffer.js';
import { makeSearchAgent } from './search-settings.js';
import { injectedFault, poisonFirstWeight } from './fault-hooks.js';
import { sampleMixed, type RecordsBatches } from './record-intake.js';

/** What one iteration's training phase did (averaged losses). */
export type TrainPhaseResult = IterationMetrics['train'];

/**
 * Training produced a non-finite loss or weights. Nothing of this iteration is saved: the run's newest
 * checkpoint is the last good one. The message names the likely cause.
 */
export class TrainingDivergedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrainingDivergedError';
  }
}

/** The name of the first model weight holding NaN or infinity, or null. */
export function nonFiniteWeight(run: RunSession): string | null {
  for (const w of run.networks.model.weights) {
    const values = w.read().dataSync();
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return w.originalName ?? w.name;
  }
  return null;
}

const MAX_SANE_LOSS = 1e6;

/** A minibatch as `ReplayBuffer.sample` fills it: `count` positions, dense policies and legal masks. */
export interface TrainingBatch {
  readonly count: number;
  readonly inputs: Float32Array;
  readonly policy: Float32Array;
  readonly values: Float32Array;
  readonly legal: Float32Array;
}

/**
 * The first thing in a minibatch that no sound game record holds (undefined when there is none): a value
 * target outside [-1, 1], a policy probability outside [0, 1], policy mass on an illegal action, an input
 * past ±MAX_INPUT_MAGNITUDE, or anything non-finite. Named by its position in the batch, so a non-finite
 * loss is blamed on the data when the data is at fault, not on the learning rate.
 */
export function batchProblem(batch: TrainingBatch, shape: ReplayShape): string | undefined {
  const { inputSize, actionSize, numSeats } = shape;
  for (let i = 0; i < batch.count; i++) {
    const at = `position ${i} of the batch`;
    for (let j = 0; j < numSeats; j++) {
      const v = batch.values[i * numSeats + j];
      if (!(Math.abs(v) <= 1 + 1e-4)) return `${at} has a value target of ${showFloat32(v)} (seat ${j}; targets lie in [-1, 1])`;
    }
    for (let a = 0; a < actionSize; a++) {
      const p = batch.policy[i * actionSize + a];
      if (!(p >= 0 && p <= 1)) return `${at} has a policy probability of ${showFloat32(p)} (action ${a}; probabilities lie in [0, 1])`;
      if (p > 0 && batch.legal[i * actionSize + a] === 0) return `${at} puts policy mass ${showFloat32(p)} on action ${a}, which is not legal there`;
    }
    for (let k = 0; k < inputSize; k++) {
      const x = batch.inputs[i * inputSize + k];
      if (!(Math.abs(x) <= MAX_INPUT_MAGNITUDE)) return `${at} has an input of ${showFloat32(x)} (input ${k}; inputs lie within ±${MAX_INPUT_MAGNITUDE})`;
    }
  }
  return undefined;
}

/** A training phase other than an iteration's own: pretraining on records (`az train --records`). */
export interface TrainPhaseSettings {
  readonly steps: number;
  readonly phase: 'pretrain';
}

/**
 * One iteration's training phase: `trainingSteps` Adam steps on minibatches sampled uniformly from the
 * replay buffer (and a share from `records`, when given), stopping early on request, and stopping with
 * TrainingDivergedError on a non-finite loss or weight. It does not bump the weights version; the
 * caller does, once per phase. `betweenSteps` lets the multi-process loop serve its workers' messages
 * between steps.
 */
export async function trainPhase(
  run: RunSession,
  iteration: number,
  betweenSteps?: () => Promise<void>,
  records?: RecordsBatches,
  settings?: TrainPhaseSettings,
): Promise<TrainPhaseResult> {
  const { options, replay, trainer, rng, events, stopped, game } = run;
  const symmetries = game.symmetries ?? [];
  const t1 = performance.now();
  const totalSteps = settings?.steps ?? options.trainingSteps;
  events.phase?.(settings?.phase ?? 'train', totalSteps, iteration);
  const fault = injectedFault(run, iteration); // null but in the fault-injection suite (fault-hooks.ts)
  if (fault === 'weights') poisonFirstWeight(run.networks.model);
  const shape = replay.shape;
  const B = options.batchSize;
  const inputs = new Float32Array(B * shape.inputSize);
  const policy = new Float32Array(B * shape.actionSize);
  const values = new Float32Array(B * shape.numSeats);
  const legal = new Float32Array(B * shape.actionSize);
  const sums = { policyLoss: 0, valueLoss: 0, l2: 0, total: 0 };
  const weightsFiniteAtStart = nonFiniteWeight(run) === null;
  trainer.learningRate = learningRateAt(options, iteration);
  let steps = 0;
  for (; steps < totalSteps && !stopped(); steps++) {
    // Each position is seen through a random symmetry of the game (or as is): free data augmentation.
    sampleMixed(replay, records, B, rng, { inputs, policy, values, legal }, symmetries);
    if (steps === 0 && fault === 'replay') values[0] = NaN;
    if (steps === 0 && fault === 'value-1e30') values[(B - 1) * shape.numSeats] = 1e30;
    // The policy softmax is taken over each position's legal actions, as the search's priors are.
    const losses = trainer.trainBatch(inputs, policy, values, B, legal);
    if (steps === 0 && fault === 'gradient') poisonFirstWeight(run.networks.model);
    // A loss this far above any real one (cross-entropy and squared error of a few seats) has diverged,
    // even before it overflows to NaN.
    if (!Number.isFinite(losses.total) || losses.total > MAX_SANE_LOSS) {
      throw diverged(run, iteration, steps, `the loss is ${losses.total}`, batchProblem({ count: B, inputs, policy, values, legal }, shape), weightsFiniteAtStart);
    }
    sums.policyLoss += losses.policyLoss;
    sums.valueLoss += losses.valueLoss;
    sums.l2 += losses.l2;
    sums.total += losses.total;
    events.progress?.(steps + 1);
    if (betweenSteps) await betweenSteps();
  }
  const bad = nonFiniteWeight(run);
  if (bad !== null) throw diverged(run, iteration, steps, `weight ${bad} is not finite`, undefined, weightsFiniteAtStart);
  const t2 = performance.now();
  return {
    steps,
    policyLoss: steps ? sums.policyLoss / steps : 0,
    valueLoss: steps ? sums.valueLoss / steps : 0,
    l2: steps ? sums.l2 / steps : 0,
    total: steps ? sums.total / steps : 0,
    positionsPerSecond: (steps * B) / Math.max(1e-9, (t2 - t1) / 1000),
    learningRate: trainer.learningRate,
    ...(records ? { recordsShare: records.share } : {}),
  };
}

/** The error for a diverged step; the batch's data is blamed first (`badBatch`: what batchProblem found), then the weights, then the learning rate. */
function diverged(run: RunSession, iteration: number, step: number, what: string, badBatch: string | undefined, weightsFiniteAtStart: boolean): TrainingDivergedError {
  const cause = badBatch
    ? `the training data: ${badBatch}, which no sound game record holds (a bad record reached the replay buffer)`
    : !weightsFiniteAtStart
      ? 'the network held NaN or infinite weights before this training phase (NaN weights)'
      : `training diverged: the learning rate (--lr ${run.options.learningRate}) is likely too high, or a gradient overflowed`;
  const kept = run.latestCheckpoint;
  return new TrainingDivergedError(
    `training stopped in iteration ${iteration} at step ${step + 1}: ${what}. Likely cause: ${cause}. ` +
      (kept ? `The last good checkpoint, ${kept}, is kept; nothing of this iteration was saved.` : 'Nothing was saved.'),
  );
}

/** Evaluation: the run's playing network with search against random and the game's own bots. */
export async function evalPhase(run: RunSession, iteration: number): Promise<Record<string, ArenaSummary>> {
  const { options, game, plugin, events, stopped } = run;
  const { playingEvaluator } = run.networks;
  const evalResults: Record<string, ArenaSummary> = {};
  if (options.evalGames > 0 && !stopped()) {
    await refreshInference(run);
    const opponents = evaluationOpponents(game, plugin.bots ?? {}, options.seed + iteration);
    events.phase?.('eval', options.evalGames * opponents.length, iteration);
    let doneBefore = 0;
    for (const opponent of opponents) {
      const me = makeSearchAgent(game, playingEvaluator, options, options.seed + iteration);
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

function evaluationOpponents<S>(game: Game<S>, bots: Readonly<Record<string, (g: Game<S>, seed: number) => Agent<S>>>, seed: number): Agent<S>[] {
  const out: Agent<S>[] = [new RandomAgent(game, seed)];
  for (const [name, make] of Object.entries(bots)) {
    const bot = make(game, seed);
    out.push({ name, act: (states) => bot.act(states) });
  }
  return out;
}

/** What a loop hands `finishIteration` once an iteration's games are in the replay buffer. */
export interface IterationStart {
  readonly iteration: number;
  /** performance.now() when the iteration's self-play began, and when it ended. */
  readonly startedAt: number;
  readonly selfPlayEndedAt: number;
  readonly selfPlay: IterationMetrics['selfPlay'];
  /** Called between training steps (the multi-process loop serves its workers there). */
  readonly betweenSteps?: () => Promise<void>;
  /** Game records mixed into the minibatches (`az train --records`). */
  readonly records?: RecordsBatches;
  /** Called once the new weights version exists (the multi-process loop publishes it to its workers). */
  readonly onNewWeights?: () => void;
  /** More data for the checkpoint's `extra`. */
  readonly checkpointExtra?: () => Readonly<Record<string, unknown>>;
  /** The multi-process part of the metrics line, taken after the checkpoint. */
  readonly workers?: () => WorkerIterationMetrics;
}

/**
 * The end of every iteration: training, one new weights version, evaluation with the new weights, a
 * checkpoint, and the metrics line. Returns the metrics.
 */
export async function finishIteration(run: RunSession, start: IterationStart): Promise<IterationMetrics> {
  const { state, replay } = run;
  const { iteration } = start;
  const train = await trainPhase(run, iteration, start.betweenSteps, start.records);
  foldTrainedWeights(run.networks, iteration, run.options.weightsAverageDecay);
  state.weightsVersion++;
  state.iteration = iteration;
  start.onNewWeights?.();
  // Self-play and evaluation search with the new weights (a fresh onnx export when on onnxruntime).
  await refreshInference(run);
  const t2 = performance.now();
  const evalResults = await evalPhase(run, iteration);
  const t3 = performance.now();
  const { startedAt: t0, selfPlayEndedAt: t1 } = start;
  // The record the checkpoint commits; the line appended once it is on disk adds the save's time.
  const committed: IterationMetrics = {
    iteration,
    weightsVersion: state.weightsVersion,
    time: new Date().toISOString(),
    sessionSeconds: run.timeBudget.elapsedSeconds(),
    seconds: { selfPlay: (t1 - t0) / 1000, train: (t2 - t1) / 1000, eval: (t3 - t2) / 1000, total: (t3 - t0) / 1000 },
    selfPlay: start.selfPlay,
    train,
    replay: { size: replay.size, totalAdded: replay.totalAdded },
    eval: evalResults,
    ...(start.workers ? { workers: start.workers() } : {}),
  };
  await saveRun(run, start.checkpointExtra?.(), committed);
  const t4 = performance.now();
  const metrics: IterationMetrics = { ...committed, seconds: { ...committed.seconds, total: (t4 - t0) / 1000 } };
  const line = await recordIteration(run, metrics);
  // After a rating (--rate-every) too: the time limit's estimate of the next iteration includes it.
  run.timeBudget.iterationEnded();
  return line;
}

/**
 * Rates the checkpoint just written (when the front end asks to), appends one line to metrics.jsonl and
 * tells the front end. The checkpoint holds the line's record already: a kill before the append loses
 * only the rating (see metrics-log.ts).
 */
export async function recordIteration(run: RunSession, metrics: IterationMetrics): Promise<IterationMetrics> {
  const checkpoint = run.latestCheckpoint;
  const rating = run.events.rate && checkpoint && !run.stopped() ? await run.events.rate(metrics.iteration, checkpoint) : undefined;
  const line: IterationMetrics = rating ? { ...metrics, rating } : metrics;
  appendMetricsLine(run.paths, line);
  run.events.iteration?.(line);
  return line;
}

/**
 * The single-device AlphaZero loop: self-play (all games of an iteration in lock-step) -> replay
 * buffer -> training -> arena evaluation -> checkpoint, repeated; metrics appended to metrics.jsonl.
 */
import { finishIteration } from './iteration.js';
import { cacheHitRateField, type IterationMetrics, type TrainSummary } from './metrics.js';
import { selfPlaySettings, type TrainOptionsInput } from './options.js';
import { OutcomeTally } from './outcome-tally.js';
import { learnFromRecords } from './pretrain.js';
import type { RecordsInput } from './record-intake.js';
import { openRun, type RunDeps } from './run-open.js';
import { anotherIteration, closeRun, disposeRun, endRun } from './run-session.js';
import { createSelfPlayEngine, selfPlayEvaluationCache } from './search-settings.js';
import { SelfPlay } from './self-play.js';

/** What the single-process loop takes besides the run's dependencies. */
export interface TrainingDeps extends RunDeps {
  /** Game records to pretrain on and mix into training (`az train --records`). */
  records?: RecordsInput;
}

/**
 * Trains in this process. `signal` stops the run between moves or steps and still writes a checkpoint
 * (Ctrl-C); the summary then says `interrupted`. The run directory is locked (train.lock) from before
 * anything in it changes until summary.json is written: a run another session trains is refused with a
 * RunLockedError.
 */
export async function runTraining(
  input: TrainOptionsInput,
  deps: TrainingDeps = {},
): Promise<TrainSummary> {
  const run = await openRun(input, deps);
  const { options, game, replay, state, rng, events, stopped } = run;
  const { evaluator, inference } = run.networks;
  let lastMetrics: IterationMetrics | undefined;
  let interrupted = false;
  try {
    // Records are read, and pretrained on, before the first self-play.
    const records = deps.records ? await learnFromRecords(run, deps.records) : undefined;
    while (anotherIteration(run)) {
      const iteration = state.iteration + 1;
      const t0 = performance.now();

      // Self-play with the current weights.
      // A fresh cache per iteration: the weights change between iterations.
      const cache = selfPlayEvaluationCache(game, evaluator, options, inference);
      const engine = createSelfPlayEngine(game, { evaluator: cache ?? evaluator, network: evaluator }, options, Math.min(options.parallelGames, options.gamesPerIteration), rng.nextUint32());
      const selfPlay = new SelfPlay(game, engine, { ...selfPlaySettings(options, game.traits.information), seed: rng.nextUint32(), weightsVersion: state.weightsVersion });
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
      lastMetrics = await finishIteration(run, {
        iteration,
        records: records?.batchesAt(iteration),
        startedAt: t0,
        selfPlayEndedAt: t1,
        selfPlay: {
          games: sp.games,
          positions: sp.positions,
          evaluations: sp.evaluations,
          gamesPerSecond: sp.games / sp.seconds,
          evalsPerSecond: sp.evaluations / sp.seconds,
          averageBatch: sp.averageBatch,
          ...cacheHitRateField(cache?.stats),
          ...(sp.fullSearchShare !== undefined ? { fullSearchShare: sp.fullSearchShare } : {}),
          outcomes: outcomes.take(),
        },
      });
    }
    if (stopped()) interrupted = true;
    return endRun(run, await closeRun(run, interrupted, lastMetrics));
  } catch (err) {
    disposeRun(run);
    throw err;
  }
}

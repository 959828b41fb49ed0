/**
 * A run's records (`az train --records`) read and learned from: pretraining on them alone before the
 * first self-play, then the share of each iteration's minibatches they keep.
 */
import { trainPhase } from './iteration.js';
import { readRecords, recordsShareAt, type RecordsBatches, type RecordsInput, type RecordsSummary } from './record-intake.js';
import type { ReplayBuffer } from './replay-buffer.js';
import { foldTrainedWeights } from './run-networks.js';
import { refreshInference, saveRun, type RunSession } from './run-session.js';

/** The records of a session, once read. */
export interface SessionRecords {
  readonly summary: RecordsSummary;
  /** What iteration `iteration`'s training draws from the records (undefined at a share of 0). */
  batchesAt(iteration: number): RecordsBatches | undefined;
}

/**
 * Reads the records into a buffer as large as the replay buffer, and in a session starting at iteration
 * 0 pretrains on them (see `pretrain`).
 */
export async function learnFromRecords(run: RunSession, input: RecordsInput): Promise<SessionRecords> {
  const { options, replay, state, events } = run;
  const steps = input.pretrainSteps ?? options.trainingSteps;
  const { buffer, summary } = await readRecords(run.game, input, options.replayCapacity, replay.shape, events, run.stopped);
  if (state.iteration === 0 && !run.stopped()) {
    await pretrain(run, buffer, steps, summary);
  } else if (steps > 0) {
    run.log(`records: no pretraining (the run is at iteration ${state.iteration}); they are mixed into training at --records-share`);
  }
  return {
    summary,
    batchesAt: (iteration) => {
      const share = recordsShareAt(input, iteration, options.iterations);
      return share > 0 && buffer.size > 0 ? { buffer, share } : undefined;
    },
  };
}

/**
 * `steps` training steps on the records alone, as a new weights version with its own checkpoint
 * (iteration 0), so that self-play starts from it and `--iterations 0` stops there. With no steps (or
 * no positions) the checkpoint holds the untrained network: a baseline from the same seed.
 */
async function pretrain(run: RunSession, buffer: ReplayBuffer, steps: number, summary: RecordsSummary): Promise<void> {
  const { state } = run;
  let trained = buffer.size === 0 ? 'no positions to pretrain on: the untrained network' : 'the untrained network (no pretraining steps)';
  let stepsDone = 0;
  if (buffer.size > 0 && steps > 0) {
    const train = await trainPhase(run, 0, undefined, { buffer, share: 1 }, { steps, phase: 'pretrain' });
    if (run.stopped()) return;
    stepsDone = train.steps;
    foldTrainedWeights(run.networks, 1, run.options.weightsAverageDecay);
    state.weightsVersion++;
    await refreshInference(run);
    trained = `pretrained ${train.steps} steps (loss policy ${train.policyLoss.toFixed(3)} value ${train.valueLoss.toFixed(3)}, ${Math.round(train.positionsPerSecond)} positions/s)`;
  }
  await saveRun(run, { pretrained: { steps: stepsDone, gamesRead: summary.gamesRead, positions: summary.positions } });
  run.log(`records: ${trained}; checkpoint ${run.latestCheckpoint}`);
}

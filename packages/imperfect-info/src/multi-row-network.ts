import type { Game, InferenceModel } from '@az/core';
import type { Evaluator, LeafBatch } from '@az/mcts';

/** Throws unless `model` predicts one value per seat of `game` and one logit per action. */
export function assertNetworkFitsGame(game: Game<unknown>, model: InferenceModel): void {
  const P = game.numPlayers;
  if (model.config.numSeats !== P) throw new Error(`network predicts ${model.config.numSeats} seat values but ${game.traits.id} has ${P} seats`);
  if (model.config.actionSize !== game.masker.actionSize) {
    throw new Error(`network has ${model.config.actionSize} policy outputs but ${game.traits.id} has ${game.masker.actionSize} actions`);
  }
}

/**
 * Network input and output buffers for evaluators that send several rows per leaf (one per seat's view,
 * or a world row plus an own-view row), in one call for the whole batch.
 */
export class MultiRowBuffers {
  inputs = new Float32Array(0);
  logits = new Float32Array(0);
  values = new Float32Array(0);

  constructor(
    readonly rowsPerLeaf: number,
    readonly inputSize: number,
  ) {}

  /** Makes room for `batch`; sized for the largest batch the search can send, so it grows once. */
  fit(batch: LeafBatch<unknown>): void {
    const R = this.rowsPerLeaf;
    const rows = batch.count * R;
    if (this.inputs.length >= rows * this.inputSize) return;
    const maxRows = Math.max(rows, (batch.policyLogits.length / batch.actionSize) * R);
    this.inputs = new Float32Array(maxRows * this.inputSize);
    this.logits = new Float32Array(maxRows * batch.actionSize);
    this.values = new Float32Array(maxRows * batch.numSeats);
  }
}

/**
 * What the evaluators that send several rows per leaf share: they encode leaves themselves, take every
 * action's logit (the search masks them), check the network fits the game, and own their buffers.
 */
export abstract class MultiRowEvaluator<S> implements Evaluator<S> {
  readonly needsInputs = false;
  readonly needsMasks = false;
  protected readonly buffers: MultiRowBuffers;

  constructor(
    readonly game: Game<S>,
    readonly model: InferenceModel,
    rowsPerLeaf: number,
  ) {
    assertNetworkFitsGame(game, model);
    this.buffers = new MultiRowBuffers(rowsPerLeaf, game.encoder.size);
  }

  abstract evaluate(batch: LeafBatch<S>): Promise<void>;
}

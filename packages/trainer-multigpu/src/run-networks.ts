/**
 * A run's networks: the one being trained, and the one that plays for the run (evaluation, checkpoints,
 * the final assessment), which is the trained one itself or, with `weightsAverageDecay` > 0, the moving
 * average of its weights. Each plays on an inference engine that the search calls and that follows the
 * weights through `refresh(weightsVersion)`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Game, NetworkConfig } from '@az/core';
import {
  CheckpointError,
  buildModel,
  foldWeightsAverage,
  loadWeightsInto,
  openInferenceEngine,
  serializeWeights,
  verifyCheckpointFile,
  type CheckpointManifest,
  type InferenceEngine,
  type LayersModel,
} from '@az/nn';
import { NetworkEvaluator } from '@az/mcts';
import type { TrainOptions } from './options.js';
import { selfPlayWorkload } from './search-settings.js';

/**
 * With a weights average on, a checkpoint's model files (model.json, weights.bin, model.onnx) hold the
 * average, so everything that plays from a checkpoint plays the average; the trained weights, which a
 * resumed run trains on, are this file (float32, in `model.weights` order: `serializeWeights`' layout).
 */
export const TRAINING_WEIGHTS_FILE = 'training-weights.bin';

/** The network to train and the one that plays (the same model without an average). */
export interface RunModels {
  readonly model: LayersModel;
  readonly playingModel: LayersModel;
}

export interface RunNetworks extends RunModels {
  readonly config: NetworkConfig;
  /** `model` on the inference engine (an onnxruntime session on a snapshot of its weights, or the model itself on tfjs). */
  readonly inference: InferenceEngine;
  /** `playingModel` on the engine `inference` got (`inference` itself without an average). */
  readonly playingInference: InferenceEngine;
  /** The trained network with search: single-process self-play. */
  readonly evaluator: NetworkEvaluator<unknown>;
  /** The playing network with search (`evaluator` without an average). */
  readonly playingEvaluator: NetworkEvaluator<unknown>;
}

/** A checkpoint a run resumes from, as far as its networks go. */
export interface ResumedModel {
  readonly model: LayersModel;
  readonly manifest: CheckpointManifest;
  readonly checkpointDir: string;
}

function averaging(options: TrainOptions): boolean {
  return options.weightsAverageDecay > 0;
}

/** Whether the playing network is an average apart from the trained one. */
export function isAveraged(models: RunModels): boolean {
  return models.playingModel !== models.model;
}

/**
 * The network to train and the one that plays. A resumed checkpoint that holds training weights (it was
 * written with an average) trains on those and plays its model files; one without them trains on its
 * model files and, with an average asked for, starts the average there.
 */
export function trainedAndPlayingModels(resumed: ResumedModel | null, config: NetworkConfig, options: TrainOptions, log: (m: string) => void): RunModels {
  if (!resumed) {
    const model = buildModel(config, { seed: options.seed });
    return { model, playingModel: averaging(options) ? copyOf(model, config, options) : model };
  }
  if (!resumed.manifest.files?.[TRAINING_WEIGHTS_FILE]) {
    return { model: resumed.model, playingModel: averaging(options) ? copyOf(resumed.model, config, options) : resumed.model };
  }
  const trained = readTrainingWeights(resumed, config, options);
  if (averaging(options)) return { model: trained, playingModel: resumed.model };
  log(`--weights-average 0: training continues from the trained weights of ${resumed.checkpointDir}; its average is dropped`);
  resumed.model.dispose();
  return { model: trained, playingModel: trained };
}

function copyOf(source: LayersModel, config: NetworkConfig, options: TrainOptions): LayersModel {
  const copy = buildModel(config, { seed: options.seed });
  foldWeightsAverage(copy, source, 0);
  return copy;
}

/** A new model holding the checkpoint's training weights; on failure both models are freed. */
function readTrainingWeights(resumed: ResumedModel, config: NetworkConfig, options: TrainOptions): LayersModel {
  const path = join(resumed.checkpointDir, TRAINING_WEIGHTS_FILE);
  const trained = buildModel(config, { seed: options.seed });
  try {
    const bytes = readFileSync(path);
    verifyCheckpointFile(resumed.checkpointDir, resumed.manifest, TRAINING_WEIGHTS_FILE, bytes);
    const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    loadWeightsInto(trained, { specs: serializeWeights(resumed.model).specs, data });
    return trained;
  } catch (err) {
    trained.dispose();
    resumed.model.dispose();
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(path, `${path} does not fit the checkpoint's network: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Puts both networks on the registry's engine (onnxruntime when it loads) while tfjs trains; 'auto' falls
 * back to the training model itself, with the reason logged. The playing network gets the engine the
 * trained one got, without passing over engines again.
 */
export async function openRunNetworks(
  models: RunModels,
  config: NetworkConfig,
  game: Game<unknown>,
  options: TrainOptions,
  weightsVersion: number,
  log: (m: string) => void,
): Promise<RunNetworks> {
  const engineOptions = { threads: options.inferenceThreads, workload: selfPlayWorkload(game, options), weightsVersion, log };
  const inference = await openInferenceEngine(models.model, config, { ...engineOptions, engine: options.inferenceBackend });
  log(`inference: ${inference.describe()}`);
  const evaluator = new NetworkEvaluator(inference);
  if (!isAveraged(models)) return { ...models, config, inference, playingInference: inference, evaluator, playingEvaluator: evaluator };
  log(`playing network: the moving average of the trained weights (decay ${options.weightsAverageDecay} per iteration); self-play uses the trained weights`);
  let playingInference: InferenceEngine;
  try {
    playingInference = await openInferenceEngine(models.playingModel, config, { ...engineOptions, engine: inference.name });
  } catch (err) {
    inference.dispose();
    throw err;
  }
  return { ...models, config, inference, playingInference, evaluator, playingEvaluator: new NetworkEvaluator(playingInference) };
}

/** Brings both networks' engines up to `weightsVersion` (`InferenceEngine.refresh`). */
export async function refreshEngines(networks: RunNetworks, weightsVersion: number): Promise<void> {
  await networks.inference.refresh(weightsVersion);
  if (isAveraged(networks)) await networks.playingInference.refresh(weightsVersion);
}

/** Folds the weights just trained in `iteration` into the playing network (nothing without an average). */
export function foldTrainedWeights(networks: RunModels, iteration: number, decay: number): void {
  if (!isAveraged(networks)) return;
  // Until the average spans 1 / (1 - decay) iterations it is the plain mean of those trained so far,
  // so the random initial weights never weigh in.
  foldWeightsAverage(networks.playingModel, networks.model, Math.min(decay, (iteration - 1) / iteration));
}

/** The files a checkpoint carries for its networks besides the playing network's model files. */
export function trainingWeightsFiles(networks: RunModels): Record<string, Uint8Array> {
  return isAveraged(networks) ? { [TRAINING_WEIGHTS_FILE]: new Uint8Array(serializeWeights(networks.model).data) } : {};
}

/** Frees the engines, then the models (the playing engine only when it is apart from the trained one). */
export function disposeNetworks(networks: RunNetworks): void {
  networks.inference.dispose();
  if (networks.playingInference !== networks.inference) networks.playingInference.dispose();
  disposeModels(networks);
}

/** Frees both models (the playing one only when it is apart from the trained one). */
export function disposeModels(models: RunModels): void {
  if (isAveraged(models)) models.playingModel.dispose();
  models.model.dispose();
}

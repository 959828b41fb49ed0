/**
 * The one table from `az train`'s flags to the settings they fill, section by section: `az train`
 * builds its options from it and `az train --help` prints each setting's default from it.
 */
import { parseConfigAssignments, type NetworkSpec } from '@az/core';
import { splitBackendChoice } from '@az/nn';
import { parseDuration, type EvaluationSettings, type InferenceSettings, type NetworkSettings, type RunSettings, type SelfPlaySettings, type TrainingSettings, type TrainOptionsInput } from '@az/trainer-multigpu';
import { UsageError, type ParsedFlags } from './args.js';
import type { trainSpec } from './commands/train.js';

export type TrainFlags = ParsedFlags<(typeof trainSpec)['flags']>;

/** The sections of a run's settings, by the name their paths start with. */
interface TrainSections {
  readonly run: RunSettings;
  readonly selfPlay: SelfPlaySettings;
  readonly evaluation: EvaluationSettings;
  readonly training: TrainingSettings;
  readonly network: NetworkSettings;
  readonly inference: InferenceSettings;
}

export type TrainSection = keyof TrainSections;

/** `section.field`, only for fields the section has. */
export type SettingPath = { [S in TrainSection]: `${S}.${keyof TrainSections[S] & string}` }[TrainSection];

export interface SettingFlag {
  readonly flag: keyof TrainFlags & string;
  readonly path: SettingPath;
  /** The setting from the flag's text, for flags whose text is not the value itself. */
  readonly read?: (text: string) => unknown;
}

/** Every flag that fills a setting, in the order `az train --help` shows their defaults. */
export const TRAIN_SETTING_FLAGS: readonly SettingFlag[] = [
  { flag: 'config', path: 'run.gameConfig', read: (text) => parseConfigAssignments(text) },
  { flag: 'iterations', path: 'run.iterations' },
  { flag: 'time-limit', path: 'run.timeLimitSeconds', read: timeLimitOf },
  { flag: 'games-per-iter', path: 'run.gamesPerIteration' },
  { flag: 'out', path: 'run.out' },
  { flag: 'resume', path: 'run.resume' },
  { flag: 'force', path: 'run.force' },
  { flag: 'keep', path: 'run.keepCheckpoints' },
  { flag: 'seed', path: 'run.seed' },
  { flag: 'parallel-games', path: 'selfPlay.parallelGames' },
  { flag: 'sims', path: 'selfPlay.simulations' },
  { flag: 'determinizations', path: 'selfPlay.determinizations' },
  { flag: 'leaf-values', path: 'selfPlay.leafValues' },
  { flag: 'self-play-search', path: 'selfPlay.selfPlaySearchMethod' },
  { flag: 'leaves', path: 'selfPlay.leavesPerTree' },
  { flag: 'cpuct', path: 'selfPlay.cPuct' },
  { flag: 'dirichlet-alpha', path: 'selfPlay.dirichletAlpha' },
  { flag: 'dirichlet-epsilon', path: 'selfPlay.dirichletEpsilon' },
  { flag: 'temperature-moves', path: 'selfPlay.temperatureMoves' },
  { flag: 'value-shaping', path: 'selfPlay.valueShaping' },
  { flag: 'root-value-weight', path: 'selfPlay.rootValueWeight' },
  { flag: 'child-values', path: 'selfPlay.childValueWorlds' },
  { flag: 'self-play-solve', path: 'selfPlay.selfPlaySolve' },
  { flag: 'full-search-share', path: 'selfPlay.fullSearchShare' },
  { flag: 'reduced-sims', path: 'selfPlay.reducedSimulations' },
  { flag: 'eval-cache', path: 'selfPlay.evalCacheSize' },
  { flag: 'root-selection', path: 'selfPlay.rootSelection' },
  { flag: 'gumbel-actions', path: 'selfPlay.gumbelConsideredActions' },
  { flag: 'gumbel-c-visit', path: 'selfPlay.gumbelCVisit' },
  { flag: 'gumbel-c-scale', path: 'selfPlay.gumbelCScale' },
  { flag: 'forced-playouts', path: 'selfPlay.forcedPlayouts' },
  { flag: 'eval-games', path: 'evaluation.evalGames' },
  { flag: 'eval-sims', path: 'evaluation.evalSimulations' },
  { flag: 'train-steps', path: 'training.trainingSteps' },
  { flag: 'batch-size', path: 'training.batchSize' },
  { flag: 'lr', path: 'training.learningRate' },
  { flag: 'lr-schedule', path: 'training.learningRateSchedule' },
  { flag: 'lr-final', path: 'training.finalLearningRate' },
  { flag: 'weight-decay', path: 'training.weightDecay' },
  { flag: 'weights-average', path: 'training.weightsAverageDecay' },
  { flag: 'replay', path: 'training.replayCapacity' },
  // One flag, two engines: the tfjs backend that trains and the engine the search runs on.
  { flag: 'backend', path: 'training.backend', read: (text) => splitBackendChoice(text as Parameters<typeof splitBackendChoice>[0]).training },
  { flag: 'backend', path: 'inference.inferenceBackend', read: (text) => splitBackendChoice(text as Parameters<typeof splitBackendChoice>[0]).engine },
  { flag: 'threads', path: 'inference.inferenceThreads' },
  { flag: 'network', path: 'network.network', read: parseNetworkSpec },
];

/** The field a path names (`selfPlay.leafValues` -> `leafValues`): a run's options are stored flat. */
export function settingOf(path: SettingPath): string {
  return path.slice(path.indexOf('.') + 1);
}

/** The run's options as the flags give them; a flag not given leaves its setting to the game's hints and the defaults. */
export function trainInputFrom(flags: TrainFlags, game: string): TrainOptionsInput {
  const input: Record<string, unknown> = { game };
  for (const { flag, path, read } of TRAIN_SETTING_FLAGS) {
    const value: unknown = flags[flag];
    if (value === undefined) continue;
    input[settingOf(path)] = read ? read(String(value)) : value;
  }
  return input as unknown as TrainOptionsInput;
}

/** `mlp:64,64` or `resnet:64x4`. */
export function parseNetworkSpec(text: string): NetworkSpec {
  const [kind, rest = ''] = text.split(':');
  if (kind === 'mlp') {
    const hidden = rest.split(',').filter(Boolean).map(Number);
    if (hidden.length === 0 || hidden.some((h) => !Number.isInteger(h) || h < 1)) throw new UsageError(`az train: --network mlp needs layer widths, e.g. mlp:128,128 (got '${text}')`);
    return { kind: 'mlp', hidden };
  }
  if (kind === 'resnet') {
    const m = /^(\d+)x(\d+)$/.exec(rest);
    if (!m || Number(m[1]) < 1 || Number(m[2]) < 0) throw new UsageError(`az train: --network resnet needs FILTERSxBLOCKS, e.g. resnet:64x4 (got '${text}')`);
    return { kind: 'resnet', filters: Number(m[1]), blocks: Number(m[2]) };
  }
  throw new UsageError(`az train: --network must start with mlp: or resnet: (got '${text}')`);
}

function timeLimitOf(text: string): number {
  const seconds = parseDuration(text);
  if (seconds === null) throw new UsageError(`az train: --time-limit ${text} is not a duration: write it as 90s, 45m, 1h or 1h30m`);
  return seconds;
}

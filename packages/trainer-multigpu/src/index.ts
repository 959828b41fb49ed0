export { SelfPlay, type SelfPlayOptions, type SelfPlayStats } from './self-play.js';
export { ReplayBuffer, type ReplayShape } from './replay-buffer.js';
export { encodeGameRecord, decodeGameRecord, gameRecordByteLength, type GameRecord } from './game-record.js';
export { playArena, type ArenaResult, type ArenaOptions } from './arena.js';
export { createSearchEngine } from './search-factory.js';
export { resolveTrainOptions, checkTrainOptions, defaultPlaySimulations, FRAMEWORK_TRAIN_DEFAULTS, type TrainOptions, type TrainOptionsInput } from './options.js';
export {
  runTraining,
  runPaths,
  findCheckpointDir,
  searchConfigFrom,
  type TrainerEvents,
  type TrainPhase,
  type IterationMetrics,
  type ArenaSummary,
  type TrainSummary,
} from './train-loop.js';

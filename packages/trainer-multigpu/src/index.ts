export { SelfPlay, type SelfPlayOptions, type SelfPlayStats } from './self-play.js';
export { ReplayBuffer, NonFiniteReplayError, type ReplayShape, type ReplayRange } from './replay-buffer.js';
export type { SelfPlayOutcomes } from './outcome-tally.js';
export { encodeGameRecord, decodeGameRecord, gameRecordContentProblem, MAX_INPUT_MAGNITUDE, type GameRecord, type RecordLimits } from './game-record.js';
export { resolveTrainOptions, learningRateAt, FRAMEWORK_TRAIN_DEFAULTS, UNBOUNDED_ITERATIONS, type LearningRateSchedule, type TrainOptions, type TrainOptionsInput, type RunSettings, type SelfPlaySettings, type EvaluationSettings, type TrainingSettings, type NetworkSettings, type InferenceSettings, type WorkerSettings } from './options.js';
export { runTraining, type TrainingDeps } from './train-loop.js';
export { recordPositions, recordsShareAt, type RecordedGame, type RecordSource, type RecordsInput, type RecordsSummary, type SkipRecord } from './record-intake.js';
export { TimeBudget, parseDuration, formatDuration } from './time-budget.js';
export { runPaths, claimRunDirectory, resolveResume, holdsRun, isTransientRunEntry, recordedGame, checkRunFitsMemory, RunDirectoryError, RUN_LOCK_FILE, type RunPaths } from './run-dir.js';
// One training session at a time per run directory (train.lock).
export { RunLockedError, type RunLockHolder } from './run-lock.js';
export type { RunDeps } from './run-open.js';
export { selfPlaySearchSettings, evaluationSearchSettings, createSelfPlayEngine } from './search-settings.js';
export { TrainingDivergedError } from './iteration.js';
export { REPLAY_DIR, REPLAY_INDEX_FILE, type ReplayIndex, type ReplaySegment } from './replay-store.js';
export { GameIntake, intakeDelta, type GameIntakeOptions } from './game-intake.js';
export type { TrainerEvents, TrainPhase, IterationMetrics, WorkerIterationMetrics, DeviceIterationMetrics, ArenaSummary, TrainSummary } from './metrics.js';
// Multi-process training: self-play workers per device, central training.
export { parseGpuList, parseDeviceSpec, checkDevices, DeviceSpecError, type Device, type DeviceKind } from './devices.js';
export {
  runMultiProcessTraining,
  checkMultiProcessOptions,
  MULTIPROCESS_DEFAULTS,
  type MultiProcessOptions,
  type MultiProcessSummary,
  type MultiProcessTrainSummary,
  type DeviceTotals,
} from './multiprocess.js';
export type {
  SelfPlayTransport,
  WorkerSetup,
  WorkerSlot,
  WorkerStatus,
  WorkerEvent,
  WorkerExitReason,
  WorkerPlayStats,
  IncomingGame,
  PublishedWeights,
  PluginModuleRef,
} from './transport.js';
export { LocalIpcTransport, type LocalIpcTransportOptions } from './ipc-transport.js';
// Self-play on other machines, over Redis Streams (see docs/distributed.md).
export { RedisTransport, readRedisCheckpointState, type RedisTransportOptions, type RedisRunOptions, type RedisCheckpointState } from './redis-transport.js';
export { RedisWorkerAgent, IncompatibleRunError, type RedisWorkerAgentOptions, type LocalPlugin } from './redis-worker-agent.js';
export { parseRedisUrl, withTlsCa, checkRunName, RedisUrlError, RedisConnectError, TLS_CA_ENV, type RedisEndpoint } from './redis-common.js';
// The run key: the learner signs the setup and weights, workers their games and heartbeats (HMAC-SHA256).
export { readRunKey, readRunKeyFile, runDirectoryKey, RunSigner, RunKeyError, RUN_KEY_ENV, RUN_KEY_FILE, type RunKey } from './run-key.js';
// The games stream's entry format, for tools that write to it (the Redis benchmark's simulated workers).
export { entryFields, groupIntoEntries, GAMES_PER_ENTRY, ENTRY_BYTES, type EntryGame } from './redis-common.js';

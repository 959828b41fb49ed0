// The public surface of @az/core: contracts every game and tool builds on.
export { Rng, hashString } from './rng.js';
export { RandomAgent, randomLegalAction, randomPlayoutReturns } from './agents.js';
export { playArena, arenaGameSeed, type ArenaResult, type ArenaOptions, type ArenaGameRecord, type SettlingAgent, type SeatTally } from './arena.js';
export {
  fitElo,
  sprt,
  wilsonInterval,
  expectedScore,
  eloFromScore,
  losFromRecord,
  normalCdf,
  studentT975,
  Z95,
  type PairResult,
  type RatedPlayer,
  type EloFit,
  type EloFitOptions,
  type Interval,
  type SprtResult,
  type SprtDecision,
} from './rating.js';
export {
  ConfigError,
  validateConfig,
  ownValue,
  parseConfigAssignments,
  describeSchema,
  type ConfigValue,
  type ResolvedConfig,
  type ConfigField,
  type ConfigSchema,
  type IntField,
  type NumberField,
  type BooleanField,
  type EnumField,
  type StringField,
} from './config.js';
export { configValues, defineConfigSchema, type ConfigFieldValue, type TypedConfig } from './typed-config.js';
export type { InformationKind, RewardModel, GameTraits, Encoder, Masker, ParsedAction, Symmetry, Determinizer, Game, Agent, PastDecision } from './game.js';
export type { GameView, GridView, GridPiece, GridBoard, ViewAction, ViewCommon, CustomView, CustomViewFields, JsonValue, ChessView, CardTableView } from './views.js';
export { GAME_CONTRACT_VERSION, type BotFactory, type AgentAssessment, type AssessmentOptions, type GamePlugin, type PartModels } from './plugin.js';
export type { TrainingHints } from './training-hints.js';
export { type LeafValues, DEFAULT_LEAF_VALUES, type SearchMethod, type WorldSampling } from './search-vocabulary.js';
export {
  GAME_PLUGIN_TOKEN,
  PluginError,
  GameRegistry,
  checkContractVersion,
  resolveGameConfig,
  defaultRegistry,
  registerGame,
  resolveGame,
  listGames,
  createGame,
} from './registry.js';
export type { NetworkSpec, MlpSpec, ResNetSpec, NetworkConfig, InferenceModel } from './network-spec.js';

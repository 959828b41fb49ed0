// The public surface of @az/core: contracts every game and tool builds on.
export { Rng, hashString } from './rng.js';
export { RandomAgent, randomLegalAction, randomPlayoutReturns } from './agents.js';
export { playArena, type ArenaResult, type ArenaOptions } from './arena.js';
export {
  ConfigError,
  validateConfig,
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
export {
  GAME_CONTRACT_VERSION,
  type InformationKind,
  type RewardModel,
  type GameTraits,
  type GameView,
  type GridView,
  type GridPiece,
  type ChessView,
  type CardTableView,
  type Encoder,
  type Masker,
  type ParsedAction,
  type Symmetry,
  type Determinizer,
  type Game,
  type Agent,
  type TrainingHints,
  type LeafValues,
  type BotFactory,
  type AgentAssessment,
  type GamePlugin,
} from './game.js';
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

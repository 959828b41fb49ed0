// How a game is packaged for the registry (GamePlugin and what it may offer beside the game) and the
// contract version it states; the game itself is game.ts.
import type { ConfigSchema, ConfigValue, ResolvedConfig } from './config.js';
import type { Agent, Game, GameTraits } from './game.js';
import type { TrainingHints } from './training-hints.js';

/**
 * The version of the game contract (this file, game.ts, views.ts, training-hints.ts and
 * search-vocabulary.ts: what a plugin builds against). A plugin states the version it was built
 * against; core refuses plugins whose major contract differs (see `checkContractVersion`).
 */
export const GAME_CONTRACT_VERSION = 1;

/** A baseline player a game offers by name (random is built in everywhere). */
export type BotFactory<S> = (game: Game<S>, seed: number) => Agent<S>;

/** What an assessment is for (`GamePlugin.assessAgent`). */
export interface AssessmentOptions {
  /**
   * 'tune' (the default): the figure the trainer shows after every run, which settings get chosen by;
   * 'report': the figure to quote, from positions never used to choose settings (the game may score the
   * same positions for both when it holds none out).
   */
  readonly purpose?: 'tune' | 'report';
}

/** A game's own verdict on an agent (e.g. tic-tac-toe measures it against the exact oracle). */
export interface AgentAssessment {
  /** One line for the terminal, e.g. "optimal moves 4,520/4,520 (100.0%), 0 losses vs minimax". */
  readonly summary: string;
  /** The figures behind the summary, by name (the run's metrics and `az assess --json` record them). */
  readonly metrics: Readonly<Record<string, number>>;
  /** Whether the agent meets the game's own bar (perfect play, ...), when it has one. */
  readonly passed?: boolean;
}

/** What a game package exports and registers. */
export interface GamePlugin<S = unknown> {
  /** The `GAME_CONTRACT_VERSION` the plugin was built against. */
  readonly contractVersion: number;
  /** What the game is (id, name, seats, information, chance, rewards), readable before any game is created. */
  readonly traits: GameTraits;
  /** The settings a game of this plugin takes (`--config`), each with its default and range. */
  readonly configSchema: ConfigSchema;
  /**
   * Cross-field checks and derived defaults after the schema has validated each field.
   * Throw a `ConfigError` naming the field that is wrong.
   */
  finalizeConfig?(config: ResolvedConfig): ResolvedConfig;
  /** A game for a config the schema validated (and `finalizeConfig` completed). */
  create(config: ResolvedConfig): Game<S>;
  /** Baseline players by name (`az play --opponent NAME`, `az eval`), beside the built-in random one. */
  readonly bots?: Readonly<Record<string, BotFactory<S>>>;
  /** Defaults the trainer takes for this game unless the user sets them. */
  readonly training?: TrainingHints;
  /**
   * Per-seat statistics of a finished game for `az eval` (e.g. Blob: score per round, bid accuracy).
   * The arena reports the mean of each with a confidence interval, per agent.
   */
  outcomeMetrics?(game: Game<S>, finalState: S, seat: number): Readonly<Record<string, number>>;
  /**
   * Optional exact or reference assessment of an agent. The trainer reports it after every run (no
   * options: `purpose` 'tune'); `az assess` asks for `purpose: 'report'`, so a game that holds positions
   * out of its tuning loop scores those there.
   */
  assessAgent?(game: Game<S>, agent: Agent<S>, options?: AssessmentOptions): Promise<AgentAssessment>;
  /**
   * For games whose networks play a long game one part at a time (Blob: a network trained on single
   * rounds drawn from the whole game plays each round of a whole game). Absent: a model plays the
   * config it was trained on, nothing else.
   */
  readonly partModels?: PartModels<S>;
}

/**
 * How a model trained on parts of a game plays the whole (see `GamePlugin.partModels`). The two
 * settings maps are each other's inverse on the keys they name; the CLI uses them to find the model for
 * a config (`az play --players 5`), to pick the config a model plays by default, and `project` to hand
 * the model's search each decision as a state of the game it was trained on.
 */
export interface PartModels<S> {
  /** Settings a model that plays `played` was trained with instead (Blob: rounds=game -> rounds=sampled); undefined when `played` needs a model of its own config. */
  trainedSettings(played: ResolvedConfig): Readonly<Record<string, ConfigValue>> | undefined;
  /** Settings a model trained on `trained` plays unless told otherwise (Blob: rounds=sampled -> rounds=game); undefined when it plays its own config. */
  playedSettings(trained: ResolvedConfig): Readonly<Record<string, ConfigValue>> | undefined;
  /**
   * The state of `modelGame` (the trained config's game) that asks for the same decision as `state` of
   * `played`: same seat to act, same legal actions, the same information for every seat. A new object;
   * `state` is not changed.
   */
  project(state: S, played: Game<S>, modelGame: Game<S>): S;
}

/**
 * Turning a command-line agent name into a player: `random`, `mcts` (search with random rollouts,
 * no network), a bot the game offers (`minimax`, `greedy`, `heuristic`, ...), a path to a trained
 * model (a run directory or a checkpoint directory), `policy:<model path>`: that network's policy
 * alone, no search (what it learnt by itself; `az assess --sims 0` plays the same way), or, for
 * hidden-information games, `rollout:<model path>`: each decision by rollouts of that policy.
 */
import { existsSync } from 'node:fs';
import {
  ConfigError,
  RandomAgent,
  ownValue,
  resolveGameConfig,
  type Agent,
  type BotFactory,
  type Game,
  type GamePlugin,
  type ResolvedConfig,
} from '@az/core';
import {
  initBackend,
  openCheckpointInference,
  readCheckpointManifest,
  resolveCheckpointPath,
  splitBackendChoice,
  type BackendChoice,
  type CheckpointManifest,
} from '@az/nn';
import {
  DEFAULT_OTHER_SEAT_MOVES,
  PolicyRolloutAgent,
  PolicyWorldWeigher,
  SearchSettingsError,
  createSearchEngine,
  playSearchHints,
  resolveSearchSettings,
  type SearchChoices,
  type SearchLeaves,
  type SearchSettings,
} from '@az/imperfect-info';
import { AGENT_SEARCH_TREES, MctsAgent, NetworkEvaluator, PolicyAgent, RolloutEvaluator } from '@az/mcts';
import { UciAgent, UciEngineError, parseUciAgentSpec } from '@az/chess-uci';
import { UsageError } from './args.js';

export interface AgentSettings {
  readonly simulations: number;
  readonly seed: number;
  /** Trees searched per evaluator call (default `AGENT_SEARCH_TREES`). */
  readonly batchTrees?: number;
  /** The user's other search choices (flags: exploration, the hidden-information search); the game's play hints fill the rest. */
  readonly search?: SearchChoices;
  /** How model agents run their network (--backend, --threads). */
  readonly network?: ModelLoadOptions;
}

export interface ModelLoadOptions {
  /**
   * 'auto' (default): onnxruntime when it loads, else tfjs; 'onnx' / 'onnx-cuda': onnxruntime or an error;
   * a tfjs backend name (cpu, wasm, node, gpu): tfjs on that backend.
   */
  readonly backend?: BackendChoice;
  /** onnxruntime threads per network call (default: the cores available to the process). */
  readonly threads?: number;
  /** Where a fallback from onnxruntime to tfjs is reported (default: stderr). */
  readonly log?: (message: string) => void;
}

/** What a model records about itself (its checkpoint's manifest), read without loading its network. */
export interface ModelManifest {
  readonly manifest: CheckpointManifest;
  /** The checkpoint directory. */
  readonly dir: string;
}

export interface LoadedModel extends ModelManifest {
  readonly evaluator: NetworkEvaluator<unknown>;
  /** The engine running the network ('onnx', 'onnx-cuda', or a tfjs backend such as 'wasm'). */
  readonly backendName: string;
  dispose(): void;
}

/** Loads a trained model for `plugin`; the checkpoint's game config is what the network was trained for. */
export async function loadModel(plugin: GamePlugin, path: string, options: ModelLoadOptions = {}): Promise<LoadedModel> {
  const dir = resolveCheckpointPath(path).checkpointDir;
  const { training, engine } = splitBackendChoice(options.backend ?? 'auto');
  // A named tfjs backend means tfjs; otherwise tfjs is only the fallback, initialised if it is needed.
  if (engine === 'tfjs') await initBackend(training);
  // onnx opens the checkpoint's model.onnx directly (no tfjs model is built), or exports older checkpoints.
  const { manifest, inference } = await openCheckpointInference(dir, { engine, threads: options.threads, expect: { gameId: plugin.traits.id }, log: options.log });
  return { manifest, evaluator: new NetworkEvaluator(inference), dir, backendName: inference.backendName, dispose: () => inference.dispose() };
}

/**
 * The manifest of the model at `path` (a run or checkpoint directory), for `plugin`, without loading its
 * network: what `gameFor` needs to know the game the model would play (its number of seats among it),
 * so a request that cannot be played is refused before the model is loaded. Errors as `loadModel`'s.
 */
export async function readModelManifest(plugin: GamePlugin, path: string): Promise<ModelManifest> {
  const dir = resolveCheckpointPath(path).checkpointDir;
  return { manifest: await readCheckpointManifest(dir, { gameId: plugin.traits.id }), dir };
}

/** The settings of `config` a network depends on: all but those the schema marks `modelIndependent`. */
export function modelBoundSettings(plugin: GamePlugin, config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !ownValue(plugin.configSchema, key)?.modelIndependent));
}

/**
 * The game to play: with a model, the settings its network depends on are the ones it was trained with
 * (a user setting must agree); the rest (those the schema marks `modelIndependent`: chess's starting
 * position, move cap and adjudication) are the user's, else the game's defaults, so a model trained on a
 * short adjudicated variant plays the real game. A model trained on parts of a game (the plugin's
 * `partModels`: Blob's `rounds=sampled`) plays the whole by default. Without a model, the user's settings.
 */
export function gameFor(plugin: GamePlugin, rawConfig: Readonly<Record<string, unknown>>, model?: ModelManifest): Game<unknown> {
  if (!model) return plugin.create(resolveGameConfig(plugin, rawConfig));
  const trained: ResolvedConfig = model.manifest.gameConfig;
  const modelBound = modelBoundSettings(plugin, trained);
  const playedByDefault = plugin.partModels?.playedSettings(trained) ?? {};
  let asked: ResolvedConfig;
  try {
    asked = resolveGameConfig(plugin, { ...modelBound, ...playedByDefault, ...rawConfig });
  } catch (err) {
    // A setting asked for may clash with one the model fixes (Blob: roundCards above the model's maxHand):
    // name the setting asked for and the model's value, not only the derived one the user never gave.
    if (!(err instanceof ConfigError)) throw err;
    const differs = (k: string): boolean => {
      const field = ownValue(plugin.configSchema, k);
      return Object.hasOwn(rawConfig, k) && field !== undefined && !field.modelIndependent && String(rawConfig[k]) !== String(trained[k]);
    };
    // The field the game names first (roundCards), else any setting asked for that the model has otherwise.
    const clash = differs(err.field) ? err.field : Object.keys(rawConfig).find(differs);
    if (clash === undefined) throw err;
    throw new UsageError(`the model at ${model.dir} was trained with ${clash}=${String(trained[clash])}; it cannot play ${clash}=${String(rawConfig[clash])} (${(err as Error).message})`);
  }
  const needs = trainedConfigFor(plugin, asked);
  for (const key of Object.keys(rawConfig)) {
    if (ownValue(plugin.configSchema, key)?.modelIndependent) continue;
    if (String(needs[key]) !== String(trained[key])) {
      throw new UsageError(`the model at ${model.dir} was trained with ${key}=${String(trained[key])}; it cannot play ${key}=${String(asked[key])}`);
    }
  }
  const game = plugin.create(asked);
  const { game: searched } = modelPlayFor(plugin, game, model);
  if (searched.encoder.version !== model.manifest.encoderVersion) {
    throw new UsageError(`the model at ${model.dir} was trained with encoder ${model.manifest.encoderVersion}, but this version of ${plugin.traits.id} encodes as ${searched.encoder.version}; retrain it`);
  }
  return game;
}

/** The config a model that plays `played` is trained with: `played` itself, or its part's (`GamePlugin.partModels`). */
export function trainedConfigFor(plugin: GamePlugin, played: ResolvedConfig): ResolvedConfig {
  const settings = plugin.partModels?.trainedSettings(played);
  return settings ? resolveGameConfig(plugin, { ...played, ...settings }) : played;
}

/** The game a model's network and search work on when it plays `game`, and how a state of `game` becomes one of it. */
export interface ModelPlay {
  readonly game: Game<unknown>;
  readonly project: (state: unknown) => unknown;
}

/**
 * How `model` plays `game`: on `game` itself, or, for a model trained on parts of it (the plugin's
 * `partModels`, when the model's config is the part's), on the part's game with each state projected.
 */
export function modelPlayFor(plugin: GamePlugin, game: Game<unknown>, model: ModelManifest): ModelPlay {
  const parts = plugin.partModels;
  const settings = parts?.trainedSettings(game.config);
  const trained = model.manifest.gameConfig;
  if (!parts || !settings || !Object.entries(settings).every(([key, value]) => String(trained[key]) === String(value))) return { game, project: (state) => state };
  const partGame = plugin.create(trainedConfigFor(plugin, game.config));
  return { game: partGame, project: (state) => parts.project(state, game, partGame) };
}

/** `agent` (playing `modelPlay.game`) as a player of the whole game: each state projected first. */
function projectedAgent(agent: Agent<unknown>, modelPlay: ModelPlay): Agent<unknown> {
  return { name: agent.name, act: (states) => agent.act(states.map(modelPlay.project)) };
}

/**
 * The search an agent plays with: the user's choices (`settings`) over the game's play hints over the
 * defaults, checked once; a choice that cannot apply is a usage error naming the flags.
 */
export function agentSearchSettings(plugin: GamePlugin, settings: AgentSettings): SearchSettings {
  try {
    return resolveSearchSettings(playSearchHints(plugin), { ...settings.search, tree: { ...settings.search?.tree, simulations: settings.simulations, seed: settings.seed } });
  } catch (err) {
    if (err instanceof SearchSettingsError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * A search player: plain batched MCTS for perfect information, determinized MCTS (several sampled
 * worlds per move, searched together) or information-set MCTS for imperfect information.
 */
function searchAgent<S>(name: string, game: Game<S>, leaves: SearchLeaves<S>, search: SearchSettings, settings: AgentSettings): Agent<S> {
  const engine = createSearchEngine(game, leaves, settings.batchTrees ?? AGENT_SEARCH_TREES, search);
  return new MctsAgent(name, engine, game.masker.actionSize, 0, settings.seed);
}

/** Worlds a `rollout:` agent samples per decision (each legal action played out in every one). */
export const ROLLOUT_WORLDS = 64;

/**
 * `rollout:<model path>`: every decision by `PolicyRolloutAgent` (each legal action played out in the
 * same sampled worlds, every seat then playing the network's top move from its own view), the worlds
 * weighed by the other seats' decisions when the game plays with inferred worlds.
 */
function rolloutAgent<S>(path: string, game: Game<S>, evaluator: NetworkEvaluator<S>, search: SearchSettings, settings: AgentSettings): Agent<S> {
  if (!game.determinizer) throw new UsageError(`agent '${ROLLOUT_PREFIX}${path}': ${game.traits.id} has no hidden information to sample worlds of (rollout agents are for hidden-information games); use the model's path`);
  const weigher = search.hidden.worldSampling === 'inferred' && game.pastDecisions ? new PolicyWorldWeigher(game, evaluator.model) : undefined;
  return new PolicyRolloutAgent(`rollout of ${path}`, game, evaluator, { worlds: ROLLOUT_WORLDS, weigher, seed: settings.seed });
}

/** `policy:<model path>`: the network's top legal move, no search. */
export const POLICY_PREFIX = 'policy:';

/** `rollout:<model path>`: hidden-information games, each decision by rollouts of the network's policy over sampled worlds. */
export const ROLLOUT_PREFIX = 'rollout:';

/** The model path an agent spec names (`policy:<path>` and `rollout:<path>` name `<path>`); other specs are returned as they are. */
export function modelPathOf(spec: string): string {
  for (const prefix of [POLICY_PREFIX, ROLLOUT_PREFIX]) if (spec.startsWith(prefix)) return spec.slice(prefix.length);
  return spec;
}

/**
 * The bot `name` of the game's table, if the game offers one by that name. Every lookup of a bot by a
 * user's name goes through here: `plugin.bots[name]` would also find `constructor` or `__proto__`,
 * which every object inherits, and call it as a bot.
 */
export function gameBot(plugin: GamePlugin, name: string): BotFactory<unknown> | undefined {
  return ownValue(plugin.bots ?? {}, name);
}

/** Whether `name` is an agent every game has (`random`, `mcts`) or one of the game's bots. */
export function isNamedAgent(plugin: GamePlugin, name: string): boolean {
  return name === 'random' || name === 'mcts' || gameBot(plugin, name) !== undefined;
}

/** Names of the agents a game accepts besides model paths (and, for chess, `uci:<command>[,...]`). */
export function agentNames(plugin: GamePlugin): string[] {
  return ['random', 'mcts', ...Object.keys(plugin.bots ?? {})];
}

/** Whether `spec` names an external UCI engine (`uci:stockfish,depth=1`). */
export function isUciSpec(spec: string): boolean {
  return spec.startsWith('uci:');
}

/** Ends what agents hold outside this process (UCI engines); safe to call for any agent. */
export async function closeAgent(agent: Agent<unknown>): Promise<void> {
  if (agent instanceof UciAgent) await agent.close();
}

/** Starts a UCI engine agent for chess; a command that does not start or speak UCI, or an option the engine lacks, is a clear error. */
async function uciAgent(spec: string, plugin: GamePlugin): Promise<Agent<unknown>> {
  if (plugin.traits.id !== 'chess') throw new UsageError(`agent '${spec}': UCI engines play chess only, not ${plugin.traits.id}`);
  let agent: UciAgent;
  try {
    agent = new UciAgent(parseUciAgentSpec(spec.slice('uci:'.length)));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  try {
    await agent.start();
  } catch (err) {
    // An option the engine does not have is a mistake in the spec, like a malformed one (exit 2).
    if (err instanceof UciEngineError && err.failure === 'option') throw new UsageError(`agent '${spec}': ${err.message}`);
    if (err instanceof UciEngineError) throw new Error(`agent '${spec}': ${err.message}`);
    throw err;
  }
  return agent as unknown as Agent<unknown>;
}

export async function makeAgent(spec: string, plugin: GamePlugin, game: Game<unknown>, settings: AgentSettings, models: Map<string, LoadedModel>): Promise<Agent<unknown>> {
  const search = agentSearchSettings(plugin, settings);
  if (spec === 'random') return new RandomAgent(game, settings.seed);
  if (isUciSpec(spec)) return uciAgent(spec, plugin);
  // No network: uniform priors and one random playout per leaf (determinized for hidden-information games).
  // The other seats moving by a network's policy is for model agents: mcts has no network.
  if (spec === 'mcts') {
    const networkFree: SearchSettings = { ...search, hidden: { ...search.hidden, otherSeatMoves: DEFAULT_OTHER_SEAT_MOVES } };
    return searchAgent('mcts', game, { evaluator: new RolloutEvaluator(game, settings.seed) }, networkFree, settings);
  }
  const bot = gameBot(plugin, spec);
  if (bot) {
    const agent = bot(game, settings.seed);
    return { name: spec, act: (states) => agent.act(states) };
  }
  const policyOnly = spec.startsWith(POLICY_PREFIX);
  const rollout = spec.startsWith(ROLLOUT_PREFIX);
  const path = modelPathOf(spec);
  if (existsSync(path)) {
    let model = models.get(path);
    if (!model) {
      model = await loadModel(plugin, path, settings.network);
      models.set(path, model);
    }
    const modelPlay = modelPlayFor(plugin, game, model);
    const agent = policyOnly
      ? new PolicyAgent(`policy of ${path}`, modelPlay.game, model.evaluator)
      : rollout
        ? rolloutAgent(path, modelPlay.game, model.evaluator, search, settings)
        : searchAgent(`model ${path}`, modelPlay.game, { evaluator: model.evaluator, network: model.evaluator }, search, settings);
    return modelPlay.game === game ? agent : projectedAgent(agent, modelPlay);
  }
  if (policyOnly || rollout) throw new UsageError(`agent '${spec}': no model at ${path} (${policyOnly ? POLICY_PREFIX : ROLLOUT_PREFIX}<path of a trained model>)`);
  const uci = plugin.traits.id === 'chess' ? ', uci:<engine command>[,depth=N|nodes=N|movetime=MS][,UCI option=value...]' : '';
  throw new UsageError(`unknown agent '${spec}': use ${agentNames(plugin).join(', ')}${uci}, the path of a trained model, policy:<model path> or rollout:<model path> (no such file or directory)`);
}

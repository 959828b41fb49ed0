/**
 * Turning a command-line agent name into a player: `random`, `mcts` (search with random rollouts,
 * no network), a bot the game offers (`minimax`, `greedy`, `heuristic`, ...), or a path to a trained
 * model (a run directory or a checkpoint directory).
 */
import { existsSync } from 'node:fs';
import {
  RandomAgent,
  TfjsInferenceModel,
  loadCheckpoint,
  resolveGameConfig,
  type Agent,
  type CheckpointManifest,
  type Game,
  type GamePlugin,
  type ResolvedConfig,
} from '@az/core';
import { MctsAgent, NetworkEvaluator, RolloutEvaluator, type Evaluator } from '@az/mcts';
import { createSearchEngine, findCheckpointDir } from '@az/trainer-multigpu';
import { UsageError } from './args.js';

export interface AgentSettings {
  readonly simulations: number;
  readonly seed: number;
  /** Trees searched per evaluator call. */
  readonly batchTrees?: number;
}

export interface LoadedModel {
  readonly manifest: CheckpointManifest;
  readonly evaluator: NetworkEvaluator<unknown>;
  readonly dir: string;
  dispose(): void;
}

/** Loads a trained model for `plugin`; the checkpoint's game config is what the network was trained for. */
export async function loadModel(plugin: GamePlugin, path: string): Promise<LoadedModel> {
  const dir = findCheckpointDir(path);
  const { model, manifest } = await loadCheckpoint(dir, { gameId: plugin.traits.id });
  const inference = new TfjsInferenceModel(model, manifest.network);
  return { manifest, evaluator: new NetworkEvaluator(inference), dir, dispose: () => inference.dispose() };
}

/**
 * The game to play: with a model, the config it was trained with (any user setting must agree);
 * without, the user's settings.
 */
export function gameFor(plugin: GamePlugin, rawConfig: Readonly<Record<string, unknown>>, model?: LoadedModel): Game<unknown> {
  if (!model) return plugin.create(resolveGameConfig(plugin, rawConfig));
  const trained: ResolvedConfig = model.manifest.gameConfig;
  const asked = resolveGameConfig(plugin, { ...trained, ...rawConfig });
  for (const key of Object.keys(rawConfig)) {
    if (String(asked[key]) !== String(trained[key])) {
      throw new UsageError(`the model at ${model.dir} was trained with ${key}=${String(trained[key])}; it cannot play ${key}=${String(asked[key])}`);
    }
  }
  const game = plugin.create(asked);
  if (game.encoder.version !== model.manifest.encoderVersion) {
    throw new UsageError(`the model at ${model.dir} was trained with encoder ${model.manifest.encoderVersion}, but this version of ${plugin.traits.id} encodes as ${game.encoder.version}; retrain it`);
  }
  return game;
}

export function searchAgent<S>(name: string, game: Game<S>, evaluator: Evaluator<S>, settings: AgentSettings): Agent<S> {
  const engine = createSearchEngine(game, evaluator, settings.batchTrees ?? 64, {
    simulations: settings.simulations,
    dirichletEpsilon: 0,
    nodeCapacity: Math.max(256, settings.simulations * 64),
    seed: settings.seed,
  });
  return new MctsAgent(name, engine, game.masker.actionSize, 0, settings.seed);
}

/** Names of the agents a game accepts besides model paths. */
export function agentNames(plugin: GamePlugin): string[] {
  return ['random', 'mcts', ...Object.keys(plugin.bots ?? {})];
}

export async function makeAgent(spec: string, plugin: GamePlugin, game: Game<unknown>, settings: AgentSettings, models: Map<string, LoadedModel>): Promise<Agent<unknown>> {
  if (spec === 'random') return new RandomAgent(game, settings.seed);
  if (spec === 'mcts') return searchAgent('mcts', game, new RolloutEvaluator(game, settings.seed), settings);
  const bot = plugin.bots?.[spec];
  if (bot) {
    const agent = bot(game, settings.seed);
    return { name: spec, act: (states) => agent.act(states) };
  }
  if (existsSync(spec)) {
    let model = models.get(spec);
    if (!model) {
      model = await loadModel(plugin, spec);
      models.set(spec, model);
    }
    return searchAgent(`model ${spec}`, game, model.evaluator, settings);
  }
  throw new UsageError(`unknown agent '${spec}': use ${agentNames(plugin).join(', ')}, or the path of a trained model (no such file or directory)`);
}

import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { validateConfig, type ResolvedConfig } from './config.js';
import type { Game } from './game.js';
import { GAME_CONTRACT_VERSION, type GamePlugin } from './plugin.js';

/** DI token under which every game plugin is registered. */
export const GAME_PLUGIN_TOKEN = Symbol.for('az:game-plugin');

/** A plugin that cannot be registered (bad contract version, duplicate id, malformed traits). */
export class PluginError extends Error {
  /**
   * @param pluginId The id of the plugin refused, so a caller loading many can say which one failed.
   * @param message What is wrong, and how to fix it.
   */
  constructor(
    readonly pluginId: string,
    message: string,
  ) {
    super(message);
    this.name = 'PluginError';
  }
}

const ID_PATTERN = /^[a-z][a-z0-9-]*$/;

/** Throws a PluginError unless `version` is the contract this core implements. */
export function checkContractVersion(id: string, version: unknown): void {
  if (version === undefined || version === null) {
    throw new PluginError(
      id,
      `game plugin '${id}' does not state the game contract version it was built for (contractVersion); this @az/core implements version ${GAME_CONTRACT_VERSION}`,
    );
  }
  if (version !== GAME_CONTRACT_VERSION) {
    throw new PluginError(
      id,
      `game plugin '${id}' was built for game contract version ${String(version)}, but this @az/core implements version ${GAME_CONTRACT_VERSION}; rebuild it against a matching @az/core`,
    );
  }
}

/**
 * Games registered by id, held in a tsyringe container so plugins, the CLI and tests share one
 * mechanism. Tests use their own child container; the CLI uses the root one.
 */
export class GameRegistry {
  /**
   * @param container The tsyringe container the plugins are registered in (default: the root container).
   * @param ownGamesOnly Lists only the games registered in this container, not those of the containers above it.
   */
  constructor(
    readonly container: DependencyContainer = rootContainer,
    /** Lists only the games registered in this container, not those of the containers above it. */
    private readonly ownGamesOnly = false,
  ) {}

  /**
   * A registry that holds only the games registered in it, whatever the default registry holds: a test
   * registers a plugin without building a container.
   */
  static isolated(): GameRegistry {
    return new GameRegistry(rootContainer.createChildContainer(), true);
  }

  /** Adds a game; throws a PluginError for an invalid id, a contract version mismatch, bad seat counts or a duplicate id. */
  register<S>(plugin: GamePlugin<S>): void {
    const id = plugin?.traits?.id;
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      throw new PluginError(String(id), `game plugin id ${JSON.stringify(id)} is not valid: use lowercase letters, digits and dashes`);
    }
    checkContractVersion(id, plugin.contractVersion);
    const t = plugin.traits;
    if (!(t.minPlayers >= 1 && t.maxPlayers >= t.minPlayers)) {
      throw new PluginError(id, `game plugin '${id}': players must satisfy 1 <= minPlayers <= maxPlayers`);
    }
    if (this.has(id)) throw new PluginError(id, `a game with id '${id}' is already registered`);
    this.container.register(GAME_PLUGIN_TOKEN, { useValue: plugin });
  }

  /** Whether a game with this id is registered. */
  has(id: string): boolean {
    return this.list().some((p) => p.traits.id === id);
  }

  /** The registered games. */
  list(): GamePlugin[] {
    if (!this.container.isRegistered(GAME_PLUGIN_TOKEN, !this.ownGamesOnly)) return [];
    return this.container.resolveAll<GamePlugin>(GAME_PLUGIN_TOKEN);
  }

  /** The game with this id; throws a PluginError naming the registered ids when there is none. */
  resolve(id: string): GamePlugin {
    const found = this.list().find((p) => p.traits.id === id);
    if (!found) {
      const known = this.list().map((p) => p.traits.id);
      throw new PluginError(id, `unknown game '${id}'` + (known.length ? ` (registered: ${known.join(', ')})` : ' (no games are registered)'));
    }
    return found;
  }

  /** Validates `rawConfig` with the game's schema and creates the game. */
  create(id: string, rawConfig: Readonly<Record<string, unknown>> = {}): Game<unknown> {
    const plugin = this.resolve(id);
    return plugin.create(resolveGameConfig(plugin, rawConfig));
  }
}

/** Schema validation followed by the plugin's own cross-field checks. */
export function resolveGameConfig(plugin: GamePlugin, rawConfig: Readonly<Record<string, unknown>> = {}): ResolvedConfig {
  const context = `game '${plugin.traits.id}' config`;
  const config = validateConfig(plugin.configSchema, rawConfig, context);
  return plugin.finalizeConfig ? plugin.finalizeConfig(config) : config;
}

/** The registry on tsyringe's root container: where built-in games and loaded plugins register, and what the CLI reads. */
export const defaultRegistry = new GameRegistry();

/** {@link GameRegistry.register} on `registry` (default: {@link defaultRegistry}). */
export function registerGame<S>(plugin: GamePlugin<S>, registry: GameRegistry = defaultRegistry): void {
  registry.register(plugin);
}

/** {@link GameRegistry.resolve} on `registry` (default: {@link defaultRegistry}). */
export function resolveGame(id: string, registry: GameRegistry = defaultRegistry): GamePlugin {
  return registry.resolve(id);
}

/** {@link GameRegistry.list} on `registry` (default: {@link defaultRegistry}). */
export function listGames(registry: GameRegistry = defaultRegistry): GamePlugin[] {
  return registry.list();
}

/** {@link GameRegistry.create} on `registry` (default: {@link defaultRegistry}): validates the config and creates the game. */
export function createGame(id: string, rawConfig: Readonly<Record<string, unknown>> = {}, registry: GameRegistry = defaultRegistry): Game<unknown> {
  return registry.create(id, rawConfig);
}

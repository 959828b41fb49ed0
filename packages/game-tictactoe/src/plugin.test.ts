import { ConfigError, GAME_CONTRACT_VERSION, GameRegistry, PluginError, Rng, defaultRegistry } from '@az/core';
import { describe, expect, it } from 'vitest';
import { MinimaxAgent, registerTicTacToe, ticTacToePlugin, type TicTacToeState } from './index.js';

/** A registry on its own child container, so tests never touch the process-wide one. */
function freshRegistry(): GameRegistry {
  return new GameRegistry(defaultRegistry.container.createChildContainer());
}

describe('tictactoe plugin', () => {
  it('states the contract version, bots and training hints', () => {
    expect(ticTacToePlugin.contractVersion).toBe(GAME_CONTRACT_VERSION);
    expect(Object.keys(ticTacToePlugin.bots ?? {})).toEqual(['minimax']);
    // The flat [27] encoding needs a dense network; self-play samples every move (temperature for the
    // whole game) so it reaches the odd positions the oracle assessment covers.
    expect(ticTacToePlugin.training?.network?.kind).toBe('mlp');
    expect(ticTacToePlugin.training?.temperatureMoves).toBeGreaterThanOrEqual(ticTacToePlugin.traits.maxGameLength);
  });

  it('registers in a fresh registry and creates a game from an empty config', () => {
    const registry = freshRegistry();
    registerTicTacToe(registry);
    expect(registry.has('tictactoe')).toBe(true);
    expect(registry.resolve('tictactoe')).toBe(ticTacToePlugin);
    const game = registry.create('tictactoe', {});
    expect(game.traits.id).toBe('tictactoe');
    expect(game.config).toEqual({});
    const s = game.initialState(new Rng(0));
    expect(game.isTerminal(s)).toBe(false);
    // registering the same plugin twice is a no-op; the registry still refuses duplicates of the id
    registerTicTacToe(registry);
    expect(registry.list().length).toBe(1);
    expect(() => registry.register({ ...ticTacToePlugin })).toThrow(PluginError);
    // the fresh registry did not leak into the default one
    expect(freshRegistry().has('tictactoe')).toBe(false);
  });

  it('rejects an unknown config field', () => {
    const registry = freshRegistry();
    registerTicTacToe(registry);
    expect(() => registry.create('tictactoe', { size: 4 })).toThrow(ConfigError);
    expect(() => registry.create('tictactoe', { size: 4 })).toThrow(/unknown field 'size' \(it takes no fields\)/);
  });

  it('makes its minimax bot through the factory', async () => {
    const game = ticTacToePlugin.create({});
    const bot = ticTacToePlugin.bots!.minimax(game, 5);
    expect(bot).toBeInstanceOf(MinimaxAgent);
    expect(bot.name).toBe('minimax');
    const s: TicTacToeState = game.initialState(new Rng(0));
    game.applyAction(s, 0, new Rng(0));
    game.applyAction(s, 1, new Rng(0));
    const [a] = await bot.act([s]);
    expect([3, 4, 6]).toContain(a);
  });
});

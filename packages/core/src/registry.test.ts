import { describe, expect, it } from 'vitest';
import { GAME_CONTRACT_VERSION, type GamePlugin } from './plugin.js';
import { GameRegistry, PluginError, defaultRegistry } from './registry.js';

function plugin(id: string): GamePlugin {
  return {
    contractVersion: GAME_CONTRACT_VERSION,
    traits: { id, name: id, description: '', minPlayers: 2, maxPlayers: 2, information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: 1 },
    configSchema: {},
    create: () => {
      throw new Error('not used');
    },
  };
}

describe('GameRegistry.isolated', () => {
  it('holds only the games registered in it, whatever the default registry holds, and changes no other', () => {
    defaultRegistry.register(plugin('registry-test-default'));
    const a = GameRegistry.isolated();
    expect(a.list()).toEqual([]);
    expect(a.has('registry-test-default')).toBe(false);
    a.register(plugin('registry-test-own'));
    expect(a.list().map((p) => p.traits.id)).toEqual(['registry-test-own']);
    expect(GameRegistry.isolated().has('registry-test-own')).toBe(false);
    expect(defaultRegistry.has('registry-test-own')).toBe(false);
    expect(() => a.register(plugin('registry-test-own'))).toThrow(PluginError);
  });
});

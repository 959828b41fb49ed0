import { describe, expect, it } from 'vitest';
import { GameRegistry, Rng, createGame, type GamePlugin, type TrainingHints } from '@az/core';
import { blobPlugin } from '@az/game-blob';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { RolloutEvaluator } from '@az/mcts';
import { searchEngineFor, withGameDefaults } from './agents.js';

const base = { simulations: 100, seed: 0 };
const withHints = (training: TrainingHints): GamePlugin => ({ ...blobPlugin, training } as unknown as GamePlugin);

describe('withGameDefaults', () => {
  it('plays with the game’s playLeafValues, else its training leafValues, and a flag beats both', () => {
    expect(withGameDefaults(withHints({ leafValues: 'world', playLeafValues: 'playouts' }), base).leafValues).toBe('playouts');
    expect(withGameDefaults(withHints({ leafValues: 'world' }), base).leafValues).toBe('world');
    expect(withGameDefaults(withHints({}), base).leafValues).toBeUndefined();
    expect(withGameDefaults(withHints({ leafValues: 'world', playLeafValues: 'playouts' }), { ...base, leafValues: 'world' }).leafValues).toBe('world');
  });

  it('mixes in the game’s playPlayoutWeight only with the game’s play leaf values, and a flag beats it', () => {
    const mixed = withHints({ leafValues: 'world', playLeafValues: 'world', playPlayoutWeight: 0.5 });
    expect(withGameDefaults(mixed, base).playoutWeight).toBe(0.5);
    expect(withGameDefaults(mixed, { ...base, leafValues: 'world' }).playoutWeight).toBe(0.5);
    expect(withGameDefaults(mixed, { ...base, playoutWeight: 0.25 }).playoutWeight).toBe(0.25);
    // Other leaf values keep their own default (1 with playouts; none with policy playouts).
    expect(withGameDefaults(mixed, { ...base, leafValues: 'playouts' }).playoutWeight).toBeUndefined();
    expect(withGameDefaults(mixed, { ...base, leafValues: 'policy-playouts' }).playoutWeight).toBeUndefined();
    expect(withGameDefaults(withHints({ leafValues: 'world' }), base).playoutWeight).toBeUndefined();
    // A game that names no leaf values plays playouts: its share applies there, asked for by name or not.
    const playoutsOnly = withHints({ playPlayoutWeight: 0.75 });
    expect(withGameDefaults(playoutsOnly, base).playoutWeight).toBe(0.75);
    expect(withGameDefaults(playoutsOnly, { ...base, leafValues: 'playouts' }).playoutWeight).toBe(0.75);
    expect(withGameDefaults(playoutsOnly, { ...base, leafValues: 'world' }).playoutWeight).toBeUndefined();
  });

  it('searches with the game’s playSearchMethod unless a flag says otherwise', () => {
    expect(withGameDefaults(withHints({ playSearchMethod: 'information-set' }), base).searchMethod).toBe('information-set');
    expect(withGameDefaults(withHints({}), base).searchMethod).toBeUndefined();
    expect(withGameDefaults(withHints({ playSearchMethod: 'information-set' }), { ...base, searchMethod: 'determinized' }).searchMethod).toBe('determinized');
    expect(withGameDefaults(withHints({ playWorldSampling: 'inferred' }), base).worldSampling).toBe('inferred');
    expect(withGameDefaults(withHints({ playWorldSampling: 'inferred' }), { ...base, worldSampling: 'uniform' }).worldSampling).toBe('uniform');
  });
});

describe('searchEngineFor: --cpuct', () => {
  const registry = new GameRegistry();
  registry.register(ticTacToePlugin as unknown as GamePlugin);
  registry.register(blobPlugin as unknown as GamePlugin);

  // Root visit counts after one search from the opening position, for a given exploration constant.
  async function rootVisits(id: 'tictactoe' | 'blob', cPuct: number | undefined): Promise<number[]> {
    const game = createGame(id, id === 'blob' ? { rounds: 'one', roundCards: 5 } : {}, registry);
    const settings = { simulations: 60, seed: 3, ...(id === 'blob' ? { searchMethod: 'information-set' as const, determinizations: 2 } : {}), ...(cPuct !== undefined ? { cPuct } : {}) };
    const engine = searchEngineFor(game, new RolloutEvaluator(game, 7), settings);
    engine.setRoot(0, game.initialState(new Rng(5)));
    await engine.search();
    return [...engine.visitCounts(0, new Float32Array(game.masker.actionSize))];
  }

  for (const id of ['tictactoe', 'blob'] as const) {
    it(`reaches ${id}'s search: the default is 1.5, and another constant spreads the visits differently`, async () => {
      const byDefault = await rootVisits(id, undefined);
      expect(await rootVisits(id, 1.5)).toEqual(byDefault);
      const greedy = await rootVisits(id, 0.05);
      const wide = await rootVisits(id, 20);
      // A near-greedy search piles its visits on fewer moves than a wide one.
      const top = (v: number[]): number => Math.max(...v);
      expect(top(greedy)).toBeGreaterThan(top(wide));
    });
  }
});

import { describe, expect, it } from 'vitest';
import { GameRegistry, Rng, createGame, type GamePlugin, type TrainingHints } from '@az/core';
import { blobPlugin } from '@az/game-blob';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { createSearchEngine, type HiddenInformationSearch, type SearchChoices } from '@az/imperfect-info';
import { AGENT_SEARCH_TREES, RolloutEvaluator, nodeCapacityFor, playSearchConfig } from '@az/mcts';
import { agentSearchSettings } from './agents.js';
import { UsageError } from './args.js';

const base = { simulations: 100, seed: 0 };
const withHints = (training: TrainingHints): GamePlugin => ({ ...blobPlugin, training } as unknown as GamePlugin);

describe('agentSearchSettings', () => {
  it('plays with the game’s play hints (playLeafValues, else leafValues; its playout share with them), and a flag beats them', () => {
    const hidden = (training: TrainingHints, search: SearchChoices = {}): HiddenInformationSearch => agentSearchSettings(withHints(training), { ...base, search }).hidden;
    expect(hidden({ leafValues: 'world', playLeafValues: 'playouts' }).leafValues.kind).toBe('playouts');
    expect(hidden({ leafValues: 'world' }).leafValues.kind).toBe('world');
    expect(hidden({ leafValues: 'world', playLeafValues: 'playouts' }, { leafValues: 'world' }).leafValues.kind).toBe('world');
    const mixed: TrainingHints = { leafValues: 'world', playLeafValues: 'world', playPlayoutWeight: 0.5 };
    expect(hidden(mixed).leafValues).toMatchObject({ kind: 'world', playoutWeight: 0.5 });
    expect(hidden(mixed, { leafValues: 'playouts' }).leafValues).toEqual({ kind: 'playouts', playoutWeight: 1 });
    expect(hidden({ playSearchMethod: 'information-set' }).method).toBe('information-set');
    expect(hidden({ playSearchMethod: 'information-set' }, { method: 'determinized' }).method).toBe('determinized');
    expect(hidden({ playWorldSampling: 'inferred' }, { worldSampling: 'uniform' }).worldSampling).toBe('uniform');
  });

  it('searches with the simulations and seed asked for, the game’s value scale, and the one node-capacity rule', () => {
    const tree = agentSearchSettings(withHints({ playValueScale: 0.9 }), { simulations: 800, seed: 4 }).tree;
    expect(tree).toMatchObject({ simulations: 800, seed: 4, networkValueScale: 0.9, nodeCapacity: nodeCapacityFor(800), ...playSearchConfig });
  });

  it('turns a choice the search cannot use into a usage error with the message of the check', () => {
    expect(() => agentSearchSettings(withHints({}), { ...base, search: { worldSampling: 'inferred' } })).toThrow(UsageError);
    expect(() => agentSearchSettings(withHints({}), { ...base, search: { worldSampling: 'inferred' } })).toThrow('--worlds inferred needs information-set search (blob plays determinized here; add --search information-set)');
  });
});

describe('agent search: --cpuct', () => {
  const registry = new GameRegistry();
  registry.register(ticTacToePlugin as unknown as GamePlugin);
  registry.register(blobPlugin as unknown as GamePlugin);

  // Root visit counts after one search from the opening position, for a given exploration constant.
  async function rootVisits(id: 'tictactoe' | 'blob', cPuct: number | undefined): Promise<number[]> {
    const game = createGame(id, id === 'blob' ? { rounds: 'one', roundCards: 5 } : {}, registry);
    const search: SearchChoices = { tree: { cPuct }, ...(id === 'blob' ? { method: 'information-set', determinizations: 2 } : {}) };
    const plugin = id === 'blob' ? blobPlugin : ticTacToePlugin;
    const engine = createSearchEngine(game, { evaluator: new RolloutEvaluator(game, 7) }, AGENT_SEARCH_TREES, agentSearchSettings(plugin as unknown as GamePlugin, { simulations: 60, seed: 3, search }));
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

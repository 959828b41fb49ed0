import { describe, expect, it } from 'vitest';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { blobPlugin } from '@az/game-blob';
import { UniformEvaluator, BatchedMcts, defaultPlaySimulations, type SearchConfig } from '@az/mcts';
import { createSearchEngine, InformationSetMcts, resolveSearchSettings, type HiddenInformationSearch } from '@az/imperfect-info';
import type { GamePlugin } from '@az/core';
import { learningRateAt, networkFrom, resolveTrainOptions, selfPlaySettings } from './options.js';
import { createSelfPlayEngine, evaluationSearchSettings, selfPlaySearchSettings } from './search-settings.js';
import type { TrainOptions } from './options.js';

const tictactoe = ticTacToePlugin.create({});
/** The tree search of self-play (`forEvaluation` false) or of the evaluation games. */
const treeOf = (o: TrainOptions, forEvaluation: boolean): SearchConfig => (forEvaluation ? evaluationSearchSettings : selfPlaySearchSettings)(tictactoe, o, 1).tree;
/** The hidden-information search of self-play or of the evaluation games. */
const hiddenOf = (o: TrainOptions, forEvaluation: boolean): HiddenInformationSearch => (forEvaluation ? evaluationSearchSettings : selfPlaySearchSettings)(tictactoe, o, 1).hidden;

describe('resolveTrainOptions: determinizations and the game’s training config', () => {
  const withHints = (training: GamePlugin['training']): GamePlugin => ({ ...(ticTacToePlugin as GamePlugin), training });

  it('takes determinizations from the user, else the game’s hint, else 3', () => {
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({})).determinizations).toBe(3);
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({ determinizations: 5 })).determinizations).toBe(5);
    expect(resolveTrainOptions({ game: 'tictactoe', determinizations: 2 }, withHints({ determinizations: 5 })).determinizations).toBe(2);
    expect(() => resolveTrainOptions({ game: 'tictactoe', determinizations: 0 }, withHints({}))).toThrow(/determinizations/);
  });

  it('takes a resnet tower from the user and keeps the game’s head settings; another kind replaces the spec', () => {
    const game = { kind: 'resnet', filters: 16, blocks: 2, valueHead: 'pool', valueFilters: 32 } as const;
    const hints = withHints({ network: game });
    expect(resolveTrainOptions({ game: 'tictactoe' }, hints).network).toEqual(game);
    expect(resolveTrainOptions({ game: 'tictactoe', network: { kind: 'resnet', filters: 24, blocks: 3 } }, hints).network)
      .toEqual({ kind: 'resnet', filters: 24, blocks: 3, valueHead: 'pool', valueFilters: 32 });
    expect(resolveTrainOptions({ game: 'tictactoe', network: { kind: 'mlp', hidden: [64] } }, hints).network).toEqual({ kind: 'mlp', hidden: [64] });
    expect(networkFrom(undefined, undefined)).toEqual({ kind: 'mlp', hidden: [128, 128] });
  });

  it('turns the learning techniques on from the user or the game’s hints, off by default, and checks their ranges', () => {
    const off = resolveTrainOptions({ game: 'tictactoe' }, withHints({ simulations: 64 }));
    expect([off.selfPlaySolve, off.rootValueWeight, off.fullSearchShare, off.evalCacheSize, off.childValueWorlds]).toEqual([false, 0, 1, 0, 0]);
    expect(off.reducedSimulations).toBe(8);
    expect(treeOf(off, false).solve).toBe(false);
    expect(selfPlaySettings(off, 'perfect').playoutCap).toBeUndefined();
    const on = resolveTrainOptions({ game: 'tictactoe', rootValueWeight: 0.5, fullSearchShare: 0.25, reducedSimulations: 16, evalCacheSize: 1000 }, withHints({ simulations: 64, selfPlaySolve: true }));
    expect(treeOf(on, false).solve).toBe(true);
    expect(selfPlaySettings(on, 'perfect')).toMatchObject({ rootValueWeight: 0.5, playoutCap: { fullShare: 0.25, fullSimulations: 64, reducedSimulations: 16 } });
    expect(on.evalCacheSize).toBe(1000);
    expect(selfPlaySettings(resolveTrainOptions({ game: 'tictactoe' }, withHints({ childValueWorlds: 2 })), 'perfect').childValueWorlds).toBe(2);
    expect(() => resolveTrainOptions({ game: 'tictactoe', childValueWorlds: 1.5 }, withHints({}))).toThrow(/childValueWorlds/);
    const hidden = { ...withHints({ leafValues: 'world' }), traits: { ...withHints({}).traits, information: 'imperfect' as const } };
    expect(resolveTrainOptions({ game: 'tictactoe', childValueWorlds: 1 }, hidden).childValueWorlds).toBe(1);
    expect(() => resolveTrainOptions({ game: 'tictactoe', childValueWorlds: 1, leafValues: 'playouts' }, hidden)).toThrow(/--leaf-values world/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', childValueWorlds: 1, selfPlaySearchMethod: 'information-set' }, hidden)).toThrow(/determinized self-play/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', rootValueWeight: 1.5 }, withHints({}))).toThrow(/rootValueWeight/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', fullSearchShare: 0 }, withHints({}))).toThrow(/fullSearchShare/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', fullSearchShare: 0.5, reducedSimulations: 100, simulations: 64 }, withHints({}))).toThrow(/reducedSimulations/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', evalCacheSize: -1 }, withHints({}))).toThrow(/evalCacheSize/);
  });

  it('keeps the learning rate constant by default; cosine falls from --lr to --lr-final (default a tenth) at the last iteration', () => {
    const constant = resolveTrainOptions({ game: 'tictactoe', iterations: 10, learningRate: 2e-3 }, withHints({}));
    expect(constant.learningRateSchedule).toBe('constant');
    expect([1, 5, 10].map((i) => learningRateAt(constant, i))).toEqual([2e-3, 2e-3, 2e-3]);
    const cosine = resolveTrainOptions({ game: 'tictactoe', iterations: 11, learningRate: 2e-3 }, withHints({ learningRateSchedule: 'cosine' }));
    expect(cosine.finalLearningRate).toBeCloseTo(2e-4, 12);
    expect(learningRateAt(cosine, 1)).toBeCloseTo(2e-3, 12);
    // Halfway (iteration 6 of 11) the cosine is at the mean of the two ends; it falls at every step.
    expect(learningRateAt(cosine, 6)).toBeCloseTo(1.1e-3, 12);
    expect(learningRateAt(cosine, 11)).toBeCloseTo(2e-4, 12);
    const rates = Array.from({ length: 11 }, (_, i) => learningRateAt(cosine, i + 1));
    for (let i = 1; i < rates.length; i++) expect(rates[i]).toBeLessThan(rates[i - 1]);
    // Past the last iteration (a resumed run given fewer iterations cannot get here, but stay put).
    expect(learningRateAt(cosine, 20)).toBeCloseTo(2e-4, 12);
    const user = resolveTrainOptions({ game: 'tictactoe', learningRateSchedule: 'constant', finalLearningRate: 1e-5 }, withHints({ learningRateSchedule: 'cosine' }));
    expect([user.learningRateSchedule, user.finalLearningRate]).toEqual(['constant', 1e-5]);
    expect(() => resolveTrainOptions({ game: 'tictactoe', learningRate: 1e-3, finalLearningRate: 1e-2 }, withHints({}))).toThrow(/--lr-final/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', learningRateSchedule: 'step' as 'cosine' }, withHints({}))).toThrow(/--lr-schedule/);
  });

  it('passes Gumbel root search and forced playouts to the self-play search only, and refuses bad values', () => {
    const off = resolveTrainOptions({ game: 'tictactoe' }, withHints({}));
    expect(treeOf(off, false)).toMatchObject({ rootSelection: 'puct', forcedPlayouts: 0 });
    const gumbel = resolveTrainOptions({ game: 'tictactoe', gumbelConsideredActions: 4, gumbelCScale: 0.1 }, withHints({ rootSelection: 'gumbel' }));
    expect(treeOf(gumbel, false)).toMatchObject({ rootSelection: 'gumbel', gumbelConsideredActions: 4, gumbelCVisit: 50, gumbelCScale: 0.1 });
    // Evaluation plays as az play does: PUCT.
    expect(treeOf(gumbel, true).rootSelection).toBe('puct');
    const forced = resolveTrainOptions({ game: 'tictactoe', forcedPlayouts: 2 }, withHints({}));
    expect(treeOf(forced, false).forcedPlayouts).toBe(2);
    expect(() => resolveTrainOptions({ game: 'tictactoe', rootSelection: 'best' as 'puct' }, withHints({}))).toThrow(/rootSelection/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', gumbelConsideredActions: 0 }, withHints({}))).toThrow(/gumbelConsideredActions/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', gumbelCScale: 0 }, withHints({}))).toThrow(/gumbelCScale/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', forcedPlayouts: -1 }, withHints({}))).toThrow(/forcedPlayouts/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', forcedPlayouts: 2, rootSelection: 'gumbel' }, withHints({}))).toThrow(/forcedPlayouts/);
  });

  it('merges the user’s game settings over the game’s training settings', () => {
    const plugin = withHints({ gameConfig: { rounds: 'one', roundCards: 5 } });
    expect(resolveTrainOptions({ game: 'tictactoe' }, plugin).gameConfig).toEqual({ rounds: 'one', roundCards: 5 });
    expect(resolveTrainOptions({ game: 'tictactoe', gameConfig: { roundCards: 3, players: 5 } }, plugin).gameConfig).toEqual({ rounds: 'one', roundCards: 3, players: 5 });
  });

  it('takes value shaping from the user, else the game’s hint, else 0, and keeps it in [0, 1)', () => {
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({})).valueShaping).toBe(0);
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({ valueShaping: 0.5 })).valueShaping).toBe(0.5);
    expect(resolveTrainOptions({ game: 'tictactoe', valueShaping: 0 }, withHints({ valueShaping: 0.5 })).valueShaping).toBe(0);
    expect(() => resolveTrainOptions({ game: 'tictactoe', valueShaping: 1 }, withHints({}))).toThrow(/valueShaping must be in \[0, 1\)/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', valueShaping: -0.1 }, withHints({}))).toThrow(/valueShaping/);
  });

  it('plays with the game’s playSimulations, else at least 100 and at least the self-play setting', () => {
    expect(defaultPlaySimulations(withHints({}))).toBe(100);
    expect(defaultPlaySimulations(withHints({ simulations: 300 }))).toBe(300);
    expect(defaultPlaySimulations(withHints({ simulations: 64, playSimulations: 800 }))).toBe(800);
  });

  it('evaluates as play does (proof, the game’s playValueScale) while self-play searches plainly', () => {
    const options = resolveTrainOptions({ game: 'tictactoe' }, withHints({ playValueScale: 0.9 }));
    expect(options.playValueScale).toBe(0.9);
    expect(treeOf(options, true)).toMatchObject({ solve: true, networkValueScale: 0.9, resolveDepth: 2, dirichletEpsilon: 0 });
    expect(treeOf(options, false)).toMatchObject({ solve: false, networkValueScale: 1, resolveDepth: 1 });
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({})).playValueScale).toBe(1);
    expect(() => resolveTrainOptions({ game: 'tictactoe' }, withHints({ playValueScale: 0 }))).toThrow(/playValueScale must be in \(0, 1\]/);
  });

  it('evaluates hidden-information games with the game’s playLeafValues, else with the self-play leaf values', () => {
    const played = resolveTrainOptions({ game: 'tictactoe' }, withHints({ leafValues: 'world', playLeafValues: 'playouts' }));
    expect([played.leafValues, played.playLeafValues]).toEqual(['world', 'playouts']);
    expect(hiddenOf(played, false)).toEqual({ determinizations: played.determinizations, leafValues: { kind: 'world', playoutWeight: 0, priors: 'own-view' }, method: 'determinized', worldSampling: 'uniform', otherSeatPriors: 'uniform', otherSeatMoves: 'search' });
    expect(hiddenOf(played, true)).toEqual({ determinizations: played.determinizations, leafValues: { kind: 'playouts', playoutWeight: 1 }, method: 'determinized', worldSampling: 'uniform', otherSeatPriors: 'uniform', otherSeatMoves: 'search' });
    const policy = resolveTrainOptions({ game: 'tictactoe', playLeafValues: 'policy-playouts' }, withHints({ leafValues: 'world' }));
    expect([hiddenOf(policy, true).leafValues.kind, hiddenOf(policy, false).leafValues.kind]).toEqual(['policy-playouts', 'world']);
    const same = resolveTrainOptions({ game: 'tictactoe', leafValues: 'world' }, withHints({}));
    expect(same.playLeafValues).toBe('world');
    expect(hiddenOf(same, true).leafValues.kind).toBe('world');
    expect(() => resolveTrainOptions({ game: 'tictactoe', playLeafValues: 'rollouts' as never }, withHints({}))).toThrow(/playLeafValues must be 'playouts', 'world' or 'policy-playouts', got rollouts/);
  });

  it('mixes the game’s playPlayoutWeight into the evaluation games’ leaves only with its play leaf values', () => {
    const mixed = withHints({ leafValues: 'world', playLeafValues: 'world', playPlayoutWeight: 0.5 });
    const o = resolveTrainOptions({ game: 'tictactoe' }, mixed);
    expect(o.playPlayoutWeight).toBe(0.5);
    expect(hiddenOf(o, true).leafValues).toEqual({ kind: 'world', playoutWeight: 0.5, priors: 'own-view' });
    // Self-play keeps its own leaves: world values alone.
    expect(hiddenOf(o, false).leafValues).toEqual({ kind: 'world', playoutWeight: 0, priors: 'own-view' });
    expect(resolveTrainOptions({ game: 'tictactoe', playLeafValues: 'playouts' }, mixed).playPlayoutWeight).toBeUndefined();
    expect(resolveTrainOptions({ game: 'tictactoe', playPlayoutWeight: 0.25 }, mixed).playPlayoutWeight).toBe(0.25);
    expect(() => resolveTrainOptions({ game: 'tictactoe', playPlayoutWeight: 1.5 }, mixed)).toThrow(/playPlayoutWeight must be in \[0, 1\], got 1.5/);
    // A game that names no leaf values plays playouts, and its share applies there as in the CLI.
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({ playPlayoutWeight: 0.75 })).playPlayoutWeight).toBe(0.75);
  });

  it('evaluates with the game’s playSearchMethod while self-play stays determinized by default', () => {
    const o = resolveTrainOptions({ game: 'tictactoe' }, withHints({ playSearchMethod: 'information-set' }));
    expect(hiddenOf(o, true).method).toBe('information-set');
    expect(hiddenOf(o, false).method).toBe('determinized');
    expect(resolveTrainOptions({ game: 'tictactoe' }, withHints({})).playSearchMethod).toBe('determinized');
    const inferred = resolveTrainOptions({ game: 'tictactoe' }, withHints({ playSearchMethod: 'information-set', playWorldSampling: 'inferred' }));
    expect([hiddenOf(inferred, true).worldSampling, hiddenOf(inferred, false).worldSampling]).toEqual(['inferred', 'uniform']);
    expect(() => resolveTrainOptions({ game: 'tictactoe', playWorldSampling: 'bayes' as never }, withHints({}))).toThrow(/playWorldSampling must be 'uniform' or 'inferred', got bayes/);
    expect(() => resolveTrainOptions({ game: 'tictactoe', playSearchMethod: 'pimc' as never }, withHints({}))).toThrow(/playSearchMethod must be 'determinized' or 'information-set', got pimc/);
  });

  describe('selfPlaySearchMethod', () => {
    const blob = blobPlugin as GamePlugin;
    const blobWith = (training: GamePlugin['training']): GamePlugin => ({ ...blob, training: { ...blob.training, ...training } });

    it('comes from the user, else the game’s hint, else determinized, and reaches the self-play search only', () => {
      expect(resolveTrainOptions({ game: 'blob' }, blob).selfPlaySearchMethod).toBe('determinized');
      expect(resolveTrainOptions({ game: 'blob' }, blobWith({ selfPlaySearchMethod: 'information-set', rootSelection: 'puct' })).selfPlaySearchMethod).toBe('information-set');
      const o = resolveTrainOptions({ game: 'blob', selfPlaySearchMethod: 'information-set', rootSelection: 'puct', playSearchMethod: 'determinized' }, blob);
      expect(hiddenOf(o, false)).toMatchObject({ method: 'information-set', worldSampling: 'uniform' });
      expect(hiddenOf(o, true).method).toBe('determinized');
      expect(resolveTrainOptions({ game: 'blob', selfPlaySearchMethod: 'determinized' }, blobWith({ selfPlaySearchMethod: 'information-set' })).selfPlaySearchMethod).toBe('determinized');
    });

    it('refuses an unknown method, naming the field and the value', () => {
      expect(() => resolveTrainOptions({ game: 'blob', selfPlaySearchMethod: 'pimc' as never }, blob)).toThrow(/selfPlaySearchMethod must be 'determinized' or 'information-set', got pimc/);
      expect(() => resolveTrainOptions({ game: 'tictactoe', selfPlaySearchMethod: 'ismcts' as never }, withHints({}))).toThrow(/selfPlaySearchMethod must be 'determinized' or 'information-set', got ismcts/);
    });

    it('takes information-set self-play with Blob’s Gumbel root; refuses forced playouts, naming the flag to add', () => {
      const o = resolveTrainOptions({ game: 'blob', selfPlaySearchMethod: 'information-set' }, blob);
      expect([o.selfPlaySearchMethod, o.rootSelection]).toEqual(['information-set', 'gumbel']);
      expect(createSelfPlayEngine(blob.create({}), { evaluator: new UniformEvaluator() }, o, 2, 1)).toBeInstanceOf(InformationSetMcts);
      expect(() => resolveTrainOptions({ game: 'blob', selfPlaySearchMethod: 'information-set', rootSelection: 'puct', forcedPlayouts: 2 }, blob)).toThrow(/without forced playouts, got forcedPlayouts 2.*add --forced-playouts 0/);
      // Determinized self-play keeps both.
      expect(resolveTrainOptions({ game: 'blob', forcedPlayouts: 2, rootSelection: 'puct' }, blob).forcedPlayouts).toBe(2);
    });

    it('is ignored for perfect-information games, as determinizations is', () => {
      const o = resolveTrainOptions({ game: 'tictactoe', selfPlaySearchMethod: 'information-set' }, withHints({ rootSelection: 'gumbel' }));
      expect(o.rootSelection).toBe('gumbel');
      expect(createSelfPlayEngine(ticTacToePlugin.create({}), { evaluator: new UniformEvaluator() }, o, 2, 1)).toBeInstanceOf(BatchedMcts);
      expect(selfPlaySettings(resolveTrainOptions({ game: 'tictactoe', selfPlaySearchMethod: 'information-set', fullSearchShare: 0.5 }, withHints({ simulations: 64 })), 'perfect').playoutCap?.fullSimulations).toBe(64);
    });
  });

  it('still builds plain search for perfect-information games', () => {
    const game = ticTacToePlugin.create({});
    expect(createSearchEngine(game, { evaluator: new UniformEvaluator() }, 2, resolveSearchSettings({ game: game.traits }, { tree: { simulations: 4 }, determinizations: 3 }))).toBeInstanceOf(BatchedMcts);
  });
});

/** The search settings of self-play and evaluation, from a run's options; shared by the trainer and the workers. */
import type { Agent, Game } from '@az/core';
import { createSearchEngine, resolveSearchSettings, type SearchChoices, type SearchLeaves, type SearchSettings } from '@az/imperfect-info';
import { AGENT_SEARCH_TREES, CachingEvaluator, MctsAgent, playSearchConfig, type Evaluator, type NetworkEvaluator, type SearchEngine } from '@az/mcts';
import type { InferenceEngine, InferenceWorkload } from '@az/nn';
import type { EvaluationSettings, SelfPlaySettings } from './options.js';

/** The tree settings evaluation shares with self-play. */
type SharedTreeSettings = Pick<SelfPlaySettings, 'leavesPerTree' | 'cPuct' | 'dirichletAlpha' | 'determinizations'>;

/**
 * The search self-play plays and trains with: root noise, the self-play leaf values and search method,
 * worlds always uniform.
 */
export function selfPlaySearchSettings(game: Game<unknown>, o: SelfPlaySettings, seed: number): SearchSettings {
  return runSearchSettings(game, {
    tree: {
      simulations: o.simulations,
      leavesPerTree: o.leavesPerTree,
      cPuct: o.cPuct,
      dirichletAlpha: o.dirichletAlpha,
      dirichletEpsilon: o.dirichletEpsilon,
      resolveDepth: 1,
      solve: o.selfPlaySolve,
      networkValueScale: 1,
      rootSelection: o.rootSelection,
      gumbelConsideredActions: o.gumbelConsideredActions,
      gumbelCVisit: o.gumbelCVisit,
      gumbelCScale: o.gumbelCScale,
      forcedPlayouts: o.forcedPlayouts,
      seed,
    },
    determinizations: o.determinizations,
    method: o.selfPlaySearchMethod,
    leafValues: o.leafValues,
  });
}

/** The search of the evaluation games: as `az eval` plays the game (its play leaf values, search, worlds and value scale). */
export function evaluationSearchSettings(game: Game<unknown>, o: EvaluationSettings & SharedTreeSettings, seed: number): SearchSettings {
  return runSearchSettings(game, {
    tree: { ...playSearchConfig, simulations: o.evalSimulations, leavesPerTree: o.leavesPerTree, cPuct: o.cPuct, dirichletAlpha: o.dirichletAlpha, networkValueScale: o.playValueScale, seed },
    determinizations: o.determinizations,
    method: o.playSearchMethod,
    leafValues: o.playLeafValues,
    playoutWeight: o.playPlayoutWeight,
    worldSampling: o.playWorldSampling,
  });
}

/**
 * A run's options already hold the user's choices over the game's hints, checked when the run was
 * configured (`resolveTrainOptions`), so they are the settings the search starts from, with nothing over them.
 */
function runSearchSettings(game: Game<unknown>, run: SearchChoices): SearchSettings {
  return resolveSearchSettings({ game: game.traits, ...run }, {});
}

/**
 * The self-play search engine, built the same way in the single-process loop and in every self-play
 * worker process (worker.ts), so both paths play with identical settings.
 */
export function createSelfPlayEngine<S>(game: Game<S>, leaves: SearchLeaves<S>, options: SelfPlaySettings, slots: number, seed: number): SearchEngine<S> {
  return createSearchEngine(game, leaves, slots, selfPlaySearchSettings(game, options, seed));
}

/** The network with the evaluation search settings, as a batched agent. */
export function makeSearchAgent<S>(game: Game<S>, network: NetworkEvaluator<S>, o: EvaluationSettings & SharedTreeSettings, seed: number): Agent<S> {
  const engine = createSearchEngine(game, { evaluator: network, network }, AGENT_SEARCH_TREES, evaluationSearchSettings(game, o, seed));
  return new MctsAgent('az', engine, game.masker.actionSize, 0, seed);
}

/**
 * What self-play asks of the network per call, for the inference engine to tune itself to: up to
 * parallelGames x leavesPerTree positions, each with every action's logit unless the game lists its legal
 * actions (compact rows) and no evaluation cache is on (the cache stores full rows).
 */
export function selfPlayWorkload(game: Game<unknown>, options: Pick<SelfPlaySettings, 'parallelGames' | 'leavesPerTree' | 'evalCacheSize'>): InferenceWorkload {
  return {
    positionsPerCall: options.parallelGames * options.leavesPerTree,
    fullPolicyRows: game.masker.legalActions === undefined || options.evalCacheSize > 0,
  };
}

/**
 * The self-play network-evaluation cache (`--eval-cache`), or undefined when it is off. Its answers belong
 * to one weights version: it empties when `engine`'s version moves (the engine object itself stays).
 */
export function selfPlayEvaluationCache<S>(game: Game<S>, evaluator: Evaluator<S>, options: Pick<SelfPlaySettings, 'evalCacheSize'>, engine: Pick<InferenceEngine, 'weightsVersion'>): CachingEvaluator<S> | undefined {
  return options.evalCacheSize > 0 ? new CachingEvaluator(game, evaluator, options.evalCacheSize, () => engine.weightsVersion) : undefined;
}

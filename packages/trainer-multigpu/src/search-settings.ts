/** The search settings of self-play and evaluation, from a run's options; shared by the trainer and the workers. */
import type { Agent, Game, SearchMethod } from '@az/core';
import { createSearchEngine } from '@az/imperfect-info';
import { CachingEvaluator, MctsAgent, playSearchConfig, type Evaluator, type SearchConfig, type SearchEngine } from '@az/mcts';
import type { InferenceEngine, InferenceWorkload } from '@az/nn';
import type { TrainOptions } from './options.js';

/** The search settings self-play and evaluation use, from the run's options. */
export function searchConfigFrom(o: TrainOptions, seed: number, forEvaluation: boolean): Partial<SearchConfig> {
  const simulations = forEvaluation ? o.evalSimulations : o.simulations;
  const common: Partial<SearchConfig> = {
    simulations,
    leavesPerTree: o.leavesPerTree,
    cPuct: o.cPuct,
    dirichletAlpha: o.dirichletAlpha,
    nodeCapacity: nodeCapacityFor(simulations, o.leavesPerTree),
    seed,
  };
  // Evaluation plays as `az eval` does, with the game's play value scale; self-play keeps the cheaper
  // plain search it trains on.
  if (forEvaluation) return { ...common, ...playSearchConfig, networkValueScale: o.playValueScale };
  return {
    ...common,
    dirichletEpsilon: o.dirichletEpsilon,
    resolveDepth: 1,
    solve: o.selfPlaySolve,
    networkValueScale: 1,
    rootSelection: o.rootSelection,
    gumbelConsideredActions: o.gumbelConsideredActions,
    gumbelCVisit: o.gumbelCVisit,
    gumbelCScale: o.gumbelCScale,
    forcedPlayouts: o.forcedPlayouts,
  };
}

/**
 * Hidden-information search settings for self-play or evaluation: evaluation searches, draws worlds and
 * values leaves as the game plays (`playSearchMethod`, `playWorldSampling`, `playLeafValues`, `playPlayoutWeight`), self-play
 * as it trains (`selfPlaySearchMethod`, default determinized; `leafValues`; worlds always uniform).
 */
export function hiddenInformationSearchFrom(
  o: TrainOptions,
  forEvaluation: boolean,
): { determinizations: number; worldValues: boolean; policyPlayouts: boolean; playoutWeight: number | undefined; method: SearchMethod; inferWorlds: boolean } {
  const leafValues = forEvaluation ? o.playLeafValues : o.leafValues;
  return {
    determinizations: o.determinizations,
    worldValues: leafValues === 'world',
    policyPlayouts: leafValues === 'policy-playouts',
    playoutWeight: forEvaluation ? o.playPlayoutWeight : undefined,
    method: forEvaluation ? o.playSearchMethod : o.selfPlaySearchMethod,
    inferWorlds: forEvaluation && o.playWorldSampling === 'inferred',
  };
}

/** Enough nodes for `simulations` expansions plus reuse from the previous move, bounded for memory. */
function nodeCapacityFor(simulations: number, leavesPerTree: number): number {
  return Math.max(256, (simulations + leavesPerTree) * 48);
}

/**
 * The self-play search engine, built the same way in the single-process loop and in every self-play
 * worker process (worker.ts), so both paths play with identical settings.
 */
export function createSelfPlayEngine<S>(game: Game<S>, evaluator: Evaluator<S>, options: TrainOptions, slots: number, seed: number): SearchEngine<S> {
  return createSearchEngine(game, evaluator, slots, searchConfigFrom(options, seed, false), hiddenInformationSearchFrom(options, false));
}

/** The network with the evaluation search settings, as a batched agent. */
export function makeSearchAgent<S>(game: Game<S>, evaluator: Evaluator<S>, o: TrainOptions, seed: number): Agent<S> {
  const engine = createSearchEngine(game, evaluator, 64, searchConfigFrom(o, seed, true), hiddenInformationSearchFrom(o, true));
  return new MctsAgent('az', engine, game.masker.actionSize, 0, seed);
}

/**
 * What self-play asks of the network per call, for the inference engine to tune itself to: up to
 * parallelGames x leavesPerTree positions, each with every action's logit unless the game lists its legal
 * actions (compact rows) and no evaluation cache is on (the cache stores full rows).
 */
export function selfPlayWorkload(game: Game<unknown>, options: TrainOptions): InferenceWorkload {
  return {
    positionsPerCall: options.parallelGames * options.leavesPerTree,
    fullPolicyRows: game.masker.legalActions === undefined || options.evalCacheSize > 0,
  };
}

/**
 * The self-play network-evaluation cache (`--eval-cache`), or undefined when it is off. Its answers belong
 * to one weights version: it empties when `engine`'s version moves (the engine object itself stays).
 */
export function selfPlayEvaluationCache<S>(game: Game<S>, evaluator: Evaluator<S>, options: TrainOptions, engine: Pick<InferenceEngine, 'weightsVersion'>): CachingEvaluator<S> | undefined {
  return options.evalCacheSize > 0 ? new CachingEvaluator(game, evaluator, options.evalCacheSize, () => engine.weightsVersion) : undefined;
}

import type { Game } from '@az/core';
import { createSearchEngine as createEngine, type DeterminizedSearchOptions } from '@az/imperfect-info';
import type { Evaluator, SearchConfig, SearchEngine } from '@az/mcts';

/**
 * The search engine a game needs: plain batched MCTS for perfect information, determinized search
 * (`determinizations` worlds per slot, all in one batched search) for imperfect information. The
 * choice lives in @az/imperfect-info; this export keeps the trainer's (and the CLI's) entry point.
 */
export function createSearchEngine<S>(
  game: Game<S>,
  evaluator: Evaluator<S>,
  slots: number,
  config: Partial<SearchConfig>,
  options: Partial<DeterminizedSearchOptions> = {},
): SearchEngine<S> {
  return createEngine(game, evaluator, slots, config, options);
}

import type { Game } from '@az/core';
import { BatchedMcts, type Evaluator, type SearchConfig, type SearchEngine } from '@az/mcts';

/**
 * The search engine a game needs: plain batched MCTS for perfect information. Imperfect-information
 * games need determinized search (@az/imperfect-info), wired in here once it exists.
 */
export function createSearchEngine<S>(game: Game<S>, evaluator: Evaluator<S>, slots: number, config: Partial<SearchConfig>): SearchEngine<S> {
  if (game.traits.information === 'imperfect') {
    throw new Error(`${game.traits.id} is an imperfect-information game; determinized search is not wired into the trainer yet`);
  }
  return new BatchedMcts(game, evaluator, slots, config);
}

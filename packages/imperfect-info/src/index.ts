// The public surface of @az/imperfect-info: sampling hidden state and determinized search.
export type { Determinizer } from './determinizer.js';
export {
  ConsistentDealer,
  InconsistentDealError,
  dealConsistentHands,
  countConsistentDeals,
  type ConsistentDealSpec,
} from './deal.js';
export { DeterminizedMcts, type DeterminizedSearchOptions } from './determinized-mcts.js';
export { createSearchEngine, type SearchLeaves } from './search-factory.js';
export {
  resolveSearchSettings,
  playSearchHints,
  gamePlayoutShare,
  leafValueSource,
  SearchSettingsError,
  DEFAULT_DETERMINIZATIONS,
  DEFAULT_PLAYOUT_WEIGHT,
  type SearchSettings,
  type SearchChoices,
  type GameSearchHints,
  type HiddenInformationSearch,
  type LeafValueSource,
} from './search-settings.js';
/** How an imperfect-information game is searched (defined in `@az/core`, where games name their play search). */
export type { SearchMethod } from '@az/core';
export { DEFAULT_OTHER_SEAT_MOVES, DEFAULT_OTHER_SEAT_PRIORS, InformationSetMcts, type InformationSetOptions, type OtherSeatMoves, type OtherSeatPriors, type WorldInference } from './ismcts.js';
export { PolicyWorldWeigher, type WorldWeigher } from './world-inference.js';
export { OwnViewNetworkEvaluator } from './own-view-evaluator.js';
export { PolicyPlayouts } from './policy-playout.js';
export { PolicyPlayoutEvaluator } from './policy-playout-evaluator.js';
export { PolicyRolloutAgent, type PolicyRolloutOptions } from './policy-rollout-agent.js';
export { RolloutMixEvaluator } from './rollout-mix-evaluator.js';
export { WorldNetworkEvaluator, type WorldPriors } from './world-evaluator.js';

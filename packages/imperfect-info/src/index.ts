// The public surface of @az/imperfect-info: sampling hidden state and determinized search.
export type { Determinizer } from './determinizer.js';
export {
  ConsistentDealer,
  InconsistentDealError,
  dealConsistentHands,
  countConsistentDeals,
  type ConsistentDealSpec,
} from './deal.js';
export {
  DeterminizedMcts,
  createSearchEngine,
  DEFAULT_DETERMINIZATIONS,
  DEFAULT_PLAYOUT_WEIGHT,
  playoutWeightOf,
  type DeterminizedSearchOptions,
  type SearchMethod,
} from './determinized-mcts.js';
export { DEFAULT_OTHER_SEAT_MOVES, DEFAULT_OTHER_SEAT_PRIORS, InformationSetMcts, type InformationSetOptions, type OtherSeatMoves, type OtherSeatPriors, type WorldInference } from './ismcts.js';
export { PolicyWorldWeigher, type WorldWeigher } from './world-inference.js';
export { OwnViewNetworkEvaluator } from './own-view-evaluator.js';
export { PolicyPlayouts } from './policy-playout.js';
export { PolicyPlayoutEvaluator } from './policy-playout-evaluator.js';
export { PolicyRolloutAgent, type PolicyRolloutOptions } from './policy-rollout-agent.js';
export { RolloutMixEvaluator } from './rollout-mix-evaluator.js';
export { WorldNetworkEvaluator, type WorldPriors } from './world-evaluator.js';

// The public surface of @az/imperfect-info: sampling hidden state for determinized search.
export type { Determinizer } from './determinizer.js';
export {
  ConsistentDealer,
  InconsistentDealError,
  dealConsistentHands,
  countConsistentDeals,
  type ConsistentDealSpec,
} from './deal.js';

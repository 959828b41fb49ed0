// Public surface of @az/mcts: batched AlphaZero search and the evaluator interface it calls.
export { BatchedMcts, defaultSearchConfig, nodeCapacityFor, playSearchConfig, type RootSelection, type SearchConfig, type SearchStats, type SearchEngine, type RootChildVisitor } from './batched-mcts.js';
export { checkGumbelSettings, completeAndScaleQ, improvedPolicyInPlace, consideredVisit, consideredVisitSequence, gumbelNoisyLogit, halvingChoice, type GumbelSettings } from './gumbel.js';
export { forcedPlayouts } from './forced-playouts.js';
export { UniformEvaluator, RolloutEvaluator, NetworkEvaluator, type Evaluator, type LeafBatch } from './evaluator.js';
export { selectActionFromVisits, normalizeVisits, topLegalAction } from './policy.js';
export { AGENT_SEARCH_TREES, MctsAgent, defaultPlaySimulations, type MctsAgentOptions } from './mcts-agent.js';
export { PolicyAgent } from './policy-agent.js';
export { CachingEvaluator, type EvaluationCacheStats } from './evaluation-cache.js';

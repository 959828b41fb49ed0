import type { Game } from '@az/core';
import { BatchedMcts, type Evaluator, type NetworkEvaluator, type SearchEngine } from '@az/mcts';
import { DeterminizedMcts, missingDeterminizer } from './determinized-mcts.js';
import { InformationSetMcts } from './ismcts.js';
import { OwnViewNetworkEvaluator } from './own-view-evaluator.js';
import { PolicyPlayoutEvaluator } from './policy-playout-evaluator.js';
import { RolloutMixEvaluator } from './rollout-mix-evaluator.js';
import type { LeafValueSource, SearchSettings } from './search-settings.js';
import { WorldNetworkEvaluator } from './world-evaluator.js';
import { PolicyWorldWeigher } from './world-inference.js';

/** What values a search's leaves. */
export interface SearchLeaves<S> {
  /** Values leaves as it is when there is no network; with one, gives the network's answers from the mover's view (possibly through a cache). */
  readonly evaluator: Evaluator<S>;
  /**
   * The network behind `evaluator`, when there is one: hidden-information search builds its leaf values
   * (`SearchSettings.hidden.leafValues`), world weighing and the other seats' policy from it.
   */
  readonly network?: NetworkEvaluator<S>;
}

/**
 * The search a game needs, for self-play and search agents: `BatchedMcts` for perfect information;
 * for imperfect information `DeterminizedMcts` (D worlds per slot in one batched search) or
 * `InformationSetMcts` (one tree per slot, `determinizations * simulations` simulations a move), as
 * `settings.hidden.method` says. Throws, naming the game, when an imperfect-information game has no
 * determinizer, or when the other seats are to move by a policy and no network is given.
 */
export function createSearchEngine<S>(game: Game<S>, leaves: SearchLeaves<S>, slots: number, settings: SearchSettings): SearchEngine<S> {
  const { tree, hidden } = settings;
  if (game.traits.information === 'perfect') return new BatchedMcts(game, leaves.evaluator, slots, tree);
  if (!game.determinizer) throw missingDeterminizer(game);
  const { network } = leaves;
  const leafEvaluator = network ? networkLeafEvaluator(game, leaves.evaluator, network, hidden.leafValues, tree.seed) : leaves.evaluator;
  if (hidden.method === 'determinized') return new DeterminizedMcts(game, leafEvaluator, slots, tree, { determinizations: hidden.determinizations });
  if (hidden.otherSeatMoves === 'policy' && !network) throw new Error(`${game.traits.id}: the other seats can move by the network's policy in information-set search only when a network evaluates the leaves`);
  const inference = hidden.worldSampling === 'inferred' && network && game.pastDecisions ? { weigher: new PolicyWorldWeigher(game, network.model) } : undefined;
  return new InformationSetMcts(game, leafEvaluator, slots, { ...tree, simulations: hidden.determinizations * tree.simulations }, {
    inference,
    otherSeatPriors: hidden.otherSeatPriors,
    otherSeatMoves: hidden.otherSeatMoves,
    otherSeatPolicy: network,
  });
}

/** How a network values the leaves of hidden-information search (see `LeafValueSource`). */
function networkLeafEvaluator<S>(game: Game<S>, evaluator: Evaluator<S>, network: NetworkEvaluator<S>, leafValues: LeafValueSource, seed: number): Evaluator<S> {
  if (leafValues.kind === 'policy-playouts') return new PolicyPlayoutEvaluator(game, evaluator, network, seed);
  const values: Evaluator<S> =
    leafValues.kind === 'world'
      ? new WorldNetworkEvaluator(game, network.model, leafValues.priors)
      : leafValues.kind === 'own-view'
        ? new OwnViewNetworkEvaluator(game, network.model)
        : evaluator;
  return leafValues.playoutWeight > 0 ? new RolloutMixEvaluator(game, values, leafValues.playoutWeight, seed) : values;
}

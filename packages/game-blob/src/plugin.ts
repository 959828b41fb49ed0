import { GAME_CONTRACT_VERSION, defaultRegistry, type GamePlugin, type GameRegistry, type ResolvedConfig, type TrainingHints } from '@az/core';
import { blobConfigSchema, blobRules, finalizeBlobConfig, roundsPlayed } from './config.js';
import { BLOB_TRAITS, BlobGame } from './game.js';
import { CountingAgent } from './counting.js';
import { HeuristicAgent } from './heuristic.js';
import { blobPartModels } from './round-play.js';
import type { BlobState } from './state.js';
import { scoreRange, scoreToValue } from './value.js';

/**
 * Per-seat results of a finished game for `az eval`: total score, score per round, the fraction of
 * rounds bid exactly, and the score as the value the trainer sees (see value.ts).
 */
export function blobOutcomeMetrics(config: ResolvedConfig, finalState: BlobState, seat: number): Record<string, number> {
  const rules = blobRules(config);
  const rounds = roundsPlayed(rules);
  const score = finalState.scores[seat];
  return {
    score,
    scorePerRound: score / rounds,
    bidAccuracy: finalState.exactBids[seat] / rounds,
    value: scoreToValue(score, scoreRange(rules)),
  };
}

/**
 * Training defaults (README "Training" has the measurements behind them).
 *
 * The unit is ONE round of 5 cards (`rounds=one,roundCards=5`), not the whole game the default config
 * plays: a round's deal is independent of earlier rounds and each seat's value is affine in its own
 * score, so maximising each round's expected score maximises the game's. A whole game is ~13x more
 * moves (304 vs 24 for 4 players) behind one value target that mixes 17 rounds of luck. `--config`
 * overrides it (e.g. `rounds=game`), but the network is tied to the config it was trained with.
 */
export const BLOB_TRAINING: TrainingHints = {
  gameConfig: { rounds: 'one', roundCards: 5 },
  network: { kind: 'mlp', hidden: [128, 128] },
  determinizations: 3,
  simulations: 30,
  // Play searches deeper than self-play: 400 a world gained over 100 on the same deals at every table
  // size measured (README "Whole games"), for 1,200 evaluations a move.
  playSimulations: 400,
  parallelGames: 64,
  gamesPerIteration: 512,
  iterations: 60,
  trainingSteps: 200,
  batchSize: 256,
  replayCapacity: 100_000,
  temperatureMoves: 8,
  // World values + Gumbel root targets: the best setting measured for training (README "Training"):
  // its network alone beats the heuristic, its search is at least level with playouts, and self-play is
  // faster.
  leafValues: 'world',
  // In play, the same models do better with random-playout values (the network giving the priors),
  // paired on the same deals (README "Whole games").
  playLeafValues: 'playouts',
  // In play, one information-set tree (D x S simulations, a world each) instead of D trees: ahead of
  // determinized search on the same deals, in rounds and whole games (README "Information-set search in
  // play", "Whole games"). Self-play stays determinized.
  playSearchMethod: 'information-set',
  // Its worlds weighed by the other seats' bids (the network as the model of every player): ahead of
  // uniform worlds on the same rounds, pooled over two models and two arena seeds (README
  // "Information-set search in play").
  playWorldSampling: 'inferred',
  rootSelection: 'gumbel',
};

export const blobPlugin: GamePlugin<BlobState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: BLOB_TRAITS,
  configSchema: blobConfigSchema,
  finalizeConfig: finalizeBlobConfig,
  create: (config) => new BlobGame(config),
  bots: {
    heuristic: (game) => new HeuristicAgent(blobRules(game.config)),
    counting: (game, seed) => new CountingAgent(blobRules(game.config), seed),
  },
  outcomeMetrics: (game, finalState, seat) => blobOutcomeMetrics(game.config, finalState, seat),
  training: BLOB_TRAINING,
  partModels: blobPartModels,
};

/**
 * Registers Blob with `registry` (the process-wide default registry if omitted). Calling it again for
 * a registry that already holds this plugin does nothing; a different plugin under the id 'blob' is
 * still refused by the registry.
 */
export function registerBlob(registry: GameRegistry = defaultRegistry): void {
  if (registry.has(BLOB_TRAITS.id) && registry.resolve(BLOB_TRAITS.id) === blobPlugin) return;
  registry.register(blobPlugin);
}

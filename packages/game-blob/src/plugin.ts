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
  // Played for real, D=3 x S=400: paired against S=100 on the same deals it gained +4.1, +1.5 and +1.9
  // points a 7-player game (seeds 0-2), +1.3 [-2.0, 4.7] at 5 players, +0.04 [-0.18, 0.25] a 4-player
  // round; a move still costs only 1,200 evaluations.
  playSimulations: 400,
  parallelGames: 64,
  gamesPerIteration: 512,
  iterations: 60,
  trainingSteps: 200,
  batchSize: 256,
  replayCapacity: 100_000,
  temperatureMoves: 8,
  // World values + Gumbel root targets: the best measured setting (README "Training"): its network
  // alone beats the heuristic, its search is at least level with playouts, self-play ~1.7x faster.
  leafValues: 'world',
  // Played for real, the same models do better with random-playout values (the network giving the
  // priors): paired on the same deals, +3.8 and +4.0 points a whole game at 5 players (two seeds), +3.7
  // at 7, +0.17 [-0.06, 0.41] a 4-player round (README "Whole games").
  playLeafValues: 'playouts',
  // Played for real with one information-set tree (D x S = 1,200 simulations, a world each) instead of
  // D trees: paired on the same deals, +0.49 [0.24, 0.74] points a 4-player round and +7 to +9 points
  // a whole game at 3, 5 and 7 players over determinized search (README "Information-set search in
  // play", "Whole games"). Self-play stays determinized.
  playSearchMethod: 'information-set',
  // Its worlds weighed by the other seats' bids (the network as the model of every player): paired on
  // the same 4-player rounds, +0.03, +0.18, +0.13 and +0.14 points a round (two models x two arena
  // seeds), +0.12 [0.02, 0.22] pooled over 8,000 rounds (README "Information-set search in play").
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

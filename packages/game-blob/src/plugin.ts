import { GAME_CONTRACT_VERSION, defaultRegistry, type GamePlugin, type GameRegistry, type ResolvedConfig } from '@az/core';
import { blobConfigSchema, blobRules, finalizeBlobConfig } from './config.js';
import { BLOB_TRAITS, BlobGame } from './game.js';
import { HeuristicAgent } from './heuristic.js';
import type { BlobState } from './state.js';
import { scoreRange, scoreToValue } from './value.js';

/**
 * Per-seat results of a finished game for `az eval`: total score, score per round, the fraction of
 * rounds bid exactly, and the score as the value the trainer sees (see value.ts).
 */
export function blobOutcomeMetrics(config: ResolvedConfig, finalState: BlobState, seat: number): Record<string, number> {
  const rules = blobRules(config);
  const rounds = rules.schedule.length;
  const score = finalState.scores[seat];
  return {
    score,
    scorePerRound: score / rounds,
    bidAccuracy: finalState.exactBids[seat] / rounds,
    value: scoreToValue(score, scoreRange(rules)),
  };
}

export const blobPlugin: GamePlugin<BlobState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: BLOB_TRAITS,
  configSchema: blobConfigSchema,
  finalizeConfig: finalizeBlobConfig,
  create: (config) => new BlobGame(config),
  bots: {
    heuristic: (game) => new HeuristicAgent(blobRules(game.config)),
  },
  outcomeMetrics: (game, finalState, seat) => blobOutcomeMetrics(game.config, finalState, seat),
  training: {
    network: { kind: 'mlp', hidden: [256, 256] },
    simulations: 100,
  },
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

// How far above the heuristic Blob play can go: a search that sees every hand (plain MCTS on the full
// state, random-playout values) against one that sees only its own (determinized, D=3 worlds), both
// without a network, over the 4-player round of 5 cards against three heuristic bots, seats rotating.
// The first is not a legal player; it bounds what any honest agent can reach (issue 16's +1.5 a round).
// Env: BLOB_CEILING_SIMS (default 400), BLOB_CEILING_ROUNDS (default 2000), BLOB_CEILING_SEED (default 0).
import { validateConfig } from '@az/core';
import { BlobGame, HeuristicAgent, blobConfigSchema } from '@az/game-blob';
import { createSearchEngine, resolveSearchSettings } from '@az/imperfect-info';
import { BatchedMcts, MctsAgent, RolloutEvaluator, nodeCapacityFor } from '@az/mcts';
import { writeResult } from '@az/bench';
import { blobMatch } from './blob-match.mjs';

const SIMS = Number(process.env.BLOB_CEILING_SIMS ?? 400);
const ROUNDS = Number(process.env.BLOB_CEILING_ROUNDS ?? 2000);
const SEED = Number(process.env.BLOB_CEILING_SEED ?? 0);
const GAME_CONFIG = { players: 4, rounds: 'one', roundCards: 5 };
const game = new BlobGame(validateConfig(blobConfigSchema, GAME_CONFIG));
const search = { simulations: SIMS, dirichletEpsilon: 0, nodeCapacity: nodeCapacityFor(SIMS), seed: SEED };

async function againstHeuristic(agent) {
  const result = await blobMatch(game, `${agent.name} vs heuristic`, agent, new HeuristicAgent(game.rules), ROUNDS, SEED);
  console.log(JSON.stringify(result));
  return result;
}

const seesAll = new MctsAgent(`sees every hand: MCTS on the full state, S=${SIMS}, playouts`, new BatchedMcts(game, new RolloutEvaluator(game, SEED), 64, search), game.masker.actionSize, 0, SEED);
const honest = new MctsAgent(`own hand only: determinized D=3 x S=${SIMS}, playouts`, createSearchEngine(game, { evaluator: new RolloutEvaluator(game, SEED) }, 64, resolveSearchSettings({ game: game.traits }, { tree: search, determinizations: 3 })), game.masker.actionSize, 0, SEED);
const results = [await againstHeuristic(seesAll), await againstHeuristic(honest)];
writeResult('blob-ceiling', { game: 'blob', gameConfig: GAME_CONFIG, opponents: 'heuristic', simulations: SIMS, rounds: ROUNDS, seed: SEED }, results);

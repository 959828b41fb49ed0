// How far above the heuristic Blob play can go: a search that sees every hand (plain MCTS on the full
// state, random-playout values) against one that sees only its own (determinized, D=3 worlds), both
// without a network, over the 4-player round of 5 cards against three heuristic bots, seats rotating.
// The first is not a legal player; it bounds what any honest agent can reach (issue 16's +1.5 a round).
// Env: BLOB_CEILING_SIMS (default 400), BLOB_CEILING_ROUNDS (default 2000), BLOB_CEILING_SEED (default 0).
import os from 'node:os';
import { playArena, validateConfig } from '@az/core';
import { BlobGame, HeuristicAgent, blobConfigSchema, blobOutcomeMetrics } from '@az/game-blob';
import { createSearchEngine } from '@az/imperfect-info';
import { BatchedMcts, MctsAgent, RolloutEvaluator } from '@az/mcts';
import { writeResult } from '@az/bench';

const SIMS = Number(process.env.BLOB_CEILING_SIMS ?? 400);
const ROUNDS = Number(process.env.BLOB_CEILING_ROUNDS ?? 2000);
const SEED = Number(process.env.BLOB_CEILING_SEED ?? 0);
const GAME_CONFIG = { players: 4, rounds: 'one', roundCards: 5 };
const game = new BlobGame(validateConfig(blobConfigSchema, GAME_CONFIG));
const P = game.numPlayers;
const search = { simulations: SIMS, dirichletEpsilon: 0, nodeCapacity: Math.max(4096, SIMS * 48), seed: SEED };

function summary(values) {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  const h = 1.96 * sd / Math.sqrt(n);
  return { mean: +mean.toFixed(3), low: +(mean - h).toFixed(3), high: +(mean + h).toFixed(3), n };
}

async function against(agent) {
  const heuristic = new HeuristicAgent(game.rules);
  const diff = [];
  const exact = [];
  const start = performance.now();
  await playArena(game, Array.from({ length: P }, (_, i) => (i === 0 ? agent : heuristic)), ROUNDS, {
    seed: SEED,
    onGameEnd: (state, seatAgent) => {
      let a = 0;
      let b = 0;
      for (let seat = 0; seat < P; seat++) {
        const o = blobOutcomeMetrics(game.config, state, seat);
        if (seatAgent[seat] === 0) {
          a = o.scorePerRound;
          exact.push(o.bidAccuracy);
        } else b += o.scorePerRound / (P - 1);
      }
      diff.push(a - b);
    },
  });
  const result = { agent: agent.name, aMinusHeuristicPerRound: summary(diff), bidAccuracy: summary(exact), seconds: +((performance.now() - start) / 1000).toFixed(1) };
  console.log(JSON.stringify(result));
  return result;
}

const loadAverageAtStart = os.loadavg().map((x) => +x.toFixed(2));
const seesAll = new MctsAgent(`sees every hand: MCTS on the full state, S=${SIMS}, playouts`, new BatchedMcts(game, new RolloutEvaluator(game, SEED), 64, search), game.masker.actionSize, 0, SEED);
const honest = new MctsAgent(`own hand only: determinized D=3 x S=${SIMS}, playouts`, createSearchEngine(game, new RolloutEvaluator(game, SEED), 64, search, { determinizations: 3 }), game.masker.actionSize, 0, SEED);
const results = [await against(seesAll), await against(honest)];
writeResult('blob-ceiling', { game: 'blob', gameConfig: GAME_CONFIG, opponents: 'heuristic', simulations: SIMS, rounds: ROUNDS, seed: SEED, loadAverageAtStart, loadAverageAtEnd: os.loadavg().map((x) => +x.toFixed(2)) }, results);

import { GAME_CONTRACT_VERSION, defaultRegistry, type GamePlugin, type GameRegistry } from '@az/core';
import { TICTACTOE_TRAITS, TicTacToeGame } from './game.js';
import { MinimaxAgent } from './oracle.js';
import { assessTicTacToeAgent } from './perfect-play.js';
import type { TicTacToeState } from './rules.js';

export const ticTacToePlugin: GamePlugin<TicTacToeState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: TICTACTOE_TRAITS,
  configSchema: {},
  create: (config) => new TicTacToeGame(config),
  bots: {
    minimax: (_game, seed) => new MinimaxAgent(seed),
  },
  // Chosen by measurement on the 2-core reference machine (the root README's quick start has the time):
  // these reach perfect play (>= 99% optimal moves over the oracle's positions, no loss to it).
  // Sampling every move from the visit counts (temperature moves = 9) makes self-play visit the odd
  // positions the oracle test covers; the board symmetries multiply the data.
  // The moves a trained net still gets wrong at 100 simulations (README "Oracle") are all in
  // off-policy openings (both sides on edges) that self-play rarely reaches: the mistake is punished by a
  // fork 3-5 plies later, the value net is near 0 there, and 100 simulations cannot prove it. From move 4
  // on the whole tree below a position has at most a few hundred nodes, so 400 simulations with proof
  // (as play searches) see it to the end: the model then plays perfectly for every seed tried.
  training: {
    playSimulations: 400,
    network: { kind: 'mlp', hidden: [64, 64] },
    simulations: 64,
    iterations: 12,
    gamesPerIteration: 256,
    trainingSteps: 150,
    temperatureMoves: 9,
  },
  assessAgent: (_game, agent) => assessTicTacToeAgent(agent),
};

/**
 * Registers tic-tac-toe with `registry` (the process-wide default registry if omitted). Calling it
 * again for a registry that already holds this plugin does nothing; a different plugin under the id
 * 'tictactoe' is still refused by the registry.
 */
export function registerTicTacToe(registry: GameRegistry = defaultRegistry): void {
  if (registry.has(TICTACTOE_TRAITS.id) && registry.resolve(TICTACTOE_TRAITS.id) === ticTacToePlugin) return;
  registry.register(ticTacToePlugin);
}

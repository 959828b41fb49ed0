// The public surface of @az/game-tictactoe.
export { ticTacToePlugin, registerTicTacToe } from './plugin.js';
export type { TicTacToeState } from './rules.js';
export { minimaxValue, optimalActions, reachablePositions, MinimaxAgent } from './oracle.js';
export { measurePerfectPlay, assessTicTacToeAgent, type PerfectPlayReport } from './perfect-play.js';
export { ticTacToeSymmetries } from './symmetry.js';

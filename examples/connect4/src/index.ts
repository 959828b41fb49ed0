// The public surface of az-game-connect4. az finds the plugin through package.json ("az": { "gamePlugin" }).
export { connect4Plugin, GreedyAgent } from './plugin.js';
export { Connect4Game, CONNECT4_TRAITS, mirrorSymmetry, rulesOf } from './game.js';
export { Connect4Encoder, Connect4Masker, PLANES } from './encoding.js';
export { STANDARD_RULES, drop, newState, type Connect4Rules, type Connect4State } from './rules.js';
export { Connect4Solver, WIN, DRAW, LOSS } from './solver.js';
export {
  assessConnect4Agent,
  loadHardSet,
  loadReferenceSet,
  scoreAgent,
  type Connect4AssessOptions,
  type HardSetPurpose,
  type ReferencePosition,
  type ReferenceSet,
  type ReferenceScore,
} from './assessment.js';
export { immediateWin, rejectBeforeSolving, rejectHardPosition, type HardRejection } from './hard-positions.js';

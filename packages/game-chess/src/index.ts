// The public surface of @az/game-chess.
export { chessPlugin, registerChess, chessConfigSchema, chessTrainingHints } from './plugin.js';
export { ChessGame, CHESS_TRAITS, DEFAULT_HISTORY, seatOf } from './game.js';
export { GreedyAgent, PIECE_VALUES } from './bots.js';
export {
  ChessState,
  DEFAULT_MAX_PLIES,
  stateFromFen,
  toFen,
  fenProblem,
  outcomeOf,
  isGameOver,
  isCheck,
  materialBalance,
  legalMoveOf,
  legalActionsOf,
  type LegalMove,
  type Outcome,
  type Termination,
} from './state.js';
export {
  ACTION_SIZE,
  PLANES_PER_SQUARE,
  FIRST_KNIGHT_PLANE,
  FIRST_UNDERPROMOTION_PLANE,
  QUEEN_DIRECTIONS,
  KNIGHT_JUMPS,
  UNDERPROMOTION_PIECES,
  encodeMove,
  decodeMove,
  type DecodedMove,
} from './action-encoding.js';
export { ChessEncoder, encoderChannels, encoderVersion, PLANES_PER_POSITION, CONSTANT_PLANES } from './encoding.js';
export { describeOutcome } from './notation.js';
export { formatPgn, type PgnGame } from './pgn.js';

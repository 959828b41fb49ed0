/**
 * The chess plugin: config schema, training hints, bots and registration.
 */
import {
  ConfigError,
  defaultRegistry,
  GAME_CONTRACT_VERSION,
  type ConfigSchema,
  type GamePlugin,
  type GameRegistry,
  type ResolvedConfig,
  type TrainingHints,
} from '@az/core';
import { GreedyAgent } from './bots.js';
import { CHESS_TRAITS, ChessGame, DEFAULT_HISTORY } from './game.js';
import { describeOutcome } from './notation.js';
import { completeFen, DEFAULT_MAX_PLIES, fenProblem, outcomeOf, stateFromFen, type ChessState } from './state.js';

export const chessConfigSchema: ConfigSchema = {
  maxPlies: {
    type: 'int',
    default: DEFAULT_MAX_PLIES,
    min: 1,
    max: 100_000,
    description: 'game length cap in plies (half-moves); a game still going after that many is drawn',
  },
  fen: {
    type: 'string',
    default: '',
    description: "starting position as FEN (trailing fields optional); '' is the standard start",
    // The network sees positions, not where the game began: a model trained from the standard start can
    // play from any FEN (az play --model DIR --fen ...).
    modelIndependent: true,
  },
  adjudicateLead: {
    type: 'int',
    default: 0,
    min: 0,
    max: 39,
    description:
      'at the ply cap, a side ahead by at least this much material (pawn 1, knight and bishop 3, rook 5, queen 9) wins instead of the draw; 0 = off (standard)',
    // The network does not see it: a model trained with it may be evaluated under standard rules (0).
    modelIndependent: true,
  },
  history: {
    type: 'int',
    default: DEFAULT_HISTORY,
    min: 0,
    max: 8,
    description: 'past positions in the network input, besides the current one (14 planes each)',
  },
};

/**
 * Defaults for a CPU run of about an hour. The tower is smaller than AlphaZero-small (64 filters, 4 blocks)
 * on purpose: with tfjs-wasm on 2 cores, 64x4 costs ~6.3 ms per position and 32x3 ~2.4 ms, against
 * ~0.03 ms of rules work per tree node, so the network bounds self-play, and an hour of 64x4 self-play
 * yields too few games for the value head to learn anything. 50 simulations keep a move near 0.1 s.
 */
export const chessTrainingHints: TrainingHints = {
  network: { kind: 'resnet', filters: 32, blocks: 3 },
  simulations: 50,
  temperatureMoves: 30,
  dirichletAlpha: 0.3,
};

export const chessPlugin: GamePlugin<ChessState> = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: CHESS_TRAITS,
  configSchema: chessConfigSchema,

  /** Rejects an unusable FEN (naming the field) and stores it with all six fields. */
  finalizeConfig(config: ResolvedConfig): ResolvedConfig {
    const raw = typeof config.fen === 'string' ? config.fen.trim() : '';
    if (raw === '') return { ...config, fen: '' };
    const bad = (why: string): ConfigError => new ConfigError('fen', `game 'chess' config: field 'fen' ${why} (got ${JSON.stringify(raw)})`);
    const problem = fenProblem(raw);
    if (problem) throw bad(`is not a valid position: ${problem}`);
    const outcome = outcomeOf(stateFromFen(raw));
    if (outcome) throw bad(`is a finished game (${describeOutcome(outcome)})`);
    return { ...config, fen: completeFen(raw) };
  },

  create(config: ResolvedConfig): ChessGame {
    return new ChessGame(config);
  },

  bots: {
    greedy: (game, seed) => new GreedyAgent(game, seed),
  },

  training: chessTrainingHints,
};

/** Registers chess in `registry` (the process-wide default unless given). */
export function registerChess(registry: GameRegistry = defaultRegistry): void {
  registry.register(chessPlugin);
}

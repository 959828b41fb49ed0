/**
 * The chess plugin: config schema, training hints, bots and registration.
 */
import {
  ConfigError,
  defaultRegistry,
  GAME_CONTRACT_VERSION,
  type ConfigSchema,
  type Game,
  type GamePlugin,
  type GameRegistry,
  type ResolvedConfig,
  type TrainingHints,
} from '@az/core';
import { GreedyAgent } from './bots.js';
import { CHESS_TRAITS, ChessGame, DEFAULT_HISTORY } from './game.js';
import { describeOutcome } from './notation.js';
import { completeFen, DEFAULT_MAX_PLIES, fenProblem, materialBalance, outcomeOf, stateFromFen, type ChessState, type Termination } from './state.js';

export const chessConfigSchema: ConfigSchema = {
  maxPlies: {
    type: 'int',
    default: DEFAULT_MAX_PLIES,
    min: 1,
    max: 100_000,
    description: 'game length cap in plies (half-moves); a game still going after that many is drawn',
    // The input planes do not show the ply count or the cap: a model trained on short games can play
    // long ones (az eval --config maxPlies=512).
    modelIndependent: true,
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
    // The rules never read it: a model found for a chess game may have been trained with any history.
    inputOnly: true,
  },
};

/**
 * Defaults for a CPU run of under an hour, each chosen by measurement on 2 cores (README "Training" has
 * the figures): a small tower (16 filters, 2 blocks), the value head pooled over the board (a flattened
 * head did not learn that material matters), no history planes (22 input channels instead of 49), and
 * short games: 100 plies, then adjudicated on material (`adjudicateLead: 1`, a game rule, off by
 * default). Value targets are shaped with material (`valueShaping: 0.5`, see
 * `ChessGame.estimateReturns`): on game results alone the value head did not learn. The input planes do
 * not show the cap, so the model then plays full-length games. Every move is sampled from the visit
 * counts: with the most-visited move after 30 plies, self-play collapsed into threefold repetitions. A
 * trained model plays with 800 simulations (`az play`, `az eval`): fewer rarely visit the reply that
 * takes a hanging piece. It plays with its values scaled by 0.9 (`playValueScale`, with the search's
 * proof of results): shaped values call a position far ahead on material won, as much as a mate, and
 * without the scale and proof the model drew won games at the move limit.
 */
export const chessTrainingHints: TrainingHints = {
  gameConfig: { maxPlies: 100, history: 0, adjudicateLead: 1 },
  network: { kind: 'resnet', filters: 16, blocks: 2, valueHead: 'pool', valueFilters: 32 },
  simulations: 64,
  playSimulations: 800,
  playValueScale: 0.9,
  temperatureMoves: 100,
  valueShaping: 0.5,
  dirichletAlpha: 0.3,
  gamesPerIteration: 128,
  parallelGames: 64,
  iterations: 20,
  trainingSteps: 100,
  batchSize: 256,
  replayCapacity: 100_000,
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
  outcomeMetrics: chessOutcomeMetrics,
};

/** The ways a chess game ends, as `az eval` metric names (one is 1 per finished game, the rest 0). */
const ENDINGS: readonly Termination[] = ['checkmate', 'stalemate', 'fifty-move rule', 'threefold repetition', 'insufficient material', 'move limit', 'material adjudication'];

/**
 * How a game ended and where the material stood, per seat, for `az eval`: a model that wins material
 * but not games shows it here (draws by repetition, fifty moves or insufficient material, with a lead).
 */
export function chessOutcomeMetrics(_game: Game<ChessState>, finalState: ChessState, seat: number): Record<string, number> {
  const outcome = outcomeOf(finalState);
  const metrics: Record<string, number> = {};
  for (const ending of ENDINGS) metrics[`ended by ${ending}`] = outcome?.termination === ending ? 1 : 0;
  metrics['plies'] = finalState.plies;
  metrics['material lead at the end'] = (seat === 0 ? 1 : -1) * materialBalance(finalState);
  return metrics;
}

/** Registers chess in `registry` (the process-wide default unless given). */
export function registerChess(registry: GameRegistry = defaultRegistry): void {
  registry.register(chessPlugin);
}

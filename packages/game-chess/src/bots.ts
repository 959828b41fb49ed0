/**
 * Baseline players beyond core's random one.
 */
import { Rng, type Agent, type Game } from '@az/core';
import { cloneChess, internals } from './internals.js';
import { generateLegalMoves, inCheck } from './legal-moves.js';
import { legalActionsOf, legalMovesOf, PIECE_VALUES, type ChessState } from './state.js';

/** Material values (pawns) the greedy bot counts (defined with the state, which adjudicates with them). */
export { PIECE_VALUES };
const MATE_SCORE = 1000;

/**
 * One-ply material-greedy: mates in one if it can, otherwise plays the move that wins the most material
 * right away (the captured piece, plus what a promotion adds), ties broken at random (seeded). It does not
 * look at the reply, so it happily gives its queen away for a pawn: a baseline, not an opponent.
 */
export class GreedyAgent implements Agent<ChessState> {
  readonly name = 'greedy';
  private readonly rng: Rng;

  constructor(
    readonly game: Game<ChessState>,
    seed = 0,
  ) {
    this.rng = new Rng(seed);
  }

  async act(states: readonly ChessState[]): Promise<Int32Array> {
    const out = new Int32Array(states.length);
    for (let i = 0; i < states.length; i++) out[i] = this.choose(states[i]);
    return out;
  }

  /** The chosen action for one state (synchronous). */
  choose(state: ChessState): number {
    const moves = legalMovesOf(state);
    const actions = legalActionsOf(state);
    if (moves.length === 0) throw new Error('greedy: no legal move (the game is over)');
    // Try each move on a private copy, so the state (and anything sharing its caches) is never touched.
    const scratch = cloneChess(state.chess);
    const c = internals(scratch);
    let best = -Infinity;
    const tied: number[] = [];
    for (let i = 0; i < moves.length; i++) {
      const move = moves[i];
      let score = (move.captured ? PIECE_VALUES[move.captured] : 0) + (move.promotion ? PIECE_VALUES[move.promotion] - PIECE_VALUES.p : 0);
      c._makeMove(move);
      if (inCheck(scratch) && generateLegalMoves(scratch).length === 0) score = MATE_SCORE;
      c._undoMove();
      if (score > best) {
        best = score;
        tied.length = 0;
      }
      if (score === best) tied.push(i);
    }
    return actions[tied[this.rng.int(tied.length)]];
  }
}

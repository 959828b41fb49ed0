import type { Encoder, Masker } from '@az/core';
import { CELLS, EMPTY, NO_WINNER, type TicTacToeState } from './rules.js';

/** Floats per position: three 9-cell planes. */
export const ENCODING_SIZE = 3 * CELLS;

/**
 * Flat encoding, shape [27], three planes of 9 cells each (cell order as the actions, row-major from
 * the top-left), all relative to the perspective seat so one network plays both colours:
 *
 *   [0..9)   1 where the perspective seat has a mark, else 0
 *   [9..18)  1 where the opponent has a mark, else 0
 *   [18..27) all 1 if the perspective seat is the one to move, all 0 otherwise
 *
 * Why a to-move plane rather than an "empty" plane: empty is 1 - mine - theirs, which the first layer
 * can compute for free, so it adds no information. Whose turn it is, on the other hand, cannot be
 * recovered from the two mark planes once colours are made relative: with equal mark counts the
 * perspective seat is either X to move or O waiting. Search normally encodes from the mover's view
 * (plane all 1), but the encoding is then also complete when a caller asks for the other seat's view.
 * After the last move the plane describes the seat that would have moved next (the loser, or O after
 * a draw).
 */
export class TicTacToeEncoder implements Encoder<TicTacToeState> {
  readonly version = 'tictactoe-v1';
  readonly shape: readonly number[] = [ENCODING_SIZE];
  readonly size = ENCODING_SIZE;

  encode(state: TicTacToeState, perspective: number, out: Float32Array, offset: number): void {
    if (perspective !== 0 && perspective !== 1) throw new RangeError(`tictactoe: perspective must be 0 or 1, got ${perspective}`);
    const mine = perspective + 1;
    const theirs = 2 - perspective;
    const toMove = state.toMove === perspective ? 1 : 0;
    const b = state.board;
    for (let i = 0; i < CELLS; i++) {
      const v = b[i];
      out[offset + i] = v === mine ? 1 : 0;
      out[offset + CELLS + i] = v === theirs ? 1 : 0;
      out[offset + 2 * CELLS + i] = toMove;
    }
  }
}

/** Action a (0..8) = place the mover's mark on cell a. Legal iff the cell is empty and the game is on. */
export class TicTacToeMasker implements Masker<TicTacToeState> {
  readonly actionSize = CELLS;

  fillMask(state: TicTacToeState, out: Uint8Array, offset = 0): number {
    const b = state.board;
    if (state.winner !== NO_WINNER || state.moveCount === CELLS) {
      out.fill(0, offset, offset + CELLS);
      return 0;
    }
    let count = 0;
    for (let i = 0; i < CELLS; i++) {
      const legal = b[i] === EMPTY ? 1 : 0;
      out[offset + i] = legal;
      count += legal;
    }
    return count;
  }
}

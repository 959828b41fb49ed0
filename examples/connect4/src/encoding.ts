import type { Encoder, Masker } from '@az/core';
import { isOver, type Connect4Rules, type Connect4State } from './rules.js';

export const PLANES = 3;

/**
 * Spatial encoding, HWC, shape [rows, cols, 3] (6 x 7 x 3 by default), row 0 at the top as printed:
 *
 *   channel 0  1 where the perspective seat has a disc
 *   channel 1  1 where the other seat has a disc
 *   channel 2  all 1 when the perspective seat is the one to move, else all 0
 *
 * Relative to the perspective seat ("mine"/"theirs", not X/O), so one network plays both sides and
 * its value output is the value for the perspective seat. The to-move plane is needed because the
 * disc counts alone do not say whose turn it is from both seats' points of view (equal counts mean
 * "X to move" for X but "O waiting" for O); search encodes from the mover's view, but the encoding
 * stays complete for the other view too. Planes (not a flat vector) so convolutional networks
 * (`--network resnet:...`) see neighbouring cells as neighbours; an MLP takes them flattened.
 */
export class Connect4Encoder implements Encoder<Connect4State> {
  readonly version = 'connect4-planes-v1';
  readonly shape: readonly number[];
  readonly size: number;

  constructor(private readonly rules: Connect4Rules) {
    this.shape = [rules.rows, rules.cols, PLANES];
    this.size = rules.rows * rules.cols * PLANES;
  }

  encode(state: Connect4State, perspective: number, out: Float32Array, offset: number): void {
    if (perspective !== 0 && perspective !== 1) throw new RangeError(`connect4: perspective must be 0 or 1, got ${perspective}`);
    const mine = perspective + 1;
    const toMove = state.toMove === perspective ? 1 : 0;
    const cells = this.rules.rows * this.rules.cols;
    for (let i = 0; i < cells; i++) {
      const v = state.board[i];
      const o = offset + i * PLANES;
      out[o] = v === mine ? 1 : 0;
      out[o + 1] = v !== 0 && v !== mine ? 1 : 0;
      out[o + 2] = toMove;
    }
  }
}

/** Action c = drop in column c (0-based, left to right); legal while the game is on and the column has room. */
export class Connect4Masker implements Masker<Connect4State> {
  readonly actionSize: number;

  constructor(private readonly rules: Connect4Rules) {
    this.actionSize = rules.cols;
  }

  fillMask(state: Connect4State, out: Uint8Array, offset = 0): number {
    const over = isOver(this.rules, state);
    let count = 0;
    for (let c = 0; c < this.rules.cols; c++) {
      const legal = !over && state.heights[c] < this.rules.rows ? 1 : 0;
      out[offset + c] = legal;
      count += legal;
    }
    return count;
  }
}

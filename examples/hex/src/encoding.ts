import type { Encoder, Masker, Symmetry } from '@az/core';
import { type HexRules, type HexState } from './rules.js';

/** Planes of the input, per cell. */
export const PLANES = 4;

/**
 * The network input as seen by one seat (`perspective`): planes over the board, shape
 * [size, size, PLANES] (rows, columns, channels: HWC):
 *
 *   plane 0   1 where `perspective` has a stone
 *   plane 1   1 where the other seat has a stone
 *   plane 2   1 everywhere when `perspective` is seat 0 (joins top and bottom), else 0 (joins left and right)
 *   plane 3   1 everywhere when `perspective` is the seat to move
 *
 * "Mine" and "theirs", so one network plays both seats; the board keeps its absolute orientation
 * (actions are absolute cells), and plane 2 says which pair of edges "mine" has to join.
 * Element (row r, column c, plane p) is at (r * size + c) * PLANES + p.
 */
export class HexEncoder implements Encoder<HexState> {
  /** Change this whenever the encoding changes: checkpoints store it and refuse a mismatch. */
  readonly version = 'hex-rhombus-planes-v1';
  readonly shape: readonly number[];
  readonly size: number;

  constructor(private readonly rules: HexRules) {
    this.shape = [rules.size, rules.size, PLANES];
    this.size = rules.size * rules.size * PLANES;
  }

  encode(state: HexState, perspective: number, out: Float32Array, offset: number): void {
    const topBottom = perspective === 0 ? 1 : 0;
    const toMove = state.toMove === perspective ? 1 : 0;
    for (let cell = 0; cell < state.cells.length; cell++) {
      const owner = state.cells[cell];
      const at = offset + cell * PLANES;
      out[at] = owner === perspective ? 1 : 0;
      out[at + 1] = owner >= 0 && owner !== perspective ? 1 : 0;
      out[at + 2] = topBottom;
      out[at + 3] = toMove;
    }
  }
}

/** Action a (0 .. size*size-1) places a stone on cell a. */
export class HexMasker implements Masker<HexState> {
  readonly actionSize: number;

  constructor(private readonly rules: HexRules) {
    this.actionSize = rules.size * rules.size;
  }

  fillMask(state: HexState, out: Uint8Array, offset = 0): number {
    const over = state.winner >= 0;
    let count = 0;
    for (let a = 0; a < this.actionSize; a++) {
      const legal = !over && state.cells[a] === -1 ? 1 : 0;
      out[offset + a] = legal;
      count += legal;
    }
    return count;
  }
}

/**
 * The rhombus's one symmetry that keeps each seat's edges: the half turn (r, c) -> (n-1-r, n-1-c).
 * (The reflection across the long diagonal swaps the seats' edges, so it is not a symmetry of a
 * position with its returns.)
 */
export function hexSymmetries(rules: HexRules): Symmetry[] {
  const n = rules.size;
  const actionMap = new Int32Array(n * n);
  const inputMap = new Int32Array(n * n * PLANES);
  for (let cell = 0; cell < n * n; cell++) {
    const to = n * n - 1 - cell;
    actionMap[cell] = to;
    for (let p = 0; p < PLANES; p++) inputMap[cell * PLANES + p] = to * PLANES + p;
  }
  return [{ inputMap, actionMap }];
}

import type { Symmetry } from '@az/core';
import { CELLS } from './rules.js';
import { ENCODING_SIZE } from './encoding.js';

/** Where cell (r, c) of the 3x3 board goes under each of the 7 non-identity rotations/reflections. */
const TRANSFORMS: readonly ((r: number, c: number) => [number, number])[] = [
  (r, c) => [c, 2 - r], // rotate 90
  (r, c) => [2 - r, 2 - c], // rotate 180
  (r, c) => [2 - c, r], // rotate 270
  (r, c) => [r, 2 - c], // mirror left-right
  (r, c) => [2 - r, c], // mirror top-bottom
  (r, c) => [c, r], // main diagonal
  (r, c) => [2 - c, 2 - r], // anti-diagonal
];

/**
 * The 7 non-identity symmetries of the board, as forward maps over actions (cells) and over the
 * 27-float encoding (each of the three planes is permuted the same way).
 */
export function ticTacToeSymmetries(): Symmetry[] {
  return TRANSFORMS.map((t) => {
    const actionMap = new Int32Array(CELLS);
    for (let cell = 0; cell < CELLS; cell++) {
      const [r, c] = t(Math.floor(cell / 3), cell % 3);
      actionMap[cell] = r * 3 + c;
    }
    const inputMap = new Int32Array(ENCODING_SIZE);
    for (let i = 0; i < ENCODING_SIZE; i++) inputMap[i] = Math.floor(i / CELLS) * CELLS + actionMap[i % CELLS];
    return { inputMap, actionMap };
  });
}

// Test support (not built into dist: tsconfig.build.json leaves out src/**/test-*.ts).
import type { Game } from '@az/core';
import { encodeGameRecord, type GameRecord } from './game-record.js';

/**
 * The bytes of a synthetic game record of `game` (two seats): `length` positions of zero inputs, a
 * one-action policy over the first actions in turn, won by seat `winner`. For transport doubles that
 * feed the trainer games without playing them.
 */
export function syntheticRecord(game: Game<unknown>, length: number, winner: number, weightsVersion: number): Uint8Array {
  const A = game.masker.actionSize;
  const r: GameRecord = {
    length,
    inputSize: game.encoder.size,
    numSeats: 2,
    inputs: new Float32Array(length * game.encoder.size),
    policyOffsets: Int32Array.from({ length: length + 1 }, (_, i) => i),
    policyIndex: Int32Array.from({ length }, (_, i) => i % A),
    policyProb: new Float32Array(length).fill(1),
    legalOffsets: Int32Array.from({ length: length + 1 }, (_, i) => i),
    legalIndex: Int32Array.from({ length }, (_, i) => i % A),
    values: new Float32Array(length * 2),
    returns: Float32Array.from([winner === 0 ? 1 : -1, winner === 1 ? 1 : -1]),
    weightsVersion,
  };
  return encodeGameRecord(r);
}

import { describe, expect, it } from 'vitest';
import { Rng } from '@az/core';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import { ticTacToePlugin, type TicTacToeState } from '@az/game-tictactoe';
import { decodeGameRecord, encodeGameRecord, gameRecordContentProblem, gameRecordProblem, type GameRecord } from './game-record.js';
import { poisonedRecords } from './test-records.js';
import { SelfPlay } from './self-play.js';

async function ticTacToeRecord(seed: number): Promise<GameRecord> {
  const game = ticTacToePlugin.create({});
  const engine = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 2, { simulations: 16, leavesPerTree: 2, seed });
  const records: GameRecord[] = [];
  await new SelfPlay(game, engine, { temperatureMoves: 2, seed }).play(1, (r) => records.push(r));
  return records[0];
}

/** A 5-position, 2-seat record whose inputs are `inputs` (5 * inputSize values) and whose other fields vary. */
function recordWith(inputs: Float32Array): GameRecord {
  const length = 5;
  return {
    length,
    inputSize: inputs.length / length,
    numSeats: 2,
    inputs,
    policyOffsets: Int32Array.from([0, 2, 3, 5, 6, 8]),
    policyIndex: Int32Array.from([0, 3, 1, 2, 4, 0, 1, 2]),
    policyProb: Float32Array.from([0.25, 0.75, 1, 0.5, 0.5, 1, 0.125, 0.875]),
    legalOffsets: Int32Array.from([0, 3, 5, 8, 9, 11]),
    legalIndex: Int32Array.from([0, 3, 4, 1, 2, 2, 4, 5, 0, 1, 2]),
    values: Float32Array.from([1, -1, -1, 1, 1, -1, -1, 1, 1, -1]),
    returns: Float32Array.from([1, -1]),
    weightsVersion: 7,
  };
}

function expectSameRecord(back: GameRecord, r: GameRecord): void {
  expect(back.length).toBe(r.length);
  expect(back.inputSize).toBe(r.inputSize);
  expect(back.numSeats).toBe(r.numSeats);
  expect(back.weightsVersion).toBe(r.weightsVersion);
  // Bit patterns, so -0 and NaN payloads count.
  expect(Array.from(new Uint32Array(back.inputs.buffer, back.inputs.byteOffset, back.inputs.length))).toEqual(
    Array.from(new Uint32Array(r.inputs.buffer, r.inputs.byteOffset, r.inputs.length)),
  );
  for (const key of ['policyOffsets', 'policyIndex', 'policyProb', 'legalOffsets', 'legalIndex', 'values', 'returns'] as const) {
    expect(Array.from(back[key]), key).toEqual(Array.from(r[key]));
  }
}

const magicOf = (bytes: Uint8Array): string => String.fromCharCode(bytes[3], bytes[2], bytes[1], bytes[0]);
const widthOf = (bytes: Uint8Array): number => new DataView(bytes.buffer, bytes.byteOffset).getInt32(28, true);

describe('GameRecord binary form', () => {
  it('round-trips a self-play record, with its inputs packed as 1-bit palette indices', async () => {
    const r = await ticTacToeRecord(3);
    const bytes = encodeGameRecord(r);
    expect(magicOf(bytes)).toBe('AZGT');
    expect(widthOf(bytes)).toBe(1);
    // The inputs take 4 bytes of palette size, 2 palette entries and one bit each instead of 4 bytes each.
    const rawBytes = 4 * (8 + r.inputs.length + r.policyOffsets.length + 2 * r.policyIndex.length + r.values.length + r.returns.length + r.legalOffsets.length + r.legalIndex.length);
    expect(rawBytes - bytes.length).toBe(4 * r.inputs.length - (12 + (((Math.ceil(r.inputs.length / 8) + 3) >> 2) << 2)));
    expectSameRecord(decodeGameRecord(bytes), r);
  });

  it('picks 2, 4 or 8 bits by the number of distinct values, keeps bit patterns, and falls back to float32 past 256', () => {
    const rng = new Rng(11);
    for (const [distinct, bits] of [
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 4],
      [16, 4],
      [17, 8],
      [256, 8],
      [257, 0],
    ] as const) {
      // Values 0..distinct-1 scaled, each at least once, the rest drawn at random; -0 and NaN among them.
      const values = Float32Array.from({ length: distinct }, (_, i) => (i === 1 ? -0 : i === 2 ? NaN : i / 100));
      const inputs = new Float32Array(5 * 80);
      for (let i = 0; i < inputs.length; i++) inputs[i] = i < distinct ? values[i] : values[rng.int(distinct)];
      const r = recordWith(inputs);
      const bytes = encodeGameRecord(r);
      expect(widthOf(bytes), `${distinct} distinct values`).toBe(bits);
      expect(magicOf(bytes)).toBe(bits === 0 ? 'AZGS' : 'AZGT');
      expectSameRecord(decodeGameRecord(bytes), r);
    }
  });

  it('decodes the float32 form, unaligned too', () => {
    const inputs = Float32Array.from({ length: 5 * 300 }, (_, i) => i * 0.5);
    const r = recordWith(inputs);
    const bytes = encodeGameRecord(r);
    expect(magicOf(bytes)).toBe('AZGS');
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expectSameRecord(decodeGameRecord(shifted.subarray(1)), r);
  });

  it('rejects truncation, a bad magic number, a bad width and palette indices past the palette', async () => {
    const r = await ticTacToeRecord(4);
    const bytes = encodeGameRecord(r);
    expect(() => decodeGameRecord(bytes.subarray(0, bytes.length - 8))).toThrow(/truncated/);
    expect(() => decodeGameRecord(bytes.subarray(0, 20))).toThrow(/truncated header/);
    const badMagic = bytes.slice();
    badMagic[0] ^= 0xff;
    expect(() => decodeGameRecord(badMagic)).toThrow(/magic/);
    const badWidth = bytes.slice();
    new DataView(badWidth.buffer).setInt32(28, 3, true);
    expect(() => decodeGameRecord(badWidth)).toThrow(/input width 3/);
    // Three distinct values at 2 bits: slot 3 is past a palette of 3.
    const three = recordWith(Float32Array.from({ length: 5 * 8 }, (_, i) => i % 3));
    const packed = encodeGameRecord(three);
    expect(widthOf(packed)).toBe(2);
    const pastPalette = packed.slice();
    // Header (32 bytes), palette size (4), 3 palette entries (12): the first packed byte.
    pastPalette[32 + 4 + 12] |= 0b11;
    expect(() => decodeGameRecord(pastPalette)).toThrow(/past the palette/);
  });

  it('checks a header against the run before decoding: exact size for both forms, shapes, weights version, palette size', async () => {
    const packed = encodeGameRecord(await ticTacToeRecord(5));
    const raw = encodeGameRecord(recordWith(Float32Array.from({ length: 5 * 300 }, (_, i) => i)));
    const run = { inputSize: 27, numSeats: 2, weightsVersion: 0 };
    expect(decodeGameRecord(packed).inputSize).toBe(27);
    expect(gameRecordProblem(packed, run)).toBeUndefined();
    expect(gameRecordProblem(raw, { inputSize: 300, numSeats: 2, weightsVersion: 7 })).toBeUndefined();
    expect(gameRecordProblem(packed, { ...run, inputSize: 28 })).toMatch(/27 inputs and 2 seats do not fit this run \(28, 2\)/);
    expect(gameRecordProblem(packed, { ...run, weightsVersion: 1 })).toMatch(/weights version 0 but the entry 1/);
    expect(gameRecordProblem(packed.subarray(0, packed.length - 4), run)).toMatch(/header describes/);
    const longer = new Uint8Array(packed.length + 4);
    longer.set(packed);
    expect(gameRecordProblem(longer, run)).toMatch(/header describes/);
    expect(gameRecordProblem(packed.subarray(0, 30), run)).toMatch(/impossible/);
    const bigPalette = packed.slice();
    new DataView(bigPalette.buffer).setInt32(32, 3, true);
    expect(gameRecordProblem(bigPalette, run)).toMatch(/palette of 3 values at 1 bits/);
  });
});

describe('gameRecordContentProblem', () => {
  const limits = { inputSize: 27, numSeats: 2, actionSize: 9 };

  it('passes the records self-play makes', async () => {
    for (const seed of [1, 2, 3, 4]) expect(gameRecordContentProblem(await ticTacToeRecord(seed), limits)).toBeUndefined();
  });

  it('names what is wrong with every kind of poisoned record whose header is consistent', async () => {
    const base = await ticTacToeRecord(5);
    const poisons = poisonedRecords(base, limits.actionSize);
    expect(poisons.length).toBeGreaterThanOrEqual(16);
    for (const { kind, record, problem } of poisons) {
      // The header alone cannot tell: these are the records that used to reach the replay buffer.
      expect(gameRecordProblem(encodeGameRecord(record), { ...limits, weightsVersion: record.weightsVersion }), kind).toBeUndefined();
      expect(gameRecordContentProblem(record, limits) ?? `${kind}: accepted`, kind).toMatch(problem);
    }
  });

  it('refuses a legal action listed twice and a policy naming one action twice', async () => {
    const r = await ticTacToeRecord(6);
    const twiceLegal = { ...r, legalIndex: r.legalIndex.slice() };
    twiceLegal.legalIndex[1] = twiceLegal.legalIndex[0];
    expect(gameRecordContentProblem(twiceLegal, limits)).toMatch(/^position 0: legal action \d+ is listed twice/);
    expect(gameRecordContentProblem(r, { ...limits, actionSize: 4 })).toMatch(/outside \[0, 4\)/);
    expect(gameRecordContentProblem(r, { ...limits, numSeats: 3 })).toMatch(/do not fit this run/);
  });
});

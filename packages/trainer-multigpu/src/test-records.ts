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

/** One way a well-formed record (its header consistent) can still be poisonous, and what the refusal names. */
export interface PoisonedRecord {
  readonly kind: string;
  readonly record: GameRecord;
  readonly problem: RegExp;
}

/**
 * `base` (at least two positions, each with a policy over some of its legal actions, in an action space
 * of `actionSize`) spoiled in each way a forged or buggy worker could: each keeps the record's header
 * consistent, so only a check of its content finds it.
 */
export function poisonedRecords(base: GameRecord, actionSize: number): PoisonedRecord[] {
  const copy = (): { -readonly [K in keyof GameRecord]: GameRecord[K] } => ({
    ...base,
    inputs: base.inputs.slice(),
    policyOffsets: base.policyOffsets.slice(),
    policyIndex: base.policyIndex.slice(),
    policyProb: base.policyProb.slice(),
    legalOffsets: base.legalOffsets.slice(),
    legalIndex: base.legalIndex.slice(),
    values: base.values.slice(),
    returns: base.returns.slice(),
  });
  const spoil = (kind: string, problem: RegExp, change: (r: ReturnType<typeof copy>) => void): PoisonedRecord => {
    const r = copy();
    change(r);
    return { kind, record: r, problem };
  };
  const nnz = base.policyIndex.length;
  // A position with a policy and an action not legal there (tic-tac-toe: any after the first move).
  const legalAt = (i: number): Set<number> => new Set(base.legalIndex.subarray(base.legalOffsets[i], base.legalOffsets[i + 1]));
  const at = Array.from({ length: base.length }, (_, i) => i).find((i) => legalAt(i).size < actionSize && base.policyOffsets[i + 1] > base.policyOffsets[i]) ?? 0;
  const illegal = Array.from({ length: actionSize }, (_, a) => a).find((a) => !legalAt(at).has(a)) ?? 0;
  return [
    spoil('value 1e30', /position 0: the value target of seat 0 is 1e\+30, outside \[-1, 1\]/, (r) => void (r.values[0] = 1e30)),
    spoil('value NaN', /value target of seat 1 is NaN/, (r) => void (r.values[1] = NaN)),
    spoil('policy 1e30', /policy probability of action \d+ is 1e\+30/, (r) => void (r.policyProb[0] = 1e30)),
    spoil('policy -0.5', /policy probability of action \d+ is -0\.5/, (r) => void (r.policyProb[0] = -0.5)),
    spoil('policy sums to 0.5', /policy probabilities sum to 0\.5/, (r) => r.policyProb.forEach((p, k) => (r.policyProb[k] = p / 2))),
    spoil('inputs 1e30', /input \d+ is 1e\+30/, (r) => void (r.inputs[r.inputs.length - 1] = 1e30)),
    spoil('return 1e30', /return of seat 0 is 1e\+30/, (r) => void (r.returns[0] = 1e30)),
    spoil('policyOffsets past nnz', new RegExp(`policy offsets end at ${nnz + 4} but there are ${nnz} entries`), (r) => void (r.policyOffsets[r.length] = nnz + 4)),
    spoil('non-monotone policyOffsets', /policy offsets decrease at position 1/, (r) => void (r.policyOffsets[1] = r.policyOffsets[2] + 1)),
    spoil('non-monotone legalOffsets', /legal offsets decrease at position 1/, (r) => void (r.legalOffsets[1] = r.legalOffsets[2] + 1)),
    spoil('legalOffsets starting past 0', /legal offsets start at 1, not 0/, (r) => void (r.legalOffsets[0] = 1)),
    spoil('policy mass outside the legal set', new RegExp(`position ${at}: the policy puts [\\d.e-]+ on action ${illegal}, which is not legal there`), (r) => void (r.policyIndex[r.policyOffsets[at]] = illegal)),
    spoil('negative policy index', /policy action -1 is outside \[0, \d+\)/, (r) => void (r.policyIndex[0] = -1)),
    spoil('policy index >= actionSize', new RegExp(`policy action ${actionSize} is outside \\[0, ${actionSize}\\)`), (r) => void (r.policyIndex[0] = actionSize)),
    spoil('negative legal index', /legal action -3 is outside/, (r) => void (r.legalIndex[0] = -3)),
    spoil('legal index >= actionSize', new RegExp(`legal action ${actionSize + 7} is outside`), (r) => void (r.legalIndex[0] = actionSize + 7)),
  ];
}

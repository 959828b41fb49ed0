import { readFileSync, writeFileSync } from 'node:fs';
import type { Rng, Symmetry } from '@az/core';
import type { GameRecord } from './game-record.js';

export interface ReplayShape {
  readonly inputSize: number;
  readonly actionSize: number;
  readonly numSeats: number;
  /**
   * Policy entries kept per position (sparse). Visit distributions only cover searched children;
   * a position with more non-zero entries keeps the largest and renormalises.
   */
  readonly policyWidth: number;
}

/**
 * A ring of training positions in preallocated flat arrays (inputs, sparse policy targets, per-seat
 * value targets, legal actions as one bit per action). Oldest positions are overwritten first.
 */
export class ReplayBuffer {
  readonly capacity: number;
  readonly shape: ReplayShape;
  private readonly inputs: Float32Array;
  private readonly policyIndex: Int32Array;
  private readonly policyProb: Float32Array;
  private readonly values: Float32Array;
  private readonly weightsVersion: Int32Array;
  /** `capacity * legalBytes`: bit a of a position's bytes is set when action a is legal there. */
  private readonly legal: Uint8Array;
  private readonly legalBytes: number;
  private next = 0;
  private filled = 0;
  /** Positions ever added (including overwritten ones). */
  totalAdded = 0;

  constructor(capacity: number, shape: ReplayShape) {
    if (!(capacity >= 1)) throw new RangeError('ReplayBuffer: capacity must be >= 1');
    this.capacity = capacity;
    this.shape = { ...shape, policyWidth: Math.min(shape.policyWidth, shape.actionSize) };
    this.inputs = new Float32Array(capacity * shape.inputSize);
    this.policyIndex = new Int32Array(capacity * this.shape.policyWidth).fill(-1);
    this.policyProb = new Float32Array(capacity * this.shape.policyWidth);
    this.values = new Float32Array(capacity * shape.numSeats);
    this.weightsVersion = new Int32Array(capacity);
    this.legalBytes = Math.ceil(shape.actionSize / 8);
    this.legal = new Uint8Array(capacity * this.legalBytes);
  }

  get size(): number {
    return this.filled;
  }

  addGame(record: GameRecord): void {
    const { inputSize, numSeats } = this.shape;
    if (record.inputSize !== inputSize || record.numSeats !== numSeats) {
      throw new Error(`replay buffer holds inputs of ${inputSize} and ${numSeats} seats; got a game record with ${record.inputSize} and ${record.numSeats}`);
    }
    for (let i = 0; i < record.length; i++) {
      const slot = this.next;
      this.inputs.set(record.inputs.subarray(i * inputSize, (i + 1) * inputSize), slot * inputSize);
      this.values.set(record.values.subarray(i * numSeats, (i + 1) * numSeats), slot * numSeats);
      this.storePolicy(slot, record, record.policyOffsets[i], record.policyOffsets[i + 1]);
      this.weightsVersion[slot] = record.weightsVersion;
      this.storeLegal(slot, record, record.legalOffsets[i], record.legalOffsets[i + 1]);
      this.next = (slot + 1) % this.capacity;
      if (this.filled < this.capacity) this.filled++;
      this.totalAdded++;
    }
  }

  private storeLegal(slot: number, record: GameRecord, from: number, to: number): void {
    const base = slot * this.legalBytes;
    this.legal.fill(0, base, base + this.legalBytes);
    for (let k = from; k < to; k++) {
      const a = record.legalIndex[k];
      this.legal[base + (a >> 3)] |= 1 << (a & 7);
    }
  }

  private storePolicy(slot: number, record: GameRecord, from: number, to: number): void {
    const W = this.shape.policyWidth;
    const base = slot * W;
    let n = to - from;
    let order: number[] | null = null;
    if (n > W) {
      order = [];
      for (let k = from; k < to; k++) order.push(k);
      order.sort((x, y) => record.policyProb[y] - record.policyProb[x]);
      order.length = W;
      n = W;
    }
    let total = 0;
    for (let j = 0; j < n; j++) {
      const k = order ? order[j] : from + j;
      this.policyIndex[base + j] = record.policyIndex[k];
      this.policyProb[base + j] = record.policyProb[k];
      total += record.policyProb[k];
    }
    if (order && total > 0) for (let j = 0; j < n; j++) this.policyProb[base + j] /= total;
    for (let j = n; j < W; j++) {
      this.policyIndex[base + j] = -1;
      this.policyProb[base + j] = 0;
    }
  }

  /**
   * Fills a training minibatch of `count` uniformly sampled positions: `inputs` (count * inputSize),
   * dense `policy` (count * actionSize) and `values` (count * numSeats). With `symmetries`, each
   * position is seen through one of them or the identity, chosen uniformly (data augmentation). With
   * `legal` (count * actionSize), each position's legal actions are written there as 1, the rest 0.
   */
  sample(count: number, rng: Rng, inputs: Float32Array, policy: Float32Array, values: Float32Array, symmetries: readonly Symmetry[] = [], legal?: Float32Array): void {
    if (this.filled === 0) throw new Error('replay buffer is empty');
    const { inputSize, actionSize, numSeats, policyWidth: W } = this.shape;
    policy.fill(0, 0, count * actionSize);
    for (let i = 0; i < count; i++) {
      const s = rng.int(this.filled);
      const k = symmetries.length ? rng.int(symmetries.length + 1) : 0;
      const sym = k > 0 ? symmetries[k - 1] : null;
      const src = s * inputSize;
      const dst = i * inputSize;
      if (sym) for (let e = 0; e < inputSize; e++) inputs[dst + sym.inputMap[e]] = this.inputs[src + e];
      else inputs.set(this.inputs.subarray(src, src + inputSize), dst);
      values.set(this.values.subarray(s * numSeats, (s + 1) * numSeats), i * numSeats);
      for (let j = 0; j < W; j++) {
        const a = this.policyIndex[s * W + j];
        if (a < 0) break;
        policy[i * actionSize + (sym ? sym.actionMap[a] : a)] = this.policyProb[s * W + j];
      }
      if (legal) {
        const bits = s * this.legalBytes;
        const row = i * actionSize;
        for (let a = 0; a < actionSize; a++) legal[row + (sym ? sym.actionMap[a] : a)] = (this.legal[bits + (a >> 3)] >> (a & 7)) & 1;
      }
    }
  }

  /** Positions in the buffer written by a network older than `minVersion`. */
  countOlderThan(minVersion: number): number {
    let n = 0;
    for (let i = 0; i < this.filled; i++) if (this.weightsVersion[i] < minVersion) n++;
    return n;
  }

  /** Writes the buffer to one binary file (header JSON line + raw arrays) so a run can resume. */
  save(path: string): void {
    const header = JSON.stringify({ format: 'az-replay', version: 2, capacity: this.capacity, shape: this.shape, next: this.next, filled: this.filled, totalAdded: this.totalAdded });
    const headerBytes = Buffer.from(header + '\n', 'utf8');
    const parts = [this.inputs, this.policyIndex, this.policyProb, this.values, this.weightsVersion, this.legal].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    const lengthPrefix = Buffer.alloc(4);
    lengthPrefix.writeUInt32LE(headerBytes.length);
    writeFileSync(path, Buffer.concat([lengthPrefix, headerBytes, ...parts]));
  }

  static load(path: string, expected?: ReplayShape): ReplayBuffer {
    const bytes = readFileSync(path);
    const fail = (why: string): never => {
      throw new Error(`replay buffer ${path}: ${why}`);
    };
    if (bytes.length < 4) fail('file is truncated');
    const headerLength = bytes.readUInt32LE(0);
    if (4 + headerLength > bytes.length) fail('file is truncated');
    let header: { format?: string; version?: number; capacity: number; shape: ReplayShape; next: number; filled: number; totalAdded: number };
    try {
      header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8'));
    } catch {
      return fail('header is not valid JSON (corrupt file)');
    }
    if (header.format !== 'az-replay') fail('not an az replay buffer');
    if (expected && (expected.inputSize !== header.shape.inputSize || expected.actionSize !== header.shape.actionSize || expected.numSeats !== header.shape.numSeats)) {
      fail(`shape ${JSON.stringify(header.shape)} does not match the game's ${JSON.stringify(expected)}`);
    }
    const buf = new ReplayBuffer(header.capacity, header.shape);
    let off = 4 + headerLength;
    const body = bytes.subarray(off);
    // Version 1 files (before legal actions were kept) load with every action legal: an unmasked softmax, as then.
    const arrays = [buf.inputs, buf.policyIndex, buf.policyProb, buf.values, buf.weightsVersion, ...(header.version === 1 ? [] : [buf.legal])];
    if (header.version === 1) buf.legal.fill(0xff);
    const need = arrays.reduce((sum, a) => sum + a.byteLength, 0);
    if (body.length !== need) fail(`expected ${need} bytes of data after the header, found ${body.length} (truncated or corrupt)`);
    for (const arr of arrays) {
      new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(bytes.subarray(off, off + arr.byteLength));
      off += arr.byteLength;
    }
    buf.next = header.next;
    buf.filled = header.filled;
    buf.totalAdded = header.totalAdded;
    return buf;
  }
}

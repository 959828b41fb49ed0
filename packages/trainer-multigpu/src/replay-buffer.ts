import { readFileSync } from 'node:fs';
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

/** The arrays of a run of consecutive positions, in the order they are stored (see `exportRange`). */
export interface ReplayRange {
  /** Global index (count of positions added before it) of the first position. */
  readonly first: number;
  readonly count: number;
  readonly inputs: Float32Array;
  readonly policyIndex: Int32Array;
  readonly policyProb: Float32Array;
  readonly values: Float32Array;
  readonly weightsVersion: Int32Array;
  readonly legal: Uint8Array;
}

/** A game record or stored positions with NaN or infinite values: training on them would poison the network. */
export class NonFiniteReplayError extends Error {}

/**
 * A ring of training positions in flat arrays (inputs, sparse policy targets, per-seat value targets,
 * legal actions as one bit per action). Oldest positions are overwritten first. The arrays grow (doubling)
 * as positions arrive, so memory follows what is filled, up to `capacity`. The position with global index g
 * (the g-th ever added) sits in slot g % capacity, so a buffer rebuilt from saved ranges samples exactly as
 * the original did.
 */
export class ReplayBuffer {
  readonly capacity: number;
  readonly shape: ReplayShape;
  private inputs: Float32Array;
  private policyIndex: Int32Array;
  private policyProb: Float32Array;
  private values: Float32Array;
  private weightsVersion: Int32Array;
  /** `allocated * legalBytes`: bit a of a position's bytes is set when action a is legal there. */
  private legal: Uint8Array;
  private readonly legalBytes: number;
  /** Slots the arrays hold now (grows to `capacity`). */
  private allocated = 0;
  private next = 0;
  private filled = 0;
  /** Positions ever added (including overwritten ones). */
  totalAdded = 0;

  constructor(capacity: number, shape: ReplayShape) {
    if (!(capacity >= 1)) throw new RangeError('ReplayBuffer: capacity must be >= 1');
    if (!Number.isSafeInteger(capacity)) throw new RangeError(`ReplayBuffer: capacity must be an integer, got ${capacity}`);
    this.capacity = capacity;
    this.shape = { ...shape, policyWidth: Math.min(shape.policyWidth, shape.actionSize) };
    this.legalBytes = Math.ceil(shape.actionSize / 8);
    this.inputs = new Float32Array(0);
    this.policyIndex = new Int32Array(0);
    this.policyProb = new Float32Array(0);
    this.values = new Float32Array(0);
    this.weightsVersion = new Int32Array(0);
    this.legal = new Uint8Array(0);
  }

  /** Bytes one stored position takes (what `capacity` positions will take once filled). */
  static bytesPerPosition(shape: ReplayShape): number {
    const W = Math.min(shape.policyWidth, shape.actionSize);
    return 4 * shape.inputSize + 8 * W + 4 * shape.numSeats + 4 + Math.ceil(shape.actionSize / 8);
  }

  get size(): number {
    return this.filled;
  }

  /** Slots the arrays hold now: memory in use is `allocatedPositions * bytesPerPosition`. */
  get allocatedPositions(): number {
    return this.allocated;
  }

  /** Grows the arrays so slot `slot` exists (doubling, capped at capacity). */
  private ensureSlot(slot: number): void {
    if (slot < this.allocated) return;
    const size = Math.min(this.capacity, Math.max(slot + 1, this.allocated * 2, 256));
    const { inputSize, numSeats } = this.shape;
    const W = this.shape.policyWidth;
    const grow = <T extends Float32Array | Int32Array | Uint8Array>(old: T, make: (n: number) => T, per: number): T => {
      const next = make(size * per);
      next.set(old);
      return next;
    };
    this.inputs = grow(this.inputs, (n) => new Float32Array(n), inputSize);
    const index = grow(this.policyIndex, (n) => new Int32Array(n), W);
    index.fill(-1, this.allocated * W);
    this.policyIndex = index;
    this.policyProb = grow(this.policyProb, (n) => new Float32Array(n), W);
    this.values = grow(this.values, (n) => new Float32Array(n), numSeats);
    this.weightsVersion = grow(this.weightsVersion, (n) => new Int32Array(n), 1);
    this.legal = grow(this.legal, (n) => new Uint8Array(n), this.legalBytes);
    this.allocated = size;
  }

  addGame(record: GameRecord): void {
    const { inputSize, numSeats } = this.shape;
    if (record.inputSize !== inputSize || record.numSeats !== numSeats) {
      throw new Error(`replay buffer holds inputs of ${inputSize} and ${numSeats} seats; got a game record with ${record.inputSize} and ${record.numSeats}`);
    }
    const bad = firstNonFinite(record.inputs) ?? firstNonFinite(record.values) ?? firstNonFinite(record.policyProb);
    if (bad !== null) throw new NonFiniteReplayError(`a game record holds a non-finite value (${bad}); it is not added to the replay buffer`);
    for (let i = 0; i < record.length; i++) {
      const slot = this.next;
      this.ensureSlot(slot);
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

  /** Global index of the oldest position still held. */
  get oldestIndex(): number {
    return this.totalAdded - this.filled;
  }

  /** Copies of the positions with global indices [from, totalAdded) (from >= oldestIndex), for saving. */
  exportRange(from: number): ReplayRange {
    if (from < this.oldestIndex || from > this.totalAdded) throw new RangeError(`exportRange: positions from ${from} are not held (held: ${this.oldestIndex}..${this.totalAdded})`);
    const count = this.totalAdded - from;
    const { inputSize, numSeats, policyWidth: W } = this.shape;
    const L = this.legalBytes;
    const out = {
      first: from,
      count,
      inputs: new Float32Array(count * inputSize),
      policyIndex: new Int32Array(count * W),
      policyProb: new Float32Array(count * W),
      values: new Float32Array(count * numSeats),
      weightsVersion: new Int32Array(count),
      legal: new Uint8Array(count * L),
    };
    for (let i = 0; i < count; i++) {
      const s = (from + i) % this.capacity;
      out.inputs.set(this.inputs.subarray(s * inputSize, (s + 1) * inputSize), i * inputSize);
      out.policyIndex.set(this.policyIndex.subarray(s * W, (s + 1) * W), i * W);
      out.policyProb.set(this.policyProb.subarray(s * W, (s + 1) * W), i * W);
      out.values.set(this.values.subarray(s * numSeats, (s + 1) * numSeats), i * numSeats);
      out.weightsVersion[i] = this.weightsVersion[s];
      out.legal.set(this.legal.subarray(s * L, (s + 1) * L), i * L);
    }
    return out;
  }

  /**
   * Puts saved positions back, in global-index order: each range must start where the buffer ends
   * (`totalAdded`), or earlier when the buffer is empty. Positions that the ring has since overwritten are
   * skipped by the caller's choice of ranges; here everything given is stored.
   */
  importRange(range: ReplayRange): void {
    if (this.filled === 0 && this.totalAdded === 0) this.totalAdded = range.first;
    if (range.first !== this.totalAdded) throw new RangeError(`importRange: positions from ${range.first} do not follow the buffer's ${this.totalAdded}`);
    const bad = firstNonFinite(range.inputs) ?? firstNonFinite(range.values) ?? firstNonFinite(range.policyProb);
    if (bad !== null) throw new NonFiniteReplayError(`saved positions hold a non-finite value (${bad})`);
    const { inputSize, numSeats, policyWidth: W } = this.shape;
    const L = this.legalBytes;
    for (let i = 0; i < range.count; i++) {
      const g = range.first + i;
      const s = g % this.capacity;
      this.ensureSlot(s);
      this.inputs.set(range.inputs.subarray(i * inputSize, (i + 1) * inputSize), s * inputSize);
      this.policyIndex.set(range.policyIndex.subarray(i * W, (i + 1) * W), s * W);
      this.policyProb.set(range.policyProb.subarray(i * W, (i + 1) * W), s * W);
      this.values.set(range.values.subarray(i * numSeats, (i + 1) * numSeats), s * numSeats);
      this.weightsVersion[s] = range.weightsVersion[i];
      this.legal.set(range.legal.subarray(i * L, (i + 1) * L), s * L);
    }
    this.totalAdded += range.count;
    this.filled = Math.min(this.capacity, this.filled + range.count);
    this.next = this.totalAdded % this.capacity;
  }
}

/** A description of the first NaN or infinite value, or null. */
function firstNonFinite(values: Float32Array): string | null {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return `${values[i]} at ${i}`;
  return null;
}

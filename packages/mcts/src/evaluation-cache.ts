import type { Game } from '@az/core';
import type { Evaluator, LeafBatch } from './evaluator.js';

/** A `CachingEvaluator`'s running counts, to judge whether the cache pays for its memory. */
export interface EvaluationCacheStats {
  /** Leaves asked about. */
  lookups: number;
  /** Leaves answered without a position sent to the inner evaluator (found in the cache, or repeated in the same batch). */
  hits: number;
}

/**
 * Remembers an evaluator's answers by position (`game.hash(state)` and the seat to move), so a position
 * reached again (a transposition within a tree, the same position in another tree of the batch, the
 * subtree kept after a move) costs a copy instead of a network call. Holds at most `capacity` positions,
 * evicting the oldest first; memory is capacity x (actionSize + seats) floats plus the keys.
 *
 * Only exact for games whose encoded input is a function of `hash(state)` (a hash that leaves out
 * history the encoder reads would hand one position's answer to another). The answers belong to one
 * network: `generation` is read on every call and the cache empties when its value changes (pass the
 * evaluator's current model).
 */
export class CachingEvaluator<S> implements Evaluator<S> {
  readonly needsInputs: boolean;
  readonly needsMasks: boolean;
  /** Running counts since construction (not reset by `clear`). */
  readonly stats: EvaluationCacheStats = { lookups: 0, hits: 0 };
  private readonly index = new Map<string, number>();
  private readonly keys: (string | undefined)[];
  private readonly logits: Float32Array;
  private readonly values: Float32Array;
  private next = 0;
  private lastGeneration: unknown;
  private misses: (LeafBatch<S> & { count: number; states: S[] }) | null = null;
  private source = new Int32Array(0);
  private readonly pending = new Map<string, number>();

  /**
   * @param game Supplies `hash` (the cache key) and the buffer sizes.
   * @param inner The evaluator asked about positions not in the cache.
   * @param capacity Most positions kept.
   * @param generation Read on every call; when its value changes (a new network) the cache empties.
   */
  constructor(
    private readonly game: Game<S>,
    private readonly inner: Evaluator<S>,
    readonly capacity: number,
    private readonly generation: () => unknown = () => undefined,
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`CachingEvaluator: capacity must be a positive integer, got ${capacity}`);
    this.needsInputs = inner.needsInputs;
    this.needsMasks = inner.needsMasks !== false;
    this.keys = new Array<string | undefined>(capacity);
    this.logits = new Float32Array(capacity * game.masker.actionSize);
    this.values = new Float32Array(capacity * game.numPlayers);
    this.lastGeneration = generation();
  }

  /** Share of lookups answered without a network position of their own (cached, or repeated in the batch). */
  get hitRate(): number {
    return this.stats.lookups ? this.stats.hits / this.stats.lookups : 0;
  }

  /** Positions held now. */
  get size(): number {
    return this.index.size;
  }

  /** Forgets every position (the stats are kept). */
  clear(): void {
    this.index.clear();
    this.keys.fill(undefined);
    this.next = 0;
  }

  /** Answers cached leaves by copy and sends the rest, each position once, to the inner evaluator in one call. */
  async evaluate(batch: LeafBatch<S>): Promise<void> {
    const gen = this.generation();
    if (gen !== this.lastGeneration) {
      this.clear();
      this.lastGeneration = gen;
    }
    const A = batch.actionSize;
    const P = batch.numSeats;
    const enc = this.needsInputs ? this.game.encoder.size : 0;
    const misses = this.missBatch(batch);
    // source[i]: the miss entry answering leaf i, or -1 when the cache answered it.
    const source = this.source.length >= batch.count ? this.source : (this.source = new Int32Array(batch.states.length));
    const pending = this.pending;
    pending.clear();
    let count = 0;
    for (let i = 0; i < batch.count; i++) {
      const key = `${this.game.hash(batch.states[i])}#${batch.perspectives[i]}`;
      this.stats.lookups++;
      const slot = this.index.get(key);
      if (slot !== undefined) {
        this.stats.hits++;
        batch.policyLogits.set(this.logits.subarray(slot * A, slot * A + A), i * A);
        batch.values.set(this.values.subarray(slot * P, slot * P + P), i * P);
        source[i] = -1;
        continue;
      }
      // A position twice in one batch is evaluated once.
      const first = pending.get(key);
      if (first !== undefined) {
        this.stats.hits++; // answered without a network position of its own
        source[i] = first;
        continue;
      }
      const m = count++;
      pending.set(key, m);
      source[i] = m;
      misses.states[m] = batch.states[i];
      misses.perspectives[m] = batch.perspectives[i];
      if (this.needsMasks) misses.masks.set(batch.masks.subarray(i * A, i * A + A), m * A);
      if (enc) misses.inputs.set(batch.inputs.subarray(i * enc, i * enc + enc), m * enc);
    }
    misses.count = count;
    if (count === 0) return;
    await this.inner.evaluate(misses);
    for (let i = 0; i < batch.count; i++) if (source[i] >= 0) this.copyOut(misses, source[i], batch, i, A, P);
    for (const [key, m] of pending) this.remember(key, misses, m, A, P);
    for (let m = 0; m < count; m++) misses.states[m] = undefined as unknown as S;
  }

  private copyOut(from: LeafBatch<S>, m: number, to: LeafBatch<S>, i: number, A: number, P: number): void {
    to.policyLogits.set(from.policyLogits.subarray(m * A, m * A + A), i * A);
    to.values.set(from.values.subarray(m * P, m * P + P), i * P);
  }

  private remember(key: string, from: LeafBatch<S>, m: number, A: number, P: number): void {
    const slot = this.next;
    this.next = (this.next + 1) % this.capacity;
    const old = this.keys[slot];
    if (old !== undefined) this.index.delete(old);
    this.keys[slot] = key;
    this.index.set(key, slot);
    this.logits.set(from.policyLogits.subarray(m * A, m * A + A), slot * A);
    this.values.set(from.values.subarray(m * P, m * P + P), slot * P);
  }

  private missBatch(batch: LeafBatch<S>): LeafBatch<S> & { count: number; states: S[] } {
    const n = batch.states.length;
    if (this.misses && this.misses.states.length >= n) return this.misses;
    const A = batch.actionSize;
    const P = batch.numSeats;
    this.misses = {
      count: 0,
      actionSize: A,
      numSeats: P,
      states: new Array<S>(n),
      perspectives: new Int32Array(n),
      inputs: new Float32Array(this.needsInputs ? n * this.game.encoder.size : 0),
      masks: new Uint8Array(n * A),
      policyLogits: new Float32Array(n * A),
      values: new Float32Array(n * P),
    };
    return this.misses;
  }
}

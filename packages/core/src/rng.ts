/**
 * Seeded pseudo-random generator (sfc32, seeded through splitmix32).
 *
 * Every random choice in az (deals, Dirichlet noise, sampling moves, minibatches) goes through an `Rng`
 * so a run is reproducible from its seed. The state is four 32-bit words, so it can be saved in a
 * checkpoint and restored exactly.
 */
export class Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;
  /** Spare normal deviate from the Box-Muller pair. */
  private spareNormal: number | null = null;

  constructor(seed: number | string = 0) {
    this.reseed(seed);
  }

  /** Restarts the stream from `seed` (a string is hashed), as a new `Rng(seed)` would. */
  reseed(seed: number | string): void {
    let s = typeof seed === 'number' ? seed >>> 0 : hashString(seed);
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    this.spareNormal = null;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** The next raw output: a uniform integer in [0, 2^32). Every other draw is built on it. */
  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    if (!(n > 0)) throw new RangeError(`Rng.int: n must be positive, got ${n}`);
    return Math.floor(this.next() * n);
  }

  /** Standard normal deviate (Box-Muller). */
  normal(): number {
    if (this.spareNormal !== null) {
      const v = this.spareNormal;
      this.spareNormal = null;
      return v;
    }
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Gamma(shape, 1) deviate (Marsaglia-Tsang, with the boost for shape < 1). */
  gamma(shape: number): number {
    if (shape < 1) {
      const u = this.next();
      return this.gamma(1 + shape) * Math.pow(u === 0 ? Number.MIN_VALUE : u, 1 / shape);
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /** Fills `out[0..n)` with a Dirichlet(alpha, ..., alpha) sample. */
  dirichlet(alpha: number, out: Float32Array | Float64Array, n: number = out.length): void {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const g = this.gamma(alpha);
      out[i] = g;
      sum += g;
    }
    if (sum <= 0) {
      for (let i = 0; i < n; i++) out[i] = 1 / n;
      return;
    }
    for (let i = 0; i < n; i++) out[i] /= sum;
  }

  /** In-place Fisher-Yates shuffle. */
  shuffle<T>(items: T[] | Int32Array | Uint8Array | Uint16Array): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
  }

  /** A new generator whose stream is independent of (but determined by) this one. */
  fork(): Rng {
    const child = new Rng(0);
    child.setState([this.nextUint32(), this.nextUint32(), this.nextUint32(), this.nextUint32()]);
    return child;
  }

  /** The four state words, to save in a checkpoint; `setState` resumes the stream exactly there. */
  getState(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  /** Resumes the stream from words saved by `getState` (throws unless there are four). */
  setState(state: readonly number[]): void {
    if (state.length !== 4) throw new Error('Rng.setState: expected 4 words');
    [this.a, this.b, this.c, this.d] = state.map((x) => x >>> 0) as [number, number, number, number];
    this.spareNormal = null;
  }
}

/** FNV-1a 32-bit hash of a string; used to turn string seeds into numbers. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

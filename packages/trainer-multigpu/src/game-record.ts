/**
 * One finished self-play game as flat typed arrays: what the replay buffer stores and what self-play
 * processes send to the trainer. Policies are sparse (CSR): position i's targets are
 * `policyIndex/policyProb[policyOffsets[i] .. policyOffsets[i+1])`.
 */
export interface GameRecord {
  /** Positions (moves searched) in the game. */
  readonly length: number;
  readonly inputSize: number;
  readonly numSeats: number;
  /** `length * inputSize` encoded positions, each from the perspective of the seat to move. */
  readonly inputs: Float32Array;
  readonly policyOffsets: Int32Array;
  readonly policyIndex: Int32Array;
  readonly policyProb: Float32Array;
  /**
   * Legal actions of each position (CSR, like the policy): position i's are
   * `legalIndex[legalOffsets[i] .. legalOffsets[i+1])`. Training restricts the policy softmax to them.
   */
  readonly legalOffsets: Int32Array;
  readonly legalIndex: Int32Array;
  /** `length * numSeats` value targets, perspective-relative (index 0 = the seat to move). */
  readonly values: Float32Array;
  /** Final returns, absolute seat order. */
  readonly returns: Float32Array;
  /** The weights version of the network that played it (0 = no network). */
  readonly weightsVersion: number;
}

const MAGIC_RAW = 0x415a4753; // 'AZGS': inputs as float32 ('AZGR', before legal actions, is refused)
const MAGIC_PALETTE = 0x415a4754; // 'AZGT': inputs as indices into a palette of their distinct values
const HEADER_INTS = 8;
const MAX_PALETTE = 256;

/**
 * How a record's inputs go on the wire. Encoded positions hold few distinct values (chess: 0, 1 and the
 * fifty-move plane's k/100; tic-tac-toe: 0 and 1), so each value is stored as an index of 1, 2, 4 or 8
 * bits into a palette of the record's distinct float32 bit patterns: lossless, and a chess record
 * shrinks several-fold (docs/distributed.md), which is most of what moving it through Redis costs.
 * Inputs with more than 256 distinct values stay float32.
 */
interface InputPlan {
  /** Bits per value (1, 2, 4, 8), or 0 for raw float32. */
  readonly bits: number;
  /** Distinct float32 bit patterns, in order of first appearance. */
  readonly palette: Uint32Array;
  /** Each input's palette slot (unused when `bits` is 0). */
  readonly slots: Uint8Array;
}

function planInputs(inputs: Float32Array): InputPlan {
  const words = new Uint32Array(inputs.buffer, inputs.byteOffset, inputs.length);
  const slots = new Uint8Array(inputs.length);
  const slotOf = new Map<number, number>();
  const palette: number[] = [];
  // Runs of one value (a plane of zeros) skip the map.
  let lastWord = -1;
  let lastSlot = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w !== lastWord) {
      let s = slotOf.get(w);
      if (s === undefined) {
        if (palette.length === MAX_PALETTE) return { bits: 0, palette: new Uint32Array(0), slots };
        s = palette.length;
        palette.push(w);
        slotOf.set(w, s);
      }
      lastWord = w;
      lastSlot = s;
    }
    slots[i] = lastSlot;
  }
  const k = palette.length;
  return { bits: k <= 2 ? 1 : k <= 4 ? 2 : k <= 16 ? 4 : 8, palette: Uint32Array.from(palette), slots };
}

/** Bytes of `n` palette indices of `bits` each, padded to a whole word. */
const packedBytes = (n: number, bits: number): number => (Math.ceil((n * bits) / 8) + 3) & ~3;

/** Bytes the inputs take in the record body: float32, or [K, K palette words, packed indices]. */
function inputBytes(n: number, bits: number, paletteSize: number): number {
  return bits === 0 ? 4 * n : 4 + 4 * paletteSize + packedBytes(n, bits);
}

/** Words of the record body after the inputs: policy offsets, indices and probabilities, values, returns, legal offsets and actions. */
function bodyWords(length: number, numSeats: number, nnz: number, legalCount: number): number {
  return length + 1 + 2 * nnz + length * numSeats + numSeats + (length + 1) + legalCount;
}

/** What is wrong with a header's magic number and input width (undefined when they agree). */
function widthProblem(magic: number, bits: number): string | undefined {
  if (magic !== MAGIC_RAW && magic !== MAGIC_PALETTE) return 'bad magic number';
  if ((magic === MAGIC_RAW) !== (bits === 0) || (bits !== 0 && bits !== 1 && bits !== 2 && bits !== 4 && bits !== 8)) return `bad input width ${bits}`;
  return undefined;
}

/** What is wrong with a palette of `k` values for indices of `bits` (undefined when it fits). */
function paletteProblem(k: number, bits: number): string | undefined {
  return k < 1 || k > MAX_PALETTE || k > 1 << bits ? `a palette of ${k} values at ${bits} bits` : undefined;
}

/**
 * Compact binary form (little-endian words): header [magic, length, inputSize, numSeats, nnz,
 * weightsVersion, legalCount, bits per input], then the inputs, offsets, indices, probabilities, values,
 * returns, legal offsets, legal actions. The inputs are either `length * inputSize` float32 (magic
 * 'AZGS', bits 0) or [palette size K, K float32 bit patterns, the packed slot indices padded to a word]
 * (magic 'AZGT'; index i sits in bits (i * bits) % 8 upward of byte (i * bits) >> 3).
 * Typed arrays are copied as bytes; no JSON of objects.
 */
export function encodeGameRecord(r: GameRecord): Uint8Array {
  const plan = planInputs(r.inputs);
  const nnz = r.policyIndex.length;
  const bytes = new Uint8Array(4 * (HEADER_INTS + bodyWords(r.length, r.numSeats, nnz, r.legalIndex.length)) + inputBytes(r.inputs.length, plan.bits, plan.palette.length));
  const header = new Int32Array(bytes.buffer, 0, HEADER_INTS);
  header.set([plan.bits === 0 ? MAGIC_RAW : MAGIC_PALETTE, r.length, r.inputSize, r.numSeats, nnz, r.weightsVersion, r.legalIndex.length, plan.bits]);
  let off = HEADER_INTS * 4;
  const put = (arr: Float32Array | Int32Array | Uint32Array): void => {
    bytes.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), off);
    off += arr.byteLength;
  };
  if (plan.bits === 0) {
    put(r.inputs);
  } else {
    put(Int32Array.of(plan.palette.length));
    put(plan.palette);
    const { slots, bits } = plan;
    if (bits === 8) {
      bytes.set(slots, off);
    } else {
      for (let i = 0; i < slots.length; i++) {
        const at = i * bits;
        bytes[off + (at >> 3)] |= slots[i] << (at & 7);
      }
    }
    off += packedBytes(slots.length, bits);
  }
  put(r.policyOffsets);
  put(r.policyIndex);
  put(r.policyProb);
  put(r.values);
  put(r.returns);
  put(r.legalOffsets);
  put(r.legalIndex);
  return bytes;
}

/**
 * Why `bytes` cannot be a game record of positions with `inputSize` inputs and `numSeats` seats played
 * with weights version `weightsVersion`, from its header alone (undefined when it can be): the sizes the
 * header gives must add up to exactly the bytes there are. Cheap, so untrusted input (a Redis stream) is
 * checked before it is decoded.
 */
export function gameRecordProblem(bytes: Uint8Array, expected: { readonly inputSize: number; readonly numSeats: number; readonly weightsVersion: number }): string | undefined {
  if (bytes.byteLength < HEADER_INTS * 4 || bytes.byteLength % 4 !== 0) return `a game record of ${bytes.byteLength} bytes is impossible`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = (i: number): number => view.getInt32(i * 4, true);
  const [magic, length, inputSize, numSeats, nnz, recordVersion, legalCount, bits] = [h(0), h(1), h(2), h(3), h(4), h(5), h(6), h(7)];
  if (magic !== MAGIC_RAW && magic !== MAGIC_PALETTE) return 'not a game record (bad magic number)';
  if (inputSize !== expected.inputSize || numSeats !== expected.numSeats) return `positions of ${inputSize} inputs and ${numSeats} seats do not fit this run (${expected.inputSize}, ${expected.numSeats})`;
  if (recordVersion !== expected.weightsVersion) return `the record says weights version ${recordVersion} but the entry ${expected.weightsVersion}`;
  if (length < 1 || nnz < 0 || legalCount < 0) return 'negative or empty counts in the header';
  const width = widthProblem(magic, bits);
  if (width) return width;
  let paletteSize = 0;
  if (bits !== 0) {
    if (bytes.byteLength < HEADER_INTS * 4 + 4) return 'truncated palette';
    paletteSize = h(HEADER_INTS);
    const palette = paletteProblem(paletteSize, bits);
    if (palette) return palette;
  }
  const total = 4 * (HEADER_INTS + bodyWords(length, numSeats, nnz, legalCount)) + inputBytes(length * inputSize, bits, paletteSize);
  if (total !== bytes.byteLength) return `the header describes ${total} bytes but the record has ${bytes.byteLength}`;
  return undefined;
}

/** Reads either form of `encodeGameRecord`; throws on anything malformed (bytes from the network are not trusted). */
export function decodeGameRecord(bytes: Uint8Array): GameRecord {
  if (bytes.byteLength < HEADER_INTS * 4) throw new Error('game record: truncated header');
  const copy = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const header = new Int32Array(copy.buffer, copy.byteOffset, HEADER_INTS);
  const [magic, length, inputSize, numSeats, nnz, weightsVersion, legalCount, bits] = header;
  const width = widthProblem(magic, bits);
  if (width) throw new Error(`game record: ${width}`);
  if (length < 0 || inputSize < 0 || numSeats < 0 || nnz < 0 || legalCount < 0) throw new Error('game record: negative size in header');
  const end = copy.byteOffset + copy.byteLength;
  let off = copy.byteOffset + HEADER_INTS * 4;
  const take = <T extends Float32Array | Int32Array | Uint32Array>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T }, n: number): T => {
    if (off + n * 4 > end) throw new Error('game record: truncated body');
    const view = new Ctor(copy.buffer, off, n);
    off += n * 4;
    return view.slice() as T;
  };
  const n = length * inputSize;
  let inputs: Float32Array;
  if (bits === 0) {
    inputs = take(Float32Array, n);
  } else {
    const k = take(Int32Array, 1)[0];
    const problem = paletteProblem(k, bits);
    if (problem) throw new Error(`game record: ${problem}`);
    const palette = take(Uint32Array, k);
    const packed = packedBytes(n, bits);
    if (off + packed > end) throw new Error('game record: truncated body');
    const src = new Uint8Array(copy.buffer, off, packed);
    off += packed;
    inputs = new Float32Array(n);
    // Bit patterns, not numbers: a float round trip could change a NaN's payload.
    const words = new Uint32Array(inputs.buffer);
    const mask = (1 << bits) - 1;
    for (let i = 0; i < n; i++) {
      const at = i * bits;
      const slot = (src[at >> 3] >> (at & 7)) & mask;
      if (slot >= k) throw new Error(`game record: input ${i} points past the palette (${slot} of ${k})`);
      words[i] = palette[slot];
    }
  }
  return {
    length,
    inputSize,
    numSeats,
    weightsVersion,
    inputs,
    policyOffsets: take(Int32Array, length + 1),
    policyIndex: take(Int32Array, nnz),
    policyProb: take(Float32Array, nnz),
    values: take(Float32Array, length * numSeats),
    returns: take(Float32Array, numSeats),
    legalOffsets: take(Int32Array, length + 1),
    legalIndex: take(Int32Array, legalCount),
  };
}

/** What a record from a worker must fit beyond its header: the run's positions and action space. */
export interface RecordLimits {
  readonly inputSize: number;
  readonly numSeats: number;
  readonly actionSize: number;
}

/**
 * Largest |input| a record may hold. Encoders declare no range of their own; real ones write 0, 1 and
 * small fractions, and an input this large already drives a network's loss far from any real one.
 */
export const MAX_INPUT_MAGNITUDE = 1e4;
/** Rounding a float32 mix of returns (value shaping, root values) may add past [-1, 1]. */
const VALUE_SLACK = 1e-4;
/** How far a position's policy may sum from 1 (float32 shares of up to hundreds of actions). */
const POLICY_SUM_SLACK = 1e-3;

/**
 * Why a decoded record from a worker must not be trained on (undefined when it may): every value finite
 * and inside its range (value targets and returns in [-1, 1], as the game contract says; inputs within
 * ±MAX_INPUT_MAGNITUDE), offsets that start at 0, never decrease and end at their array's length, every
 * action index inside [0, actionSize) and listed once, and each position's policy a distribution over
 * that position's legal actions (or empty: a value-only row). A record from another machine is untrusted,
 * and one from a buggy worker is no better: either would otherwise stop training with a non-finite loss.
 */
export function gameRecordContentProblem(r: GameRecord, limits: RecordLimits): string | undefined {
  const { length } = r;
  if (r.inputSize !== limits.inputSize || r.numSeats !== limits.numSeats) return `positions of ${r.inputSize} inputs and ${r.numSeats} seats do not fit this run (${limits.inputSize}, ${limits.numSeats})`;
  if (!(length >= 1)) return 'a game of no positions';
  const sizes: [string, number, number][] = [
    ['inputs', r.inputs.length, length * r.inputSize],
    ['value targets', r.values.length, length * r.numSeats],
    ['returns', r.returns.length, r.numSeats],
    ['policy offsets', r.policyOffsets.length, length + 1],
    ['legal offsets', r.legalOffsets.length, length + 1],
    ['policy probabilities', r.policyProb.length, r.policyIndex.length],
  ];
  for (const [what, got, want] of sizes) if (got !== want) return `${got} ${what} where ${want} belong`;
  const offsets = offsetsProblem('policy', r.policyOffsets, r.policyIndex.length) ?? offsetsProblem('legal', r.legalOffsets, r.legalIndex.length);
  if (offsets) return offsets;
  for (let j = 0; j < r.numSeats; j++) if (!inValueRange(r.returns[j])) return `the return of seat ${j} is ${showFloat32(r.returns[j])}, outside [-1, 1]`;
  // mark[a] = 2i: action a is legal at position i; 2i + 1: the policy of position i already named it.
  const mark = new Int32Array(limits.actionSize).fill(-1);
  for (let i = 0; i < length; i++) {
    const problem = legalProblem(r, i, mark, limits.actionSize) ?? policyProblem(r, i, mark, limits.actionSize) ?? rowValueProblem(r, i);
    if (problem) return `position ${i}: ${problem}`;
  }
  const inputs = r.inputs;
  for (let k = 0; k < inputs.length; k++) {
    const x = inputs[k];
    // x !== x: NaN. The inputs are most of a record: plain comparisons, no call per value.
    if (x > MAX_INPUT_MAGNITUDE || x < -MAX_INPUT_MAGNITUDE || x !== x) return `position ${Math.floor(k / r.inputSize)}: input ${k % r.inputSize} is ${showFloat32(x)}, outside [-${MAX_INPUT_MAGNITUDE}, ${MAX_INPUT_MAGNITUDE}]`;
  }
  return undefined;
}

const inValueRange = (v: number): boolean => v >= -1 - VALUE_SLACK && v <= 1 + VALUE_SLACK;

/** A float32 as its shortest decimal (1e+30, not 1.0000000150474662e+30). */
export const showFloat32 = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(7))) : String(x));

/** CSR offsets must start at 0, never decrease and end at `count` (else positions would read past their arrays). */
function offsetsProblem(what: string, offsets: Int32Array, count: number): string | undefined {
  if (offsets[0] !== 0) return `${what} offsets start at ${offsets[0]}, not 0`;
  for (let i = 1; i < offsets.length; i++) if (offsets[i] < offsets[i - 1]) return `${what} offsets decrease at position ${i - 1} (${offsets[i - 1]} then ${offsets[i]})`;
  const last = offsets[offsets.length - 1];
  return last === count ? undefined : `${what} offsets end at ${last} but there are ${count} entries`;
}

function legalProblem(r: GameRecord, i: number, mark: Int32Array, actionSize: number): string | undefined {
  for (let k = r.legalOffsets[i]; k < r.legalOffsets[i + 1]; k++) {
    const a = r.legalIndex[k];
    if (a < 0 || a >= actionSize) return `legal action ${a} is outside [0, ${actionSize})`;
    if (mark[a] === 2 * i) return `legal action ${a} is listed twice`;
    mark[a] = 2 * i;
  }
  return undefined;
}

function policyProblem(r: GameRecord, i: number, mark: Int32Array, actionSize: number): string | undefined {
  const from = r.policyOffsets[i];
  const to = r.policyOffsets[i + 1];
  let sum = 0;
  for (let k = from; k < to; k++) {
    const a = r.policyIndex[k];
    const p = r.policyProb[k];
    if (a < 0 || a >= actionSize) return `policy action ${a} is outside [0, ${actionSize})`;
    if (mark[a] === 2 * i + 1) return `policy action ${a} is listed twice`;
    if (mark[a] !== 2 * i) return `the policy puts ${showFloat32(p)} on action ${a}, which is not legal there`;
    mark[a] = 2 * i + 1;
    if (!(p >= 0 && p <= 1)) return `the policy probability of action ${a} is ${showFloat32(p)}, outside [0, 1]`;
    sum += p;
  }
  return to > from && Math.abs(sum - 1) > POLICY_SUM_SLACK ? `the policy probabilities sum to ${showFloat32(sum)}, not 1` : undefined;
}

function rowValueProblem(r: GameRecord, i: number): string | undefined {
  for (let j = 0; j < r.numSeats; j++) {
    const v = r.values[i * r.numSeats + j];
    if (!inValueRange(v)) return `the value target of seat ${j} is ${showFloat32(v)}, outside [-1, 1]`;
  }
  return undefined;
}

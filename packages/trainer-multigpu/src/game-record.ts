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
 * bits into a palette of the record's distinct float32 bit patterns: lossless, and a 40-ply chess record
 * shrinks from 211 KB to 33 KB, which is most of what moving it through Redis costs. Inputs with more than 256 distinct values
 * stay float32.
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

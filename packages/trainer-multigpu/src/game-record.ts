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

const MAGIC = 0x415a4753; // 'AZGS' (the format with legal actions; 'AZGR' had none)
const HEADER_INTS = 8;

/** Bytes of `record` in the binary form below. */
export function gameRecordByteLength(r: GameRecord): number {
  const nnz = r.policyIndex.length;
  return 4 * (HEADER_INTS + r.inputs.length + r.policyOffsets.length + 2 * nnz + r.values.length + r.returns.length + r.legalOffsets.length + r.legalIndex.length);
}

/**
 * Compact binary form (little-endian words): header [magic, length, inputSize, numSeats, nnz,
 * weightsVersion, legalCount, 0], then inputs, offsets, indices, probabilities, values, returns, legal
 * offsets, legal actions.
 * Typed arrays are copied as bytes; no JSON of objects.
 */
export function encodeGameRecord(r: GameRecord, out?: Uint8Array): Uint8Array {
  const bytes = out ?? new Uint8Array(gameRecordByteLength(r));
  const nnz = r.policyIndex.length;
  const header = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_INTS);
  header.set([MAGIC, r.length, r.inputSize, r.numSeats, nnz, r.weightsVersion, r.legalIndex.length, 0]);
  let off = bytes.byteOffset + HEADER_INTS * 4;
  const put = (arr: Float32Array | Int32Array): void => {
    new Uint8Array(bytes.buffer, off, arr.byteLength).set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
    off += arr.byteLength;
  };
  put(r.inputs);
  put(r.policyOffsets);
  put(r.policyIndex);
  put(r.policyProb);
  put(r.values);
  put(r.returns);
  put(r.legalOffsets);
  put(r.legalIndex);
  return bytes;
}

export function decodeGameRecord(bytes: Uint8Array): GameRecord {
  if (bytes.byteLength < HEADER_INTS * 4) throw new Error('game record: truncated header');
  const copy = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const header = new Int32Array(copy.buffer, copy.byteOffset, HEADER_INTS);
  const [magic, length, inputSize, numSeats, nnz, weightsVersion, legalCount] = header;
  if (magic !== MAGIC) throw new Error('game record: bad magic number');
  let off = copy.byteOffset + HEADER_INTS * 4;
  const take = <T extends Float32Array | Int32Array>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T }, n: number): T => {
    if (off + n * 4 > copy.byteOffset + copy.byteLength) throw new Error('game record: truncated body');
    const view = new Ctor(copy.buffer, off, n);
    off += n * 4;
    return view.slice() as T;
  };
  return {
    length,
    inputSize,
    numSeats,
    weightsVersion,
    inputs: take(Float32Array, length * inputSize),
    policyOffsets: take(Int32Array, length + 1),
    policyIndex: take(Int32Array, nnz),
    policyProb: take(Float32Array, nnz),
    values: take(Float32Array, length * numSeats),
    returns: take(Float32Array, numSeats),
    legalOffsets: take(Int32Array, length + 1),
    legalIndex: take(Int32Array, legalCount),
  };
}

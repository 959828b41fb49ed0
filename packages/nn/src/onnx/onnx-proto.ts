/**
 * A minimal protobuf writer for the few ONNX messages the exporter needs (field numbers from onnx.proto,
 * which is proto2: repeated scalars are written unpacked, which every protobuf parser accepts).
 *
 * No protobuf library is installed, and the subset is small: varints, 32-bit floats and length-delimited
 * fields (strings, bytes, nested messages). Messages are built bottom-up as byte arrays, so nested
 * lengths are known when the parent is written.
 */

/** Wire types used here. */
const VARINT = 0;
const FIXED32 = 5;
const LENGTH_DELIMITED = 2;

/** Appends fields to a growing buffer; `finish()` returns the message bytes. */
export class ProtoWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  /** An unsigned varint (or a negative int64, as protobuf writes it: ten bytes of two's complement). */
  private varint(value: number | bigint): void {
    if (typeof value === 'number') {
      if (!Number.isInteger(value)) throw new RangeError(`protobuf varint must be an integer (got ${value})`);
      if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) {
        // Division, not bit shifts: shifts would truncate values above 2^31.
        let v = value;
        while (v >= 0x80) {
          this.byte((v % 0x80) | 0x80);
          v = Math.floor(v / 0x80);
        }
        this.byte(v);
        return;
      }
      value = BigInt(value);
    }
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.byte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.byte(Number(v));
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** int32 / int64 / enum / bool field. */
  int(field: number, value: number | bigint): this {
    this.tag(field, VARINT);
    this.varint(value);
    return this;
  }

  /** float field (fixed32, little-endian). */
  float(field: number, value: number): this {
    this.tag(field, FIXED32);
    this.ensure(4);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 4).setFloat32(0, value, true);
    this.len += 4;
    return this;
  }

  /** bytes or an embedded message. */
  bytes(field: number, data: Uint8Array): this {
    this.tag(field, LENGTH_DELIMITED);
    this.varint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  string(field: number, text: string): this {
    return this.bytes(field, new TextEncoder().encode(text));
  }

  /** A repeated embedded message: one field occurrence per element. */
  messages(field: number, items: readonly Uint8Array[]): this {
    for (const item of items) this.bytes(field, item);
    return this;
  }

  strings(field: number, items: readonly string[]): this {
    for (const item of items) this.string(field, item);
    return this;
  }

  ints(field: number, items: readonly number[]): this {
    for (const item of items) this.int(field, item);
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

// ---- ONNX messages (onnx.proto field numbers). Only the fields the exporter writes.

/** TensorProto.DataType values used here. */
export const ONNX_FLOAT = 1;
export const ONNX_INT32 = 6;
export const ONNX_INT64 = 7;

/** AttributeProto.AttributeType values used here. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

export type OnnxAttribute =
  | { readonly name: string; readonly int: number }
  | { readonly name: string; readonly float: number }
  | { readonly name: string; readonly ints: readonly number[] };

export interface OnnxNode {
  readonly opType: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes?: readonly OnnxAttribute[];
}

/** A float32 initializer. */
export interface OnnxInitializer {
  readonly name: string;
  readonly dims: readonly number[];
  readonly values: Float32Array;
}

/** A graph input or output with these dims (a string is a symbolic dimension such as 'batch'). */
export interface OnnxValueInfo {
  readonly name: string;
  readonly dims: readonly (number | string)[];
  /** TensorProto.DataType of its elements (default ONNX_FLOAT). */
  readonly elemType?: number;
}

export interface OnnxModel {
  readonly graphName: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxInitializer[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
  readonly irVersion: number;
  readonly opsetVersion: number;
  readonly producerName: string;
  readonly producerVersion: string;
  readonly docString?: string;
}

function attributeProto(a: OnnxAttribute): Uint8Array {
  // AttributeProto: name=1, f=2, i=3, ints=8, type=20.
  const w = new ProtoWriter().string(1, a.name);
  if ('int' in a) w.int(3, a.int).int(20, ATTR_INT);
  else if ('float' in a) w.float(2, a.float).int(20, ATTR_FLOAT);
  else w.ints(8, a.ints).int(20, ATTR_INTS);
  return w.finish();
}

function nodeProto(n: OnnxNode): Uint8Array {
  // NodeProto: input=1, output=2, name=3, op_type=4, attribute=5.
  return new ProtoWriter()
    .strings(1, n.inputs)
    .strings(2, n.outputs)
    .string(3, n.name)
    .string(4, n.opType)
    .messages(5, (n.attributes ?? []).map(attributeProto))
    .finish();
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Float32 values as little-endian bytes, whatever the platform's byte order. */
function littleEndianBytes(values: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  return out;
}

function tensorProto(t: OnnxInitializer): Uint8Array {
  const expected = t.dims.reduce((a, b) => a * b, 1);
  if (expected !== t.values.length) throw new RangeError(`initializer ${t.name}: dims [${t.dims.join(', ')}] need ${expected} values, got ${t.values.length}`);
  // TensorProto: dims=1, data_type=2, name=8, raw_data=9 (raw_data is little-endian by definition).
  return new ProtoWriter().ints(1, t.dims).int(2, ONNX_FLOAT).string(8, t.name).bytes(9, littleEndianBytes(t.values)).finish();
}

function valueInfoProto(v: OnnxValueInfo): Uint8Array {
  // TensorShapeProto.Dimension: dim_value=1, dim_param=2; TensorShapeProto: dim=1.
  const dims = v.dims.map((d) => (typeof d === 'number' ? new ProtoWriter().int(1, d) : new ProtoWriter().string(2, d)).finish());
  const shape = new ProtoWriter().messages(1, dims).finish();
  // TypeProto.Tensor: elem_type=1, shape=2; TypeProto: tensor_type=1; ValueInfoProto: name=1, type=2.
  const tensorType = new ProtoWriter().int(1, v.elemType ?? ONNX_FLOAT).bytes(2, shape).finish();
  const type = new ProtoWriter().bytes(1, tensorType).finish();
  return new ProtoWriter().string(1, v.name).bytes(2, type).finish();
}

/** Serialises a ModelProto. */
export function encodeOnnxModel(m: OnnxModel): Uint8Array {
  // GraphProto: node=1, name=2, initializer=5, input=11, output=12.
  const graph = new ProtoWriter()
    .messages(1, m.nodes.map(nodeProto))
    .string(2, m.graphName)
    .messages(5, m.initializers.map(tensorProto))
    .messages(11, m.inputs.map(valueInfoProto))
    .messages(12, m.outputs.map(valueInfoProto))
    .finish();
  // OperatorSetIdProto: domain=1 ('' = the default ONNX domain), version=2.
  const opset = new ProtoWriter().string(1, '').int(2, m.opsetVersion).finish();
  // ModelProto: ir_version=1, producer_name=2, producer_version=3, doc_string=6, graph=7, opset_import=8.
  const w = new ProtoWriter().int(1, m.irVersion).string(2, m.producerName).string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  return w.bytes(7, graph).bytes(8, opset).finish();
}

/** Nodes, inputs and outputs to add to an existing graph (see `encodeOnnxGraphExtension`). */
export interface OnnxGraphExtension {
  readonly nodes: readonly OnnxNode[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/**
 * Bytes that, appended to a serialised ModelProto, add `ext`'s nodes, inputs and outputs to its graph.
 * They are one more ModelProto `graph` field (7) holding a GraphProto with only those repeated fields:
 * protobuf parsers merge a singular embedded message that occurs twice (repeated fields of the later
 * occurrence are appended, fields it does not set are left alone), so the model parses as its own graph
 * plus these. Neither the model's bytes nor its weights are re-encoded.
 */
export function encodeOnnxGraphExtension(ext: OnnxGraphExtension): Uint8Array {
  const graph = new ProtoWriter()
    .messages(1, ext.nodes.map(nodeProto))
    .messages(11, ext.inputs.map(valueInfoProto))
    .messages(12, ext.outputs.map(valueInfoProto))
    .finish();
  return new ProtoWriter().bytes(7, graph).finish();
}

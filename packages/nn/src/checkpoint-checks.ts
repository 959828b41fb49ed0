/** Validation of checkpoint manifests and weights, shared by saving and loading. */
import type { tf } from './tf.js';

/** A file of a checkpoint as the manifest lists it. */
export interface CheckpointFileEntry {
  /** The file's size in bytes. */
  readonly bytes: number;
  /** The SHA-256 of its contents, in lowercase hex: what loading checks the file against. */
  readonly sha256: string;
}

/** A description of the first thing wrong with a manifest, or null when it is well formed. */
export function manifestProblem(m: unknown): string | null {
  if (typeof m !== 'object' || m === null) return 'is not an object';
  const r = m as Record<string, unknown>;
  const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
  const checks: [string, boolean][] = [
    ['gameId (a non-empty string)', typeof r.gameId === 'string' && r.gameId.length > 0],
    ['gameConfig (an object)', isObject(r.gameConfig)],
    ['encoderVersion (a string)', typeof r.encoderVersion === 'string'],
    ['iteration (a non-negative integer)', Number.isInteger(r.iteration) && (r.iteration as number) >= 0],
    ['weightsVersion (a non-negative integer)', Number.isInteger(r.weightsVersion) && (r.weightsVersion as number) >= 0],
    ['network (a network config)', isNetworkConfig(r.network)],
    ['backend (a string)', typeof r.backend === 'string'],
    ['createdAt (a string)', typeof r.createdAt === 'string'],
    ['extra (an object, when present)', r.extra === undefined || isObject(r.extra)],
  ];
  for (const [field, ok] of checks) if (!ok) return `field ${field} is missing or invalid`;
  return null;
}

function isNetworkConfig(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const n = v as Record<string, unknown>;
  const spec = n.spec as Record<string, unknown> | undefined;
  return (
    Array.isArray(n.inputShape) &&
    n.inputShape.every((d) => Number.isInteger(d)) &&
    Number.isInteger(n.actionSize) &&
    Number.isInteger(n.numSeats) &&
    typeof spec === 'object' &&
    spec !== null &&
    (spec.kind === 'mlp' || spec.kind === 'resnet')
  );
}

export function isFileList(v: unknown): v is Record<string, CheckpointFileEntry> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return Object.values(v).every((e) => typeof e === 'object' && e !== null && Number.isInteger((e as CheckpointFileEntry).bytes) && typeof (e as CheckpointFileEntry).sha256 === 'string');
}

/** The name of the first float32 weight that is NaN or infinite, or null. */
export function nonFiniteWeight(specs: readonly tf.io.WeightsManifestEntry[], data: ArrayBuffer): string | null {
  let offset = 0;
  for (const spec of specs) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const dtype = spec.quantization?.dtype ?? spec.dtype;
    if (dtype === 'float32' && !spec.quantization && offset + 4 * n <= data.byteLength) {
      const values = offset % 4 === 0 ? new Float32Array(data, offset, n) : new Float32Array(data.slice(offset, offset + 4 * n));
      for (let i = 0; i < n; i++) if (!Number.isFinite(values[i])) return spec.name;
    }
    offset += n * ({ float32: 4, int32: 4, bool: 1, uint8: 1, uint16: 2, float16: 2, complex64: 8 } as Record<string, number>)[dtype];
  }
  return null;
}

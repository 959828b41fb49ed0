/**
 * Which devices a multi-process run uses: `--gpus 0,1,2,3` (one self-play process per GPU, each seeing
 * only its own through CUDA_VISIBLE_DEVICES; training on the first) or `--devices cpu:N` (N CPU
 * self-play processes on the wasm backend: how a machine without a GPU runs the same code path).
 */

export type DeviceKind = 'gpu' | 'cpu';

/** One device that hosts self-play workers. */
export interface Device {
  readonly kind: DeviceKind;
  /** GPU: the CUDA device index (what CUDA_VISIBLE_DEVICES is set to). CPU: 0..N-1, a label only. */
  readonly index: number;
  /** 'gpu:1', 'cpu:0': the key of per-device metrics and log lines. */
  readonly label: string;
}

/** A bad --gpus / --devices / --workers-per-device value; `flag` names the flag at fault. */
export class DeviceSpecError extends Error {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(message);
    this.name = 'DeviceSpecError';
  }
}

/** Parses `--gpus`: a comma-separated list of distinct non-negative integers, e.g. '0,1,2,3'. */
export function parseGpuList(text: string, flag = '--gpus'): Device[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new DeviceSpecError(flag, `${flag} must list GPU indices, e.g. ${flag} 0,1,2,3 (got an empty value)`);
  const parts = trimmed.split(',').map((p) => p.trim());
  const seen = new Set<number>();
  const devices: Device[] = [];
  for (const part of parts) {
    // Digits only: '1e2', '0x1', '-1', '1.0' and '' (from '0,,1') are all mistakes, not indices.
    if (!/^\d+$/.test(part) || !Number.isSafeInteger(Number(part))) {
      throw new DeviceSpecError(flag, `${flag} must be a comma-separated list of non-negative integers, e.g. ${flag} 0,1,2,3 (got '${text}': '${part}' is not one)`);
    }
    const index = Number(part);
    if (seen.has(index)) throw new DeviceSpecError(flag, `${flag} lists GPU ${index} more than once (got '${text}')`);
    seen.add(index);
    devices.push({ kind: 'gpu', index, label: `gpu:${index}` });
  }
  return devices;
}

/** Parses `--devices`: 'cpu:N' with N >= 1 CPU self-play processes. */
export function parseDeviceSpec(text: string, flag = '--devices'): Device[] {
  const m = /^cpu:(\d+)$/.exec(text.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!m || !Number.isSafeInteger(n) || n < 1) {
    throw new DeviceSpecError(flag, `${flag} must be cpu:N with N >= 1 self-play processes, e.g. ${flag} cpu:2 (got '${text}'); use --gpus for GPUs`);
  }
  return Array.from({ length: n }, (_, index) => ({ kind: 'cpu' as const, index, label: `cpu:${index}` }));
}

/** Rejects a device list the multi-process trainer cannot use (empty, mixed kinds, duplicates). */
export function checkDevices(devices: readonly Device[], workersPerDevice: number): void {
  if (devices.length === 0) throw new DeviceSpecError('--gpus', 'a multi-process run needs at least one device (--gpus or --devices)');
  const kinds = new Set(devices.map((d) => d.kind));
  if (kinds.size > 1) throw new DeviceSpecError('--devices', 'devices must be all GPUs (--gpus) or all CPU processes (--devices cpu:N), not a mix');
  const labels = new Set(devices.map((d) => d.label));
  if (labels.size !== devices.length) throw new DeviceSpecError('--gpus', `devices are listed more than once: ${devices.map((d) => d.label).join(', ')}`);
  if (!Number.isInteger(workersPerDevice) || workersPerDevice < 1) {
    throw new DeviceSpecError('--workers-per-device', `--workers-per-device must be a positive integer (got ${workersPerDevice})`);
  }
}

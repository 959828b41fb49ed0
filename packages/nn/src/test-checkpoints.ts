// Checkpoint folders for the tests (excluded from the build by the test-* pattern): a manifest to save
// with, and rewriting a file of a saved checkpoint as a forger would, signing the manifest again.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetworkConfig } from '@az/core';
import type { CheckpointManifestInput } from './checkpoint.js';
import { sha256 } from './checkpoint-files.js';

export function manifestFor(network: NetworkConfig, overrides: Partial<CheckpointManifestInput> = {}): CheckpointManifestInput {
  return {
    gameId: 'tictactoe',
    gameConfig: { size: 3 },
    encoderVersion: 'ttt-1',
    iteration: 12,
    weightsVersion: 40,
    network,
    backend: 'cpu',
    extra: { rngState: [1, 2, 3, 4] },
    ...overrides,
  };
}

/** Rewrites one file of a checkpoint and signs the manifest again, so only the file's own checks can catch it. */
export function tamper(dir: string, name: string, data: string | Uint8Array): void {
  writeFileSync(join(dir, name), data);
  const manifestPath = join(dir, 'manifest.json');
  const { checksum: _old, ...m } = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & { files: Record<string, unknown> };
  if (name !== 'manifest.json') m.files[name] = { bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength, sha256: sha256(data) };
  writeFileSync(manifestPath, JSON.stringify({ ...m, checksum: sha256(JSON.stringify(m)) }));
}

/**
 * Rewrites a checkpoint's manifest through `edit` (its `files` list, its network...) and signs it again,
 * as anyone can: the checksum is integrity, not authenticity.
 */
export function resignManifest(dir: string, edit: (manifest: Record<string, unknown> & { files: Record<string, { bytes: number; sha256: string }> }) => void): void {
  const manifestPath = join(dir, 'manifest.json');
  const { checksum: _old, ...m } = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & { files: Record<string, { bytes: number; sha256: string }> };
  edit(m);
  writeFileSync(manifestPath, JSON.stringify({ ...m, checksum: sha256(JSON.stringify(m)) }));
}

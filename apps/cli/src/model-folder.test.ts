// A hostile model folder given to the built `az`: refused at once with exit 2 and a message naming the
// folder, the file and the rule, never read outside the folder or waited on. The folders are honest
// checkpoints with one file made hostile and the manifest signed again, as anyone can.
import { execFileSync } from 'node:child_process';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetworkConfig } from '@az/core';
import { buildModel, initBackend, saveCheckpoint, sha256 } from '@az/nn';
import { beforeAll, describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

// The old code waited on the FIFO for ever: the bound only ends such a run, it is never waited out.
const { work, az } = azInTempDir('az-model-folder-cli-', 120_000);
const network: NetworkConfig = { spec: { kind: 'mlp', hidden: [8] }, inputShape: [27], actionSize: 9, numSeats: 2 };

async function honestFolder(name: string): Promise<string> {
  const dir = join(work, name);
  const model = buildModel(network, { seed: 1 });
  await saveCheckpoint(dir, model, { gameId: 'tictactoe', gameConfig: {}, encoderVersion: 'any', iteration: 1, weightsVersion: 1, network, backend: 'cpu' });
  model.dispose();
  return dir;
}

function resign(dir: string, edit: (files: Record<string, { bytes: number; sha256: string }>) => void): void {
  const path = join(dir, 'manifest.json');
  const { checksum: _old, ...m } = JSON.parse(readFileSync(path, 'utf8')) as { checksum: string; files: Record<string, { bytes: number; sha256: string }> };
  edit(m.files);
  writeFileSync(path, JSON.stringify({ ...m, checksum: sha256(JSON.stringify(m)) }));
}

let fifoFolder: string;
let outsideFolder: string;

beforeAll(async () => {
  await initBackend('cpu');
  fifoFolder = await honestFolder('fifo');
  unlinkSync(join(fifoFolder, 'model.onnx'));
  execFileSync('mkfifo', [join(fifoFolder, 'model.onnx')]);
  outsideFolder = await honestFolder('outside');
  const secret = 'a file next to the folder\n';
  writeFileSync(join(work, 'secret.txt'), secret);
  resign(outsideFolder, (files) => (files['../secret.txt'] = { bytes: Buffer.byteLength(secret), sha256: sha256(secret) }));
});

describe('a hostile model folder', () => {
  it('az eval refuses a FIFO in the folder at once: exit 2, the folder, the file and the rule, no stack trace', () => {
    const r = az(['eval', '--game', 'tictactoe', '--a', fifoFolder, '--b', 'random', '--games', '1']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`az eval: model folder ${fifoFolder}: refused ${join(fifoFolder, 'model.onnx')}: it is a FIFO (named pipe)`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('az play refuses a manifest naming a file outside the folder', () => {
    const r = az(['play', '--game', 'tictactoe', '--model', outsideFolder], 'quit\n');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`model folder ${outsideFolder}: manifest.json ("files") names the file "../secret.txt"; refused: a file name cannot hold a path separator`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

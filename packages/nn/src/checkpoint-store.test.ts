import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { CheckpointError, readCheckpointManifest, saveCheckpoint, type CheckpointManifestInput } from './checkpoint.js';
import { listCheckpoints, resolveCheckpointPath, saveRunCheckpoint } from './checkpoint-store.js';
import { buildModel } from './model.js';
import { TINY_MLP } from './test-nets.js';

let root: string;
const manifest = (iteration: number): CheckpointManifestInput => ({
  gameId: 'g',
  gameConfig: {},
  encoderVersion: 'e1',
  iteration,
  weightsVersion: iteration,
  network: TINY_MLP,
  backend: 'cpu',
});

describe('a run’s versioned checkpoints', () => {
  beforeAll(async () => {
    await initBackend('cpu');
    root = mkdtempSync(join(tmpdir(), 'az-ckpt-store-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes one folder per save, keeps the last K iterations, and lists them oldest first', async () => {
    const run = join(root, 'run');
    const model = buildModel(TINY_MLP, { seed: 1 });
    const removedAt: string[][] = [];
    for (let i = 1; i <= 4; i++) removedAt.push((await saveRunCheckpoint(run, model, manifest(i), undefined, { keep: 3, onnx: false })).removed.map((e) => e.name));
    expect(removedAt).toEqual([[], [], [], ['iter-000001']]);
    // A second save at the newest iteration (the end of a multi-process run) keeps iteration 2: K counts iterations.
    const again = await saveRunCheckpoint(run, model, manifest(4), undefined, { keep: 3, onnx: false });
    expect(again.entry.name).toBe('iter-000004-2');
    expect(again.removed).toEqual([]);
    expect(listCheckpoints(run).map((e) => [e.name, e.iteration, e.sequence])).toEqual([
      ['iter-000002', 2, 1],
      ['iter-000003', 3, 1],
      ['iter-000004', 4, 1],
      ['iter-000004-2', 4, 2],
    ]);
    const next = await saveRunCheckpoint(run, model, manifest(5), undefined, { keep: 3, onnx: false });
    expect(next.removed.map((e) => e.name)).toEqual(['iter-000002']);
    expect(listCheckpoints(run).map((e) => e.name)).toEqual(['iter-000003', 'iter-000004', 'iter-000004-2', 'iter-000005']);
    expect(readdirSync(join(run, 'checkpoints')).filter((n) => n.startsWith('.'))).toEqual([]);
    model.dispose();
  });

  it('resolves a run directory or any of its checkpoint folders to the run and its newest checkpoint', async () => {
    const run = join(root, 'resolve');
    const model = buildModel(TINY_MLP, { seed: 1 });
    await saveRunCheckpoint(run, model, manifest(1), undefined, { onnx: false });
    await saveRunCheckpoint(run, model, manifest(2), undefined, { onnx: false });
    const newest = join(run, 'checkpoints', 'iter-000002');
    expect(resolveCheckpointPath(run)).toEqual({ runDir: run, checkpointDir: newest, latest: true });
    expect(resolveCheckpointPath(newest)).toEqual({ runDir: run, checkpointDir: newest, latest: true });
    expect(resolveCheckpointPath(join(run, 'checkpoints', 'iter-000001')).latest).toBe(false);
    // The single `checkpoint/` folder of unreleased 0.1.0 runs is no run layout: a standalone checkpoint.
    const old = join(root, 'old');
    await saveCheckpoint(join(old, 'checkpoint'), model, manifest(7), undefined, { onnx: false });
    expect(resolveCheckpointPath(join(old, 'checkpoint'))).toEqual({ runDir: null, checkpointDir: join(old, 'checkpoint'), latest: true });
    expect(listCheckpoints(old)).toEqual([]);
    expect(() => resolveCheckpointPath(join(root, 'nothing'))).toThrow(CheckpointError);
    mkdirSync(join(root, 'empty'));
    expect(() => resolveCheckpointPath(join(root, 'empty'))).toThrow(/neither a checkpoint directory .* nor a run directory/);
    model.dispose();
  });

  it('a killed save leaves the previous checkpoint the newest, and the next save removes its leftovers', async () => {
    const run = join(root, 'killed');
    const model = buildModel(TINY_MLP, { seed: 1 });
    await saveRunCheckpoint(run, model, manifest(1), undefined, { onnx: false });
    // What a kill during the second save leaves: a hidden temporary and a checkpoint being removed.
    const half = join(run, 'checkpoints', '.iter-000002.tmp-1-abcd');
    mkdirSync(half);
    writeFileSync(join(half, 'weights.bin'), 'partial');
    mkdirSync(join(run, 'checkpoints', '.iter-000000.removing-abcd'));
    expect(listCheckpoints(run).map((e) => e.name)).toEqual(['iter-000001']);
    expect((await readCheckpointManifest(resolveCheckpointPath(run).checkpointDir)).iteration).toBe(1);
    await saveRunCheckpoint(run, model, manifest(2), undefined, { onnx: false });
    expect(readdirSync(join(run, 'checkpoints')).sort()).toEqual(['iter-000001', 'iter-000002']);
    model.dispose();
  });
});

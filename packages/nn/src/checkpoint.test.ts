import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, appendFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from './backend.js';
import { CheckpointError, loadCheckpoint, readCheckpointManifest, saveCheckpoint, verifyCheckpointFiles } from './checkpoint.js';
import { buildModel } from './model.js';
import type { NetworkConfig } from '@az/core';
import { tf } from './tf.js';
import { NetworkTrainer } from './training.js';
import { TINY_MLP, TINY_RESNET, randomArray, randomBatch } from './test-nets.js';
import { manifestFor, tamper } from './test-checkpoints.js';

let root: string;
let counter = 0;
const freshDir = (): string => join(root, `ckpt-${++counter}`);

function predictions(model: tf.LayersModel, input: Float32Array, shape: number[]): Float32Array[] {
  return tf.tidy(() => (model.predict(tf.tensor(input, shape)) as tf.Tensor[]).map((t) => t.dataSync() as Float32Array));
}

/** Saves a tiny MLP checkpoint and returns its directory. */
async function savedMlp(): Promise<string> {
  const dir = freshDir();
  const model = buildModel(TINY_MLP, { seed: 1 });
  await saveCheckpoint(dir, model, manifestFor(TINY_MLP));
  model.dispose();
  return dir;
}

/** The CheckpointError a load fails with (the test fails if it succeeds). */
async function loadError(dir: string, expect_: Parameters<typeof loadCheckpoint>[1] = {}): Promise<CheckpointError> {
  const err = await loadCheckpoint(dir, expect_).then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(CheckpointError);
  return err as CheckpointError;
}

describe('checkpoints', () => {
  beforeAll(async () => {
    await initBackend('cpu');
    root = mkdtempSync(join(tmpdir(), 'az-checkpoint-test-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('round-trips model, manifest and optimizer state with identical predictions', async () => {
    const model = buildModel(TINY_RESNET, { seed: 3 });
    const trainer = new NetworkTrainer(model, TINY_RESNET);
    const b = randomBatch(TINY_RESNET, 4, 1);
    trainer.trainBatch(b.inputs, b.policyTargets, b.valueTargets, 4); // moves weights, BN statistics and Adam moments
    const state = trainer.getOptimizerState();
    const dir = freshDir();
    const written = await saveCheckpoint(dir, model, manifestFor(TINY_RESNET), state);
    expect(written.format).toBe('az-checkpoint');
    expect(written.formatVersion).toBe(2);
    expect(Date.parse(written.createdAt)).not.toBeNaN();
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'model.json', 'model.onnx', 'optimizer.bin', 'optimizer.json', 'weights.bin']);
    expect(readdirSync(root).filter((f) => f.startsWith('.'))).toEqual([]); // no temporary directory left

    const loaded = await loadCheckpoint(dir, { gameId: 'tictactoe', encoderVersion: 'ttt-1' });
    expect(loaded.manifest).toEqual(written);
    const input = randomArray(5 * 18, 2);
    expect(predictions(loaded.model, input, [5, 3, 3, 2])).toEqual(predictions(model, input, [5, 3, 3, 2]));
    expect(loaded.model.weights.map((w) => w.originalName)).toEqual(model.weights.map((w) => w.originalName));
    expect(loaded.optimizerState).toBeDefined();
    const { data, ...meta } = loaded.optimizerState!;
    const { data: originalData, ...originalMeta } = state;
    expect(meta).toEqual(originalMeta);
    expect(new Float32Array(data)).toEqual(new Float32Array(originalData));
    // The restored state drives a trainer on the loaded model.
    new NetworkTrainer(loaded.model, TINY_RESNET).setOptimizerState(loaded.optimizerState!);
    expect(await readCheckpointManifest(dir)).toEqual(written);
    trainer.dispose();
    model.dispose();
    loaded.model.dispose();
  });

  it('replaces an existing checkpoint and leaves nothing else behind', async () => {
    const dir = await savedMlp();
    const other = buildModel(TINY_MLP, { seed: 2 });
    await saveCheckpoint(dir, other, manifestFor(TINY_MLP, { iteration: 13 }));
    const loaded = await loadCheckpoint(dir);
    expect(loaded.manifest.iteration).toBe(13);
    expect(loaded.optimizerState).toBeUndefined();
    const input = randomArray(5, 3);
    expect(predictions(loaded.model, input, [1, 5])).toEqual(predictions(other, input, [1, 5]));
    expect(readdirSync(root).filter((f) => f.startsWith('.'))).toEqual([]);
    other.dispose();
    loaded.model.dispose();
  });

  it('refuses to overwrite a directory that is not a checkpoint, or an invalid manifest', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'precious');
    await expect(saveCheckpoint(dir, model, manifestFor(TINY_MLP))).rejects.toThrow(/exists and is not a checkpoint/);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('precious');
    const bad = freshDir();
    await expect(saveCheckpoint(bad, model, manifestFor(TINY_MLP, { gameId: '' }))).rejects.toThrow(/gameId/);
    await expect(saveCheckpoint(bad, model, manifestFor({ ...TINY_MLP, actionSize: 7 }))).rejects.toThrow(/actionSize 7/);
    expect(readdirSync(root)).not.toContain(bad.split('/').pop());
    model.dispose();
  });

  it('names a missing directory, a file, and a directory without a manifest', async () => {
    const missing = join(root, 'nope');
    const e1 = await loadError(missing);
    expect(e1.message).toBe(`checkpoint directory not found: ${missing}`);
    expect(e1.path).toBe(missing);
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expect((await loadError(file)).message).toMatch(/a-file is not a checkpoint directory/);
    const empty = freshDir();
    mkdirSync(empty);
    expect((await loadError(empty)).message).toBe(`${empty} is not a checkpoint: it has no manifest.json`);
  });

  it('names a corrupt or foreign manifest', async () => {
    const dir = await savedMlp();
    const manifestPath = join(dir, 'manifest.json');
    const good = readFileSync(manifestPath, 'utf8');
    writeFileSync(manifestPath, good.slice(0, 40));
    const corrupt = await loadError(dir);
    expect(corrupt.message).toMatch(/^corrupt checkpoint manifest .*manifest\.json: not valid JSON/);
    expect(corrupt.path).toBe(manifestPath);
    writeFileSync(manifestPath, JSON.stringify({ format: 'something-else' }));
    expect((await loadError(dir)).message).toMatch(/is not an az checkpoint manifest/);
    const { weightsVersion: _dropped, ...withoutField } = JSON.parse(good) as Record<string, unknown>;
    writeFileSync(manifestPath, JSON.stringify(withoutField));
    expect((await loadError(dir)).message).toMatch(/field weightsVersion .* is missing or invalid/);
    writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(good), formatVersion: 3 }));
    expect((await loadError(dir)).message).toMatch(/format version 3, newer than this az reads \(2\)/);
    const { files: _files, checksum: _checksum, ...formatOne } = JSON.parse(good) as Record<string, unknown>;
    writeFileSync(manifestPath, JSON.stringify({ ...formatOne, formatVersion: 1 }));
    expect((await loadError(dir)).message).toMatch(/format version 1 \(unreleased az 0\.1\.0, without checksums\); this az reads 2 only/);
    writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(good), iteration: 13 }));
    const edited = await loadError(dir);
    expect(edited.message).toMatch(/manifest\.json: its contents do not match its checksum/);
    expect(edited.path).toBe(manifestPath);
  });

  it('names missing, truncated and oversized weights', async () => {
    const dir = await savedMlp();
    const weights = join(dir, 'weights.bin');
    const size = readFileSync(weights).byteLength;
    expect(size).toBe((5 * 8 + 8 + 8 * 6 + 6 + 6 * 4 + 4 + 6 * 2 + 2) * 4);
    const original = readFileSync(weights);
    truncateSync(weights, size - 4);
    const truncated = await loadError(dir);
    expect(truncated.message).toBe(`${weights} is truncated: ${size - 4} bytes, but manifest.json lists ${size}`);
    expect(truncated.path).toBe(weights);
    appendFileSync(weights, Buffer.alloc(8));
    expect((await loadError(dir)).message).toContain(`refused ${weights}: it is oversized: ${size + 4} bytes, more than the ${size} manifest.json lists`);
    // Signed again, the sizes model.json describes still catch it.
    tamper(dir, 'weights.bin', original.subarray(0, size - 4));
    expect((await loadError(dir)).message).toBe(`${weights} is truncated: ${size - 4} bytes, but model.json describes ${size}`);
    unlinkSync(weights);
    expect((await loadError(dir)).message).toMatch(/is incomplete: weights\.bin is missing/);
  });

  it('names a missing or corrupt model.json and a truncated optimizer state', async () => {
    const dir = await savedMlp();
    const modelPath = join(dir, 'model.json');
    tamper(dir, 'model.json', '{"modelTopology":');
    expect((await loadError(dir)).message).toMatch(/^corrupt .*model\.json: not valid JSON/);
    unlinkSync(modelPath);
    expect((await loadError(dir)).message).toMatch(/is incomplete: model\.json is missing/);

    const withState = freshDir();
    const model = buildModel(TINY_MLP, { seed: 1 });
    await saveCheckpoint(withState, model, manifestFor(TINY_MLP), new NetworkTrainer(model, TINY_MLP).getOptimizerState());
    truncateSync(join(withState, 'optimizer.bin'), 12);
    expect((await loadError(withState)).message).toMatch(/optimizer\.bin is truncated: 12 bytes/);
    model.dispose();
  });

  it('refuses a checkpoint for another game or encoder version', async () => {
    const dir = await savedMlp();
    const wrongGame = await loadError(dir, { gameId: 'chess' });
    expect(wrongGame.message).toBe(`checkpoint ${dir} is for game 'tictactoe', not 'chess'`);
    const wrongEncoder = await loadError(dir, { gameId: 'tictactoe', encoderVersion: 'ttt-2' });
    expect(wrongEncoder.message).toMatch(/encoder version 'ttt-1' of game 'tictactoe', but the game now encodes positions as version 'ttt-2'/);
    await expect(readCheckpointManifest(dir, { gameId: 'chess' })).rejects.toThrow(CheckpointError);
  });

  it('refuses a model.json that disagrees with the manifest network', async () => {
    const dir = await savedMlp();
    const manifestPath = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { network: NetworkConfig };
    tamper(dir, 'manifest.json', JSON.stringify({ ...manifest, network: { ...manifest.network, actionSize: 6 } }));
    expect((await loadError(dir)).message).toMatch(/model\.json disagrees with the manifest's network config: .*actionSize 6/);
  });

  it('lists a sha256 per file and names the file when one byte of any of them flips', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const dir = freshDir();
    await saveCheckpoint(dir, model, manifestFor(TINY_MLP), new NetworkTrainer(model, TINY_MLP).getOptimizerState(), { extraFiles: { 'notes.json': '{"a":1}' } });
    model.dispose();
    const manifest = await readCheckpointManifest(dir);
    expect(Object.keys(manifest.files ?? {}).sort()).toEqual(['model.json', 'model.onnx', 'notes.json', 'optimizer.bin', 'optimizer.json', 'weights.bin']);
    for (const name of [...Object.keys(manifest.files ?? {}), 'manifest.json']) {
      const path = join(dir, name);
      const good = readFileSync(path);
      const bad = Buffer.from(good);
      bad[Math.floor(bad.length / 2)] ^= 0x01;
      writeFileSync(path, bad);
      const err = await readCheckpointManifest(dir).then((m) => verifyCheckpointFiles(dir, m)).then(() => null, (e: unknown) => e);
      expect(err, name).toBeInstanceOf(CheckpointError);
      expect((err as CheckpointError).path).toBe(path);
      expect((err as CheckpointError).message).toContain(name);
      writeFileSync(path, good);
    }
    await verifyCheckpointFiles(dir, manifest);
  });

  it('refuses to save non-finite weights and to load them', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const dir = freshDir();
    await saveCheckpoint(dir, model, manifestFor(TINY_MLP));
    const kernel = model.weights[0].read();
    model.weights[0].write(tf.fill(kernel.shape, NaN));
    await expect(saveCheckpoint(dir, model, manifestFor(TINY_MLP, { iteration: 13 }))).rejects.toThrow(/is not finite .*previous checkpoint is kept/);
    expect((await readCheckpointManifest(dir)).iteration).toBe(12);
    const weights = new Float32Array(Uint8Array.from(readFileSync(join(dir, 'weights.bin'))).buffer);
    weights[3] = NaN;
    tamper(dir, 'weights.bin', new Uint8Array(weights.buffer));
    expect((await loadError(dir)).message).toMatch(/weights\.bin holds non-finite weights/);
    model.dispose();
  });

  it('loads without the optimizer files the manifest lists, and says so', async () => {
    const model = buildModel(TINY_MLP, { seed: 1 });
    const dir = freshDir();
    await saveCheckpoint(dir, model, manifestFor(TINY_MLP), new NetworkTrainer(model, TINY_MLP).getOptimizerState());
    unlinkSync(join(dir, 'optimizer.bin'));
    unlinkSync(join(dir, 'optimizer.json'));
    const loaded = await loadCheckpoint(dir);
    expect(loaded.optimizerState).toBeUndefined();
    expect(loaded.optimizerMissing).toBe(true);
    loaded.model.dispose();
    model.dispose();
  });
});

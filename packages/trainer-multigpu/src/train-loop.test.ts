// The single-process loop on onnxruntime: self-play and evaluation search with an exported snapshot of the
// weights, re-exported and swapped after each training phase, and model.onnx in every checkpoint.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry, type InferenceModel } from '@az/core';
import { CheckpointError, TfjsInferenceModel, loadCheckpoint, openCheckpointInference, serializeWeights } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { runTraining } from './train-loop.js';
import { openRun } from './run-open.js';
import { TRAINING_WEIGHTS_FILE } from './run-networks.js';
import { disposeRun, refreshInference } from './run-session.js';

const work = mkdtempSync(join(tmpdir(), 'az-train-loop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const tiny = {
  game: 'tictactoe',
  network: { kind: 'mlp' as const, hidden: [16] },
  gamesPerIteration: 4,
  parallelGames: 4,
  simulations: 8,
  leavesPerTree: 4,
  trainingSteps: 2,
  batchSize: 16,
  evalGames: 1,
  evalSimulations: 4,
  backend: 'cpu' as const,
  inferenceThreads: 1,
  seed: 5,
};

async function outputs(model: InferenceModel, input: Float32Array): Promise<Float32Array> {
  const policy = new Float32Array(model.config.actionSize);
  const value = new Float32Array(model.config.numSeats);
  await model.predict(input, 1, policy, value);
  return Float32Array.from([...policy, ...value]);
}

describe('runTraining with onnx inference', () => {
  it('searches with onnxruntime, swaps in a fresh export after training, and checkpoints model.onnx', async () => {
    const logs: string[] = [];
    const out = join(work, 'run');
    const summary = await runTraining({ ...tiny, iterations: 2, inferenceBackend: 'onnx', out }, { registry, events: { log: (m) => logs.push(m) } });
    expect(summary.iterations).toBe(2);
    expect(logs).toContain('inference: onnx (onnxruntime, 1 thread, run in the main thread)');
    const dir = join(out, 'checkpoints', 'iter-000002');
    expect(summary.checkpointDir).toBe(dir);
    expect(existsSync(join(dir, 'model.onnx'))).toBe(true);
    // The checkpoint's graph is the final weights: same outputs as its tfjs model.
    const { model, manifest } = await loadCheckpoint(dir);
    expect(manifest.iteration).toBe(2);
    const tfjs = new TfjsInferenceModel(model, manifest.network);
    const onnx = await openCheckpointInference(dir, { engine: 'onnx', threads: 1 });
    expect(onnx.source).toBe('model.onnx');
    const input = new Float32Array(27).map((_, i) => (i % 4 === 0 ? 1 : 0));
    const [a, b] = [await outputs(onnx.inference, input), await outputs(tfjs, input)];
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-5);
    onnx.inference.dispose();
    tfjs.dispose();
  });

  it('trains each iteration at the learning rate of its schedule and reports it in metrics.jsonl', async () => {
    const out = join(work, 'cosine');
    await runTraining({ ...tiny, iterations: 3, evalGames: 0, learningRate: 2e-3, learningRateSchedule: 'cosine', out }, { registry });
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { train: { learningRate: number } });
    expect(lines.map((l) => l.train.learningRate)).toEqual([2e-3, 1.1e-3, 2e-4].map((x) => expect.closeTo(x, 12)));
  });

  it('refreshInference re-exports only when the weights version moved; tfjs inference shares the weights', async () => {
    const run = await openRun({ ...tiny, inferenceBackend: 'onnx', out: join(work, 'refresh') }, { registry });
    try {
      const engine = run.networks.inference;
      expect([engine.name, engine.weightsVersion]).toEqual(['onnx', 0]);
      expect(run.networks.evaluator.model).toBe(engine);
      const input = new Float32Array(27).fill(0.5);
      const before = await outputs(engine, input);
      // A training step changes the weights; the snapshot keeps answering with the old ones until the version moves.
      const policy = new Float32Array(16 * 9).fill(1 / 9);
      run.trainer.trainBatch(new Float32Array(16 * 27).fill(1), policy, new Float32Array(16 * 2).fill(1), 16);
      await refreshInference(run);
      expect(await outputs(engine, input)).toEqual(before); // same version: nothing to do
      run.state.weightsVersion++;
      await refreshInference(run);
      expect(engine.weightsVersion).toBe(1);
      const reference = new TfjsInferenceModel(run.networks.model, run.networks.config, { ownsModel: false });
      const [a, b] = [await outputs(engine, input), await outputs(reference, input)];
      expect(a).not.toEqual(before);
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-5);
    } finally {
      disposeRun(run);
    }
    const tfjsRun = await openRun({ ...tiny, inferenceBackend: 'tfjs', out: join(work, 'tfjs') }, { registry });
    expect(tfjsRun.networks.inference.name).toBe('tfjs');
    disposeRun(tfjsRun);
  });

  it('--weights-average: checkpoints play the moving average, keep the trained weights, and a resume trains on those', async () => {
    const out = join(work, 'average');
    await runTraining({ ...tiny, iterations: 3, weightsAverageDecay: 0.6, inferenceBackend: 'onnx', out }, { registry });
    const trainedAt: Float32Array[] = [];
    const averageAt: Float32Array[] = [];
    for (const i of [1, 2, 3]) {
      const dir = join(out, 'checkpoints', `iter-00000${i}`);
      trainedAt[i] = new Float32Array(new Uint8Array(readFileSync(join(dir, TRAINING_WEIGHTS_FILE))).buffer);
      const { model } = await loadCheckpoint(dir);
      averageAt[i] = new Float32Array(serializeWeights(model).data);
      model.dispose();
    }
    // The average starts as the plain mean of the iterations so far (decay min(0.6, (i - 1) / i)), then decays by 0.6.
    expect(averageAt[1]).toEqual(trainedAt[1]);
    const expected2 = averageAt[1].map((a, k) => 0.5 * a + 0.5 * trainedAt[2][k]);
    const expected3 = expected2.map((a, k) => 0.6 * a + 0.4 * trainedAt[3][k]);
    for (let k = 0; k < expected3.length; k++) {
      expect(averageAt[2][k]).toBeCloseTo(expected2[k], 5);
      expect(averageAt[3][k]).toBeCloseTo(expected3[k], 5);
    }
    expect(trainedAt[3]).not.toEqual(averageAt[3]);
    // model.onnx is the average too: everything that opens the checkpoint plays it.
    const onnx = await openCheckpointInference(join(out, 'checkpoints', 'iter-000003'), { engine: 'onnx', threads: 1 });
    const { model: averageModel, manifest } = await loadCheckpoint(join(out, 'checkpoints', 'iter-000003'));
    const input = new Float32Array(27).map((_, i) => (i % 3 === 0 ? 1 : 0));
    const [a, b] = [await outputs(onnx.inference, input), await outputs(new TfjsInferenceModel(averageModel, manifest.network), input)];
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-5);
    onnx.inference.dispose();

    // A resume trains on the trained weights and keeps averaging into the checkpoint's average.
    const resumed = await openRun({ ...tiny, iterations: 4, weightsAverageDecay: 0.6, resume: out }, { registry });
    try {
      expect(new Float32Array(serializeWeights(resumed.networks.model).data)).toEqual(trainedAt[3]);
      expect(new Float32Array(serializeWeights(resumed.networks.playingModel).data)).toEqual(averageAt[3]);
      expect(resumed.networks.playingEvaluator).not.toBe(resumed.networks.evaluator);
    } finally {
      disposeRun(resumed);
    }
    // Averaging turned off: the trained weights train and play.
    const plain = await openRun({ ...tiny, iterations: 4, weightsAverageDecay: 0, resume: out }, { registry });
    try {
      expect(plain.networks.playingModel).toBe(plain.networks.model);
      expect(new Float32Array(serializeWeights(plain.networks.model).data)).toEqual(trainedAt[3]);
    } finally {
      disposeRun(plain);
    }
    // Training weights that do not fit the network are refused by name.
    const damaged = join(work, 'average-damaged');
    await runTraining({ ...tiny, iterations: 1, weightsAverageDecay: 0.6, out: damaged }, { registry });
    const file = join(damaged, 'checkpoints', 'iter-000001', TRAINING_WEIGHTS_FILE);
    writeFileSync(file, readFileSync(file).subarray(4));
    await expect(openRun({ ...tiny, iterations: 2, weightsAverageDecay: 0.6, resume: damaged }, { registry })).rejects.toThrow(CheckpointError);
    await expect(openRun({ ...tiny, iterations: 2, weightsAverageDecay: 0.6, resume: damaged }, { registry })).rejects.toThrow(/training-weights\.bin is truncated/);
  });
});

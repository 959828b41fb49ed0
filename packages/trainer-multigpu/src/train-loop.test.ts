// The single-process loop on onnxruntime: self-play and evaluation search with an exported snapshot of the
// weights, re-exported and swapped after each training phase, and model.onnx in every checkpoint.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry, type InferenceModel } from '@az/core';
import { OnnxInferenceModel, TfjsInferenceModel, loadCheckpoint, openCheckpointInference } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { runTraining } from './train-loop.js';
import { disposeRun, openRun } from './run-session.js';

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
    expect(logs).toContain('inference: onnx (onnxruntime, 1 thread)');
    const dir = join(out, 'checkpoints', 'iter-000002');
    expect(summary.checkpointDir).toBe(dir);
    expect(existsSync(join(dir, 'model.onnx'))).toBe(true);
    // The checkpoint's graph is the final weights: same outputs as its tfjs model.
    const { model, manifest } = await loadCheckpoint(dir);
    expect(manifest.iteration).toBe(2);
    const tfjs = new TfjsInferenceModel(model, manifest.network);
    const onnx = await openCheckpointInference(dir, { backend: 'onnx', threads: 1 });
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
      const first = run.inference;
      expect(first).toBeInstanceOf(OnnxInferenceModel);
      await run.refreshInference();
      expect(run.inference).toBe(first); // same version: nothing to do
      const input = new Float32Array(27).fill(0.5);
      const before = await outputs(first, input);
      // A training step changes the weights; the snapshot keeps answering with the old ones until refreshed.
      const policy = new Float32Array(16 * 9).fill(1 / 9);
      run.trainer.trainBatch(new Float32Array(16 * 27).fill(1), policy, new Float32Array(16 * 2).fill(1), 16);
      run.state.weightsVersion++;
      expect(await outputs(first, input)).toEqual(before);
      await run.refreshInference();
      expect(run.inference).not.toBe(first);
      expect(run.evaluator.model).toBe(run.inference);
      await expect(first.predict(input, 1, new Float32Array(9), new Float32Array(2))).rejects.toThrow(/after dispose/);
      const reference = new TfjsInferenceModel(run.model, run.networkConfig, { ownsModel: false });
      const [a, b] = [await outputs(run.inference, input), await outputs(reference, input)];
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-5);
    } finally {
      disposeRun(run);
    }
    const tfjsRun = await openRun({ ...tiny, inferenceBackend: 'tfjs', out: join(work, 'tfjs') }, { registry });
    expect(tfjsRun.inference).toBeInstanceOf(TfjsInferenceModel);
    disposeRun(tfjsRun);
  });
});

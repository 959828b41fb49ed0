// --backend across az train / eval: onnxruntime runs the search (tfjs trains), the checkpoint carries
// model.onnx, tfjs backends still work, and a missing CUDA provider is a clear error. Uses the built CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-cli-onnx-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function az(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: work, timeout: 240_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('az --backend onnx', () => {
  const out = join(work, 'run');

  it('trains with onnxruntime search and evaluates the model on each engine', () => {
    const train = az(['train', '--game', 'tictactoe', '--out', out, '--iterations', '1', '--games-per-iter', '8', '--parallel-games', '8', '--sims', '8', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '--backend', 'onnx', '--threads', '1', '--quiet']);
    expect(train.stderr).toContain('inference: onnx (onnxruntime, 1 thread, run in the main thread)');
    expect(train.code).toBe(0);
    expect(existsSync(join(out, 'checkpoints', 'iter-000001', 'model.onnx'))).toBe(true);

    for (const backend of ['onnx', 'wasm']) {
      const r = az(['eval', '--game', 'tictactoe', '--a', out, '--b', 'random', '--games', '2', '--sims', '8', '--backend', backend, '--threads', '1', '--json']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
  });

  it('names the missing CUDA provider and how to install it', () => {
    const r = az(['eval', '--game', 'tictactoe', '--a', out, '--b', 'random', '--games', '1', '--backend', 'onnx-cuda']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/az eval: --backend onnx-cuda: .*(CUDA provider is not installed.*ONNXRUNTIME_NODE_INSTALL=cuda12|Linux x64 only)/);
  });
});

// az train --records end to end: Connect Four learns from records of its own bots (az eval --games-out),
// the pretrained network beats the untrained one of the same seed, and self-play continues from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-train-records-');
// Small and fast: an MLP, small batches, the wasm backend (no onnxruntime start-up).
const TRAIN = ['train', '--game', 'connect4', '--network', 'mlp:64,64', '--batch-size', '64', '--backend', 'wasm', '--seed', '3', '--quiet'];

/** Agent A's score and its Wilson 95% interval, from the last line of az eval. */
function scoreOf(stdout: string): { score: number; low: number; high: number } {
  const m = /A's score ([\d.]+) \[([\d.]+), ([\d.]+)\]/.exec(stdout);
  if (!m) throw new Error(`no score in: ${stdout}`);
  return { score: Number(m[1]), low: Number(m[2]), high: Number(m[3]) };
}

beforeAll(() => {
  const r = az(['eval', '--game', 'connect4', '--a', 'mcts', '--b', 'mcts', '--games', '200', '--seed', '1', '--games-out', 'c4.jsonl']);
  expect(r.code, r.stderr).toBe(0);
});

describe('az train --records (Connect Four)', () => {
  it('pretrains on its bots\' records a network that beats the untrained one, then self-play continues from it', () => {
    const pre = az([...TRAIN, '--records', 'c4.jsonl', '--records-steps', '300', '--iterations', '0', '--out', 'pre']);
    expect(pre.code, pre.stderr).toBe(0);
    expect(pre.stderr).toMatch(/records: 200 games read from c4\.jsonl, \d+ positions in [\d.]+s \(\d+ positions\/s\); none skipped/);
    expect(pre.stderr).toMatch(/records: pretrained 300 steps .*checkpoint .*iter-000000/);
    // The same seed without pretraining steps: the untrained network, checkpointed.
    const untrained = az([...TRAIN, '--records', 'c4.jsonl', '--records-steps', '0', '--iterations', '0', '--out', 'untrained']);
    expect(untrained.code, untrained.stderr).toBe(0);
    expect(untrained.stderr).toContain('records: the untrained network (no pretraining steps)');

    const match = az(['eval', '--game', 'connect4', '--a', 'pre', '--b', 'untrained', '--sims', '32', '--games', '100', '--seed', '1', '--backend', 'wasm']);
    expect(match.code, match.stderr).toBe(0);
    // Measured 0.71-0.75 over seeds 1-3; an untrained pretraining would score about 0.5.
    expect(scoreOf(match.stdout).low).toBeGreaterThan(0.5);

    const resumed = az(['train', '--resume', 'pre', '--iterations', '1', '--games-per-iter', '4', '--sims', '16', '--train-steps', '10', '--eval-games', '0', '--backend', 'wasm', '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resumed from .*iter-000000 at iteration 0 \(weights v1/);
    const metrics = readFileSync(join(work, 'pre', 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { iteration: number; weightsVersion: number; selfPlay: { games: number } });
    expect(metrics.map((m) => [m.iteration, m.weightsVersion, m.selfPlay.games])).toEqual([[1, 2, 4]]);
  });

  it('mixes records into each iteration at a share falling to --records-share-final, and refuses its flags without --records', () => {
    const r = az([...TRAIN, '--records', 'c4.jsonl', '--records-steps', '0', '--records-share', '0.5', '--records-share-final', '0', '--iterations', '2', '--games-per-iter', '2', '--sims', '8', '--train-steps', '2', '--eval-games', '0', '--out', 'mixed']);
    expect(r.code, r.stderr).toBe(0);
    const shares = readFileSync(join(work, 'mixed', 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { train: { recordsShare?: number } }).train.recordsShare);
    expect(shares).toEqual([0.5, undefined]);

    const lonely = az(['train', '--game', 'connect4', '--records-share', '0.5']);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain('--records-share only applies with --records');
  });
});

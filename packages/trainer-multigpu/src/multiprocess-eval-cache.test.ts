// The NN evaluation cache's hit rate in metrics.jsonl (issue 15), in-process and when self-play runs in a
// worker process: the worker sends its cache counters with its games and heartbeats, and each line
// carries `selfPlay.cacheHitRate` as the in-process loop writes it. Uses the built worker (dist/worker.js).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { parseDeviceSpec } from './devices.js';
import { runMultiProcessTraining } from './multiprocess.js';
import type { IterationMetrics } from './metrics.js';
import { runTraining } from './train-loop.js';

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'az-mp-eval-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });

const iterations = 2;
const tiny = {
  game: 'tictactoe',
  gamesPerIteration: 8,
  parallelGames: 4,
  simulations: 8,
  leavesPerTree: 4,
  trainingSteps: 2,
  batchSize: 16,
  evalGames: 0,
  evalCacheSize: 10_000,
  seed: 7,
  iterations,
};

const readRows = (out: string): IterationMetrics[] =>
  readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IterationMetrics);

function expectHitRates(rows: readonly IterationMetrics[]): void {
  expect(rows).toHaveLength(iterations);
  // Tic-tac-toe transposes a lot (and every game of a batch starts from the same position): hits > 0.
  for (const m of rows) {
    expect(typeof m.selfPlay.cacheHitRate).toBe('number');
    expect(m.selfPlay.cacheHitRate).toBeGreaterThan(0);
    expect(m.selfPlay.cacheHitRate).toBeLessThanOrEqual(1);
  }
}

describe('training with --eval-cache', () => {
  it('reports the cache hit rate of every iteration in metrics.jsonl when self-play runs in this process', async () => {
    const out = join(work, 'in-process');
    const summary = await runTraining({ ...tiny, out }, { registry });
    expect(summary.iterations).toBe(iterations);
    const rows = readRows(out);
    expectHitRates(rows);
    process.stdout.write(`in-process cache hit rate per iteration: ${rows.map((m) => m.selfPlay.cacheHitRate?.toFixed(4)).join(', ')}\n`);
  }, 120_000);

  it('reports the worker cache hit rate of every iteration in metrics.jsonl when self-play runs in a worker process', async () => {
    const out = join(work, 'worker');
    const lines: IterationMetrics[] = [];
    const summary = await runMultiProcessTraining(
      { ...tiny, out },
      {
        devices: parseDeviceSpec('cpu:1'),
        workerExecArgv: [],
        plugin: { moduleUrl: pathToFileURL(join(here, '..', '..', 'game-tictactoe', 'dist', 'index.js')).href, exportName: 'ticTacToePlugin' },
      },
      { registry, events: { iteration: (m) => lines.push(m) } },
    );
    expect(summary.iterations).toBe(iterations);
    const rows = readRows(out);
    expectHitRates(rows);
    // The iteration event (the CLI's progress line) carries the same figure as the file.
    expect(lines.map((m) => m.selfPlay.cacheHitRate)).toEqual(rows.map((m) => m.selfPlay.cacheHitRate));
    process.stdout.write(`worker cache hit rate per iteration: ${rows.map((m) => m.selfPlay.cacheHitRate?.toFixed(4)).join(', ')}\n`);
  }, 120_000);
});

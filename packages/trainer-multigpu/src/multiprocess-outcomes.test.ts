// Which games an iteration's `selfPlay.outcomes` describes, with a transport double instead of
// processes: the games of the iteration's own window, even when the whole next window arrives while
// it is still training (what a loaded machine does with real workers; the real-process test then saw
// an iteration with no outcomes at all).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { syntheticRecord } from './test-records.js';
import { parseDeviceSpec } from './devices.js';
import { runMultiProcessTraining } from './multiprocess.js';
import type { IterationMetrics } from './metrics.js';
import type { IncomingGame, PublishedWeights, SelfPlayTransport, WorkerEvent, WorkerStatus } from './transport.js';

const work = mkdtempSync(join(tmpdir(), 'az-mp-outcomes-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const game = ticTacToePlugin.create({});

/**
 * Delivers a window of games when the workers start, and the next window (of longer games) right when
 * new weights are published, i.e. while that iteration is still evaluating and saving.
 */
class BurstTransport implements SelfPlayTransport {
  private gameListener: (g: IncomingGame) => void = () => undefined;
  private seq = 0;
  private published = 0;
  constructor(
    private readonly perWindow: number,
    private readonly windows: number,
  ) {}
  onGame(listener: (g: IncomingGame) => void): void {
    this.gameListener = listener;
  }
  onWorkerEvent(_listener: (e: WorkerEvent) => void): void {}
  start(_setup: unknown, weights: PublishedWeights): Promise<void> {
    this.burst(weights.version, 5);
    return Promise.resolve();
  }
  publishWeights(weights: PublishedWeights): void {
    this.published++;
    // Window k+1 (games of length 5 + k) lands during iteration k.
    if (this.published < this.windows) this.burst(weights.version, 5 + this.published);
  }
  setPaused(): void {}
  workers(): readonly WorkerStatus[] {
    return [{ id: 0, device: 'cpu:0', pid: null, incarnation: 0, state: 'running', restarts: 0, gamesReceived: this.seq, weightsVersion: 0, stats: { games: this.seq, positions: 0, evaluations: 0, evaluatorCalls: 0 } }];
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  private burst(version: number, length: number): void {
    for (let i = 0; i < this.perWindow; i++) {
      this.gameListener({ workerId: 0, device: 'cpu:0', incarnation: 0, seq: this.seq++, weightsVersion: version, bytes: syntheticRecord(game, length, i % 2, version) });
    }
  }
}

describe('multi-process iteration metrics', () => {
  it("report the outcomes of each iteration's own games, even when the next window fills during training", async () => {
    const iterations = 3;
    const perWindow = 4;
    const out = join(work, 'run');
    const summary = await runMultiProcessTraining(
      { game: 'tictactoe', gamesPerIteration: perWindow, parallelGames: 2, simulations: 2, trainingSteps: 1, batchSize: 4, evalGames: 0, seed: 1, iterations, out },
      { devices: parseDeviceSpec('cpu:1'), plugin: { moduleUrl: 'unused:', exportName: 'unused' }, transport: new BurstTransport(perWindow, iterations) },
      { registry },
    );
    expect(summary.iterations).toBe(iterations);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IterationMetrics);
    expect(lines).toHaveLength(iterations);
    // Window k holds games of length 5 + (k - 1), half won by each seat.
    lines.forEach((m, k) => {
      expect(m.selfPlay.games).toBe(perWindow);
      expect(m.selfPlay.outcomes.meanLength).toBe(5 + k);
      expect(m.selfPlay.outcomes.winShareBySeat).toEqual([0.5, 0.5]);
    });
  }, 120_000);
});

// How many games each multi-process iteration trains on, with a transport double instead of processes.
// Real workers on a busy trainer deliver a backlog at once: the trainer cannot read (and so cannot pause
// them) while it trains, evaluates and saves, and the games they finished meanwhile all arrive together.
// Here every delivery is such a backlog, three windows' worth, and games keep coming after the last
// iteration (while the workers stop). Each iteration must still train on exactly `gamesPerIteration`
// games, the rest be dropped as surplus, and the summary's total equal the iteration lines' sum.
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

const work = mkdtempSync(join(tmpdir(), 'az-mp-count-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const game = ticTacToePlugin.create({});
const LENGTH = 5;

/** Delivers `backlog` games at once when the workers start, whenever new weights go out, and when they stop. */
class BacklogTransport implements SelfPlayTransport {
  private gameListener: (g: IncomingGame) => void = () => undefined;
  private seq = 0;
  private version = 0;
  readonly pauses: boolean[] = [];
  sent = 0;
  constructor(private readonly backlog: number) {}
  onGame(listener: (g: IncomingGame) => void): void {
    this.gameListener = listener;
  }
  onWorkerEvent(_listener: (e: WorkerEvent) => void): void {}
  start(_setup: unknown, weights: PublishedWeights): Promise<void> {
    this.version = weights.version;
    this.burst();
    return Promise.resolve();
  }
  publishWeights(weights: PublishedWeights): void {
    this.version = weights.version;
    this.burst();
  }
  setPaused(paused: boolean): void {
    this.pauses.push(paused);
  }
  workers(): readonly WorkerStatus[] {
    return [{ id: 0, device: 'cpu:0', pid: null, incarnation: 0, state: 'running', restarts: 0, gamesReceived: this.seq, weightsVersion: this.version, stats: { games: this.seq, positions: 0, evaluations: 0, evaluatorCalls: 0 } }];
  }
  stop(): Promise<void> {
    // The games the workers finished before the stop reached them.
    this.burst();
    return Promise.resolve();
  }
  private burst(): void {
    for (let i = 0; i < this.backlog; i++) {
      this.sent++;
      this.gameListener({ workerId: 0, device: 'cpu:0', incarnation: 0, seq: this.seq++, weightsVersion: this.version, bytes: syntheticRecord(game, LENGTH, i % 2, this.version) });
    }
  }
}

describe('multi-process game count', () => {
  it('trains each iteration on exactly gamesPerIteration games and counts only those, however many arrive at once', async () => {
    const iterations = 3;
    const perIteration = 4;
    const transport = new BacklogTransport(3 * perIteration);
    const out = join(work, 'run');
    const summary = await runMultiProcessTraining(
      { game: 'tictactoe', gamesPerIteration: perIteration, parallelGames: 2, simulations: 2, trainingSteps: 1, batchSize: 4, evalGames: 0, seed: 1, iterations, out },
      { devices: parseDeviceSpec('cpu:1'), plugin: { moduleUrl: 'unused:', exportName: 'unused' }, transport },
      { registry },
    );
    expect(summary.iterations).toBe(iterations);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IterationMetrics);
    expect(lines.map((m) => m.selfPlay.games)).toEqual([perIteration, perIteration, perIteration]);
    expect(lines.map((m) => m.selfPlay.positions)).toEqual([perIteration * LENGTH, perIteration * LENGTH, perIteration * LENGTH]);
    // The summary counts the games the iterations trained on, and the replay buffer holds no other.
    expect(summary.gamesPlayed).toBe(iterations * perIteration);
    expect(summary.workers.gamesAccepted).toBe(iterations * perIteration);
    expect(summary.workers.positionsAccepted).toBe(iterations * perIteration * LENGTH);
    // Nothing vanishes: whatever was not taken was dropped as surplus, and counted.
    expect(summary.workers.gamesReceived).toBe(transport.sent);
    expect(summary.workers.surplusGamesDropped).toBe(transport.sent - iterations * perIteration);
    // Once the last iteration had its games, the workers were held until the end.
    expect(transport.pauses.at(-1)).toBe(true);
  }, 120_000);
});

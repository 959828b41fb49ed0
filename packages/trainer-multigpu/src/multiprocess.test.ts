// End to end: two CPU self-play processes on tic-tac-toe, a SIGKILLed worker, a hung (SIGSTOPped) worker,
// Ctrl-C (abort) and --resume. Uses the built worker (dist/worker.js): turbo builds before testing.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { listCheckpoints, readCheckpointManifest } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { parseDeviceSpec, parseGpuList, DeviceSpecError } from './devices.js';
import { runMultiProcessTraining, type MultiProcessOptions } from './multiprocess.js';
import type { IterationMetrics } from './metrics.js';
import type { WorkerEvent } from './transport.js';

/** The replay buffer's position count as the run's newest checkpoint records it. */
function savedTotalAdded(runDir: string): number {
  const newest = listCheckpoints(runDir).at(-1);
  if (!newest) throw new Error(`no checkpoint in ${runDir}`);
  return (JSON.parse(readFileSync(join(newest.dir, 'replay.json'), 'utf8')) as { totalAdded: number }).totalAdded;
}
const newestCheckpoint = (runDir: string): string => listCheckpoints(runDir).at(-1)?.dir ?? join(runDir, 'none');

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'az-multiprocess-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// The final tic-tac-toe assessment (thousands of searched positions) is not what this test is about.
const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });

const tiny = { game: 'tictactoe', gamesPerIteration: 12, parallelGames: 4, simulations: 8, leavesPerTree: 4, trainingSteps: 3, batchSize: 16, evalGames: 0, seed: 3 };
const multi: MultiProcessOptions = {
  devices: parseDeviceSpec('cpu:2'),
  heartbeatTimeoutMs: 4000,
  workerExecArgv: [],
  plugin: { moduleUrl: pathToFileURL(join(here, '..', '..', 'game-tictactoe', 'dist', 'index.js')).href, exportName: 'ticTacToePlugin' },
};

describe('device flags', () => {
  it('parses --gpus and --devices and names the flag when they are wrong', () => {
    expect(parseGpuList('0,1, 3').map((d) => d.label)).toEqual(['gpu:0', 'gpu:1', 'gpu:3']);
    expect(parseDeviceSpec('cpu:2').map((d) => d.label)).toEqual(['cpu:0', 'cpu:1']);
    for (const bad of ['', '0,,1', '-1', '1.5', 'a', '0,0', '1e2']) expect(() => parseGpuList(bad)).toThrow(DeviceSpecError);
    expect(() => parseGpuList('0,0')).toThrow(/--gpus lists GPU 0 more than once/);
    for (const bad of ['cpu:0', 'cpu', 'gpu:1', 'cpu:-1', '2']) expect(() => parseDeviceSpec(bad)).toThrow(/--devices must be cpu:N/);
  });
});

describe('runMultiProcessTraining (2 CPU workers, tic-tac-toe)', () => {
  const out = join(work, 'run');

  it(
    'streams games from both workers, advances weights, survives a killed and a hung worker, and stops cleanly on abort',
    async () => {
      const controller = new AbortController();
      const events: WorkerEvent[] = [];
      const metrics: IterationMetrics[] = [];
      const pids = new Map<number, number>(); // worker id -> current pid
      let lastIncarnation0 = 0;
      // The incarnation of worker 0 that was frozen, and how many iterations had passed when its replacement was ready.
      let frozenIncarnation = -1;
      let replacedAt = -1;
      const signal = (workerId: number, sig: NodeJS.Signals): void => {
        const pid = pids.get(workerId);
        // Never process.kill(-1 or 0): that would signal every process we may signal.
        if (pid === undefined || pid <= 0) throw new Error(`no pid for worker ${workerId}`);
        process.kill(pid, sig);
      };
      const summary = await runMultiProcessTraining(
        // The iteration count is only a cap: the test stops the run itself (Ctrl-C) once it has seen enough.
        { ...tiny, out, iterations: 500 },
        multi,
        {
          registry,
          signal: controller.signal,
          events: {
            worker: (e) => {
              events.push(e);
              if (e.kind !== 'ready') return;
              pids.set(e.workerId, e.pid);
              // The killed worker is back: now freeze the other one (a hang: alive but silent).
              if (e.workerId === 1 && e.incarnation >= 1 && frozenIncarnation < 0 && pids.has(0)) {
                frozenIncarnation = lastIncarnation0;
                signal(0, 'SIGSTOP');
              }
              if (e.workerId === 0) lastIncarnation0 = e.incarnation;
              // Waits for the replacement of the frozen worker (not of an earlier one a slow machine made look hung).
              if (e.workerId === 0 && frozenIncarnation >= 0 && e.incarnation > frozenIncarnation && replacedAt < 0) replacedAt = metrics.length;
            },
            iteration: (m) => {
              metrics.push(m);
              if (m.iteration === 1) signal(1, 'SIGKILL');
              // Two more iterations with the hung worker's replacement playing, then Ctrl-C.
              if (replacedAt >= 0 && metrics.length >= replacedAt + 2) controller.abort();
            },
          },
        },
      );

      expect(summary.interrupted).toBe(true);
      const w = summary.workers;
      // Both crashes were noticed and both slots restarted.
      expect(w.crashes).toBeGreaterThanOrEqual(1);
      expect(w.hangs).toBeGreaterThanOrEqual(1);
      expect(w.restarts).toBeGreaterThanOrEqual(2);
      expect(events.some((e) => e.kind === 'exited' && e.workerId === 1 && e.reason === 'crashed' && e.signal === 'SIGKILL')).toBe(true);
      expect(events.some((e) => e.kind === 'exited' && e.workerId === 0 && e.reason === 'hung')).toBe(true);
      // Every worker contributed, and with weights newer than the first.
      for (const label of ['cpu:0', 'cpu:1']) {
        expect(w.devices[label].gamesAccepted).toBeGreaterThan(0);
        expect(w.devices[label].newestGameVersion).toBeGreaterThanOrEqual(1);
      }
      // No finished game lost: every game sent arrived (no sequence gaps), every arrival is accounted for.
      expect(w.sequenceGaps).toBe(0);
      expect(w.corruptGames).toBe(0);
      expect(w.gamesReceived).toBe(w.gamesAccepted + w.staleGamesDropped + w.surplusGamesDropped);
      expect(savedTotalAdded(out)).toBe(w.positionsAccepted);
      // The summary counts the games the iterations took, gamesPerIteration each; the interrupted
      // iteration's games (fewer) are in the checkpoint's buffer but were not trained on.
      expect(metrics.every((m) => m.selfPlay.games === tiny.gamesPerIteration)).toBe(true);
      expect(summary.gamesPlayed).toBe(metrics.length * tiny.gamesPerIteration);
      expect(w.gamesAccepted - summary.gamesPlayed).toBeGreaterThanOrEqual(0);
      expect(w.gamesAccepted - summary.gamesPlayed).toBeLessThanOrEqual(tiny.gamesPerIteration);

      // Versions advance one per iteration; metrics carry the per-device and fault counts.
      expect(metrics.map((m) => m.weightsVersion)).toEqual(metrics.map((_, i) => i + 1));
      expect(metrics.reduce((s, m) => s + (m.workers?.restarts ?? 0), 0)).toBe(w.restarts);
      const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IterationMetrics);
      expect(lines).toHaveLength(metrics.length);
      expect(Object.keys(lines[0].workers?.devices ?? {})).toEqual(['cpu:0', 'cpu:1']);
      // How the games ended: tic-tac-toe self-play has both wins and draws, and a win is a decisive game.
      for (const m of lines) {
        const o = m.selfPlay.outcomes;
        expect(o.winShareBySeat).toHaveLength(2);
        expect(o.winShareBySeat[0] + o.winShareBySeat[1]).toBeCloseTo(o.decisiveShare, 9);
        expect(o.meanLength).toBeGreaterThanOrEqual(5);
        expect(o.meanLength).toBeLessThanOrEqual(9);
        // No --eval-cache: no hit rate.
        expect(m.selfPlay.cacheHitRate).toBeUndefined();
      }
      expect(lines.some((m) => m.selfPlay.outcomes.decisiveShare > 0)).toBe(true);

      // The final checkpoint holds the iteration reached and its weights version.
      const manifest = await readCheckpointManifest(newestCheckpoint(out));
      expect(manifest.iteration).toBe(summary.iterations);
      expect(manifest.weightsVersion).toBe(summary.iterations);
    },
    120_000,
  );

  it(
    'holds the workers at their share of the next iteration while the trainer trains, so little of their play is thrown away',
    async () => {
      // Training long enough (hundreds of steps) that a worker left free would finish hundreds of games
      // meanwhile, all of them surplus; with its share sent before training, it stops after it.
      const one: MultiProcessOptions = { ...multi, devices: parseDeviceSpec('cpu:1') };
      const iterations = 3;
      // The run is locked while it trains (as in the single-process loop), and unlocked once it ends.
      const locked: boolean[] = [];
      const lockFile = join(work, 'held', 'train.lock');
      const summary = await runMultiProcessTraining({ ...tiny, out: join(work, 'held'), iterations, trainingSteps: 300, batchSize: 64 }, one, {
        registry,
        events: { iteration: () => locked.push(existsSync(lockFile)) },
      });
      expect(locked).toEqual([true, true, true]);
      expect(existsSync(lockFile)).toBe(false);
      // Nothing is taken in after the last window closes, so no second checkpoint of the last iteration.
      expect(listCheckpoints(join(work, 'held')).map((c) => c.name)).toEqual(['iter-000001', 'iter-000002', 'iter-000003']);
      const w = summary.workers;
      expect(summary.gamesPlayed).toBe(iterations * tiny.gamesPerIteration);
      expect(w.gamesReceived).toBe(w.gamesAccepted + w.staleGamesDropped + w.surplusGamesDropped);
      // A window may still overshoot by the games that finish in the step that spends the share, and by
      // those on their way when the share is sent: a few search steps' worth, not a training phase's.
      expect(w.surplusGamesDropped).toBeLessThanOrEqual(iterations * 4 * tiny.parallelGames);
    },
    120_000,
  );

  it(
    "stops with the worker's reason when it cannot load the game, instead of restarting it forever",
    async () => {
      const bad: MultiProcessOptions = { ...multi, devices: parseDeviceSpec('cpu:1'), plugin: { ...multi.plugin, exportName: 'noSuchExport' } };
      await expect(runMultiProcessTraining({ ...tiny, out: join(work, 'bad'), iterations: 1 }, bad, { registry })).rejects.toThrow(
        /worker 0 \(cpu:0\).*export 'noSuchExport' is not a usable game plugin/,
      );
      expect(existsSync(join(work, 'bad', 'train.lock'))).toBe(false);
    },
    60_000,
  );

  it(
    'resumes with the same weights version, replay buffer and iteration count',
    async () => {
      const before = await readCheckpointManifest(newestCheckpoint(out));
      const checkpointBefore = newestCheckpoint(out);
      const addedBefore = savedTotalAdded(out);
      const logs: string[] = [];
      const summary = await runMultiProcessTraining({ ...tiny, out, resume: out, iterations: before.iteration + 1 }, multi, {
        registry,
        events: { log: (m) => logs.push(m) },
      });
      expect(summary.interrupted).toBe(false);
      expect(logs.join('\n')).toContain(`resumed from ${checkpointBefore} at iteration ${before.iteration} (weights v${before.weightsVersion}`);
      expect(summary.iterations).toBe(before.iteration + 1);
      expect(summary.lastMetrics?.weightsVersion).toBe(before.weightsVersion + 1);
      expect(savedTotalAdded(out)).toBe(addedBefore + summary.workers.positionsAccepted);
      const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as IterationMetrics);
      expect(lines.map((m) => m.iteration)).toEqual(lines.map((_, i) => i + 1));
    },
    60_000,
  );
});

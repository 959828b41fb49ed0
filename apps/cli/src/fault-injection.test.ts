// Fault injection: the trainer (the built `az train`) is SIGKILLed at every file-system step of a
// checkpoint write, NaNs are injected into weights, replay and gradients, and every checkpoint file (and
// replay segment) gets a flipped byte or is truncated. After each fault, what `az train --resume` and
// `az play`/`az eval` do to load a run (runTraining with resume, and loadModel, in this process) must
// either continue from the last good checkpoint, with one metrics.jsonl line per iteration, or stop with
// an error naming the damaged file. The steps to kill at are read from the trainer's own trace
// (AZ_FAULT_TRACE), so a new step is covered without editing this list. The counts are printed at the end; "runs lost" must be 0.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { CheckpointError, listCheckpoints, readCheckpointManifest, sha256 } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { TrainingDivergedError, runTraining, type TrainOptionsInput } from '@az/trainer-multigpu';
import { loadModel } from './agents.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-faults-'));
const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const plugin = registry.resolve('tictactoe');
// A ring smaller than two iterations' positions, and --keep 1, so saves also drop segments and checkpoints.
const tiny: TrainOptionsInput = {
  game: 'tictactoe',
  network: { kind: 'mlp', hidden: [8] },
  gamesPerIteration: 4,
  parallelGames: 4,
  simulations: 4,
  leavesPerTree: 2,
  trainingSteps: 2,
  batchSize: 8,
  evalGames: 0,
  replayCapacity: 20,
  keepCheckpoints: 1,
  backend: 'cpu',
  inferenceBackend: 'tfjs',
  seed: 9,
};
const base = join(work, 'base');
const counts = { faults: 0, recovered: 0, stoppedNamingFile: 0, lost: 0 };
let copies = 0;

afterAll(() => {
  console.log(`fault injection: ${counts.faults} faults injected, ${counts.recovered} runs recovered, ${counts.stoppedNamingFile} stopped naming the damaged file, ${counts.lost} runs lost`);
  rmSync(work, { recursive: true, force: true });
});

function copyOfBase(): string {
  const dir = join(work, `run-${++copies}`);
  cpSync(base, dir, { recursive: true });
  return dir;
}

async function errorOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => null, (e: unknown) => e);
}

/** What `az play --model dir` / `az eval --a dir` do to load it; checks the network answers with finite numbers. */
async function playLoads(dir: string): Promise<void> {
  const model = await loadModel(plugin, dir, { backend: 'auto', threads: 1, log: () => undefined });
  try {
    const policy = new Float32Array(9);
    const value = new Float32Array(2);
    await model.evaluator.model.predict(new Float32Array(27).fill(0.5), 1, policy, value);
    expect([...policy, ...value].every(Number.isFinite)).toBe(true);
  } finally {
    model.dispose();
  }
}

/** After a fault the run must continue from its newest complete checkpoint, to the end. */
async function expectRecovers(dir: string, label: string): Promise<void> {
  await countingLoss(() => recovers(dir, label));
  counts.recovered++;
}

/** A check that fails means a run was lost (or a wrong model accepted): counted, then reported by the test. */
async function countingLoss(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    counts.lost++;
    throw err;
  }
}

async function recovers(dir: string, label: string): Promise<void> {
  const newest = listCheckpoints(dir).at(-1);
  expect(newest, `${label}: a complete checkpoint remains`).toBeDefined();
  const before = (await readCheckpointManifest(newest?.dir ?? '')).iteration;
  expect([1, 2], label).toContain(before);
  await playLoads(dir);
  const summary = await runTraining({ game: 'tictactoe', resume: dir, iterations: 3 }, { registry });
  expect(summary.iterations, label).toBe(3);
  const iterations = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { iteration: number }).iteration);
  expect(iterations, `${label}: metrics.jsonl has one line per iteration, in order`).toEqual([1, 2, 3]);
  await playLoads(dir);
}

/** After damage to `file`, resume and (unless only the replay is hit) play must stop naming it. */
async function expectStopsNaming(dir: string, file: string, label: string, playReadsIt: boolean): Promise<void> {
  await countingLoss(() => stopsNaming(dir, file, label, playReadsIt));
  counts.stoppedNamingFile++;
}

async function stopsNaming(dir: string, file: string, label: string, playReadsIt: boolean): Promise<void> {
  const resume = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
  expect(resume, `${label}: resume`).toBeInstanceOf(CheckpointError);
  expect((resume as Error).message, `${label}: resume names the file`).toContain(file);
  if (playReadsIt) {
    const play = await errorOf(playLoads(dir));
    expect(play, `${label}: play`).toBeInstanceOf(CheckpointError);
    expect((play as Error).message, `${label}: play names the file`).toContain(file);
  } else {
    await playLoads(dir); // the model itself is intact
  }
}

/** Signs a checkpoint's manifest again after `files` changed, as a buggy writer (not a bit flip) would. */
function resign(checkpointDir: string, files: string[]): void {
  const path = join(checkpointDir, 'manifest.json');
  const { checksum: _old, ...m } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { files: Record<string, unknown> };
  for (const f of files) {
    const bytes = readFileSync(join(checkpointDir, f));
    m.files[f] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  writeFileSync(path, JSON.stringify({ ...m, checksum: sha256(JSON.stringify(m)) }));
}

describe('fault injection', () => {
  let steps: string[] = [];

  beforeAll(async () => {
    await runTraining({ ...tiny, out: base, iterations: 1 }, { registry });
    // The steps of one checkpoint write, as the trainer reports them.
    const traced = copyOfBase();
    const trace = join(work, 'trace.txt');
    process.env.AZ_FAULT_TRACE = trace;
    try {
      await runTraining({ game: 'tictactoe', resume: traced, iterations: 2 }, { registry });
    } finally {
      delete process.env.AZ_FAULT_TRACE;
    }
    steps = [...new Set(readFileSync(trace, 'utf8').trim().split('\n'))];
  }, 120_000);

  it('covers every file-system step of a checkpoint write', () => {
    for (const step of ['replay:write', 'replay:rename', 'checkpoint:mkdir', 'checkpoint:write:weights.bin', 'checkpoint:write:manifest.json', 'checkpoint:rename', 'prune:rename', 'prune:delete', 'metrics:append']) {
      expect(steps).toContain(step);
    }
  });

  it('az train killed (SIGKILL) at each step: the run continues from the last good checkpoint', async () => {
    for (const step of steps) {
      const dir = copyOfBase();
      const r = spawnSync(process.execPath, [bin, 'train', '--game', 'tictactoe', '--resume', dir, '--iterations', '2', '--quiet'], {
        cwd: work,
        encoding: 'utf8',
        timeout: 240_000,
        env: { ...process.env, AZ_FAULT_KILL_AT: step },
      });
      counts.faults++;
      expect(r.signal, `${step}: ${r.stderr}`).toBe('SIGKILL');
      await expectRecovers(dir, `killed at ${step}`);
    }
  }, 600_000);

  it('NaN in the weights, the replay or a gradient: the step stops, the last good checkpoint stays, the run continues', async () => {
    for (const kind of ['weights', 'replay', 'gradient']) {
      const dir = copyOfBase();
      const good = listCheckpoints(dir).at(-1)?.dir ?? '';
      const checksum = (await readCheckpointManifest(good)).checksum;
      process.env.AZ_FAULT_NAN = kind;
      let err: unknown;
      try {
        err = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
      } finally {
        delete process.env.AZ_FAULT_NAN;
      }
      counts.faults++;
      expect(err, kind).toBeInstanceOf(TrainingDivergedError);
      expect(listCheckpoints(dir).at(-1)?.dir).toBe(good);
      expect((await readCheckpointManifest(good)).checksum).toBe(checksum);
      await expectRecovers(dir, `NaN ${kind}`);
    }
  }, 300_000);

  it('NaN written into weights.bin or a replay segment (and signed): resume refuses, naming the file', async () => {
    {
      const dir = copyOfBase();
      const ckpt = listCheckpoints(dir).at(-1)?.dir ?? '';
      const weights = new Float32Array(Uint8Array.from(readFileSync(join(ckpt, 'weights.bin'))).buffer);
      weights[1] = NaN;
      writeFileSync(join(ckpt, 'weights.bin'), new Uint8Array(weights.buffer));
      resign(ckpt, ['weights.bin']);
      counts.faults++;
      const err = await errorOf(runTraining({ game: 'tictactoe', resume: dir, iterations: 2 }, { registry }));
      expect(err).toBeInstanceOf(CheckpointError);
      expect((err as Error).message).toMatch(/weights\.bin holds non-finite weights/);
      counts.stoppedNamingFile++;
    }
    {
      const dir = copyOfBase();
      const ckpt = listCheckpoints(dir).at(-1)?.dir ?? '';
      const index = JSON.parse(readFileSync(join(ckpt, 'replay.json'), 'utf8')) as { segments: { file: string; bytes: number; sha256: string }[] };
      const segment = index.segments[index.segments.length - 1];
      const { gunzipSync, gzipSync } = await import('node:zlib');
      const raw = gunzipSync(readFileSync(join(dir, 'replay', segment.file)));
      const headerLength = raw.readUInt32LE(0);
      raw.writeFloatLE(NaN, 4 + headerLength); // the first input value of the first position
      const poisoned = gzipSync(raw);
      writeFileSync(join(dir, 'replay', segment.file), poisoned);
      segment.bytes = poisoned.byteLength;
      segment.sha256 = sha256(poisoned);
      writeFileSync(join(ckpt, 'replay.json'), JSON.stringify(index));
      resign(ckpt, ['replay.json']);
      counts.faults++;
      await expectStopsNaming(dir, segment.file, 'NaN replay segment', false);
    }
  }, 120_000);

  it('a flipped byte or a truncation in every checkpoint file and replay segment: stopped, naming the file', async () => {
    const ckptName = listCheckpoints(base).at(-1)?.name ?? '';
    const files = readdirSync(join(base, 'checkpoints', ckptName)).map((f) => ({ rel: join('checkpoints', ckptName, f), name: f, playReadsIt: true }));
    for (const seg of readdirSync(join(base, 'replay'))) files.push({ rel: join('replay', seg), name: seg, playReadsIt: false });
    expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['manifest.json', 'model.json', 'weights.bin', 'model.onnx', 'optimizer.json', 'optimizer.bin', 'replay.json', 'metrics.json']));
    for (const file of files) {
      for (const damage of ['flip', 'truncate'] as const) {
        const dir = copyOfBase();
        const path = join(dir, file.rel);
        const bytes = readFileSync(path);
        if (damage === 'flip') {
          bytes[Math.floor(bytes.length / 2)] ^= 0x10;
          writeFileSync(path, bytes);
        } else {
          truncateSync(path, Math.floor(bytes.length / 2));
        }
        counts.faults++;
        await expectStopsNaming(dir, file.name, `${damage} ${file.rel}`, file.playReadsIt);
      }
    }
  }, 300_000);

  it('loses no run', () => {
    expect(counts.faults).toBeGreaterThan(30);
    expect(counts.lost).toBe(0);
    expect(counts.recovered + counts.stoppedNamingFile).toBe(counts.faults);
  });
});

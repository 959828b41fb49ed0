// A run directory is never silently reused nor trained by two sessions at once, a resume finds its run
// from any of its paths and says what it cannot do, and training that goes non-finite stops without
// touching the last good checkpoint.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry } from '@az/core';
import { CheckpointError, listCheckpoints, readCheckpointManifest } from '@az/nn';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { blobPlugin } from '@az/game-blob';
import { TrainingDivergedError } from './iteration.js';
import type { TrainOptionsInput } from './options.js';
import { RunDirectoryError, checkRunFitsMemory, claimRunDirectory, holdsRun } from './run-dir.js';
import { runTraining } from './train-loop.js';

const work = mkdtempSync(join(tmpdir(), 'az-run-dir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const registry = new GameRegistry();
registry.register({ ...ticTacToePlugin, assessAgent: undefined });
const tiny: TrainOptionsInput = {
  game: 'tictactoe',
  network: { kind: 'mlp', hidden: [8] },
  gamesPerIteration: 2,
  parallelGames: 2,
  simulations: 4,
  leavesPerTree: 2,
  trainingSteps: 2,
  batchSize: 8,
  evalGames: 0,
  backend: 'cpu',
  inferenceBackend: 'tfjs',
  seed: 5,
};
const train = (input: Partial<TrainOptionsInput>, logs: string[] = []): ReturnType<typeof runTraining> =>
  runTraining({ ...tiny, ...input }, { registry, events: { log: (m) => logs.push(m) } });
const error = async (p: Promise<unknown>): Promise<Error> => {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(Error);
  return e as Error;
};
const metricIterations = (out: string): number[] =>
  readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { iteration: number }).iteration);

describe('the run directory', () => {
  it('refuses a new run over an existing one, naming --resume, --out and --force; --force archives the old run', async () => {
    const out = join(work, 'twice');
    await train({ out, iterations: 2 });
    const refused = await error(train({ out, iterations: 1 }));
    expect(refused).toBeInstanceOf(RunDirectoryError);
    expect(refused.message).toContain(`--resume ${out}`);
    expect(refused.message).toContain('another --out');
    expect(refused.message).toContain('--force');
    expect(metricIterations(out)).toEqual([1, 2]); // untouched
    const logs: string[] = [];
    await train({ out, iterations: 1, force: true }, logs);
    expect(metricIterations(out)).toEqual([1]);
    const archived = readdirSync(work).filter((n) => n.startsWith('twice.archived-'));
    expect(archived).toHaveLength(1);
    expect(metricIterations(join(work, archived[0]))).toEqual([1, 2]);
    expect(logs.join('\n')).toContain(join(work, archived[0]));
  }, 60_000);

  it('is locked while a session trains it: another is refused before changing anything (a resume, a new run, --force), and the lock goes when the session ends', async () => {
    const out = join(work, 'locked');
    const lockFile = join(out, 'train.lock');
    // Held while the session runs (seen from its iteration event), gone once it returns; summary.json written by then.
    const seen: unknown[] = [];
    await runTraining({ ...tiny, out, iterations: 1 }, { registry, command: ['az', 'train', '--out', out], events: { iteration: () => seen.push(JSON.parse(readFileSync(lockFile, 'utf8'))) } });
    expect(seen).toEqual([{ pid: process.pid, hostname: hostname(), started: expect.any(String), command: `az train --out ${out}` }]);
    expect(existsSync(lockFile)).toBe(false);
    expect(existsSync(join(out, 'summary.json'))).toBe(true);

    // Another session holds it (this process stands in for it: a live pid on this host).
    const other = JSON.stringify({ pid: process.pid, hostname: hostname(), started: '2024-05-01T10:00:00.000Z', command: 'az train --game tictactoe --out runs/x' });
    writeFileSync(lockFile, other);
    const snapshot = (): string[] =>
      readdirSync(work, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && (e.parentPath.startsWith(out) || e.name.startsWith('locked')))
        .map((e) => `${join(e.parentPath, e.name)} ${readFileSync(join(e.parentPath, e.name)).toString('base64')}`)
        .sort();
    const before = snapshot();
    for (const input of [{ resume: out, iterations: 3 }, { out, iterations: 2 }, { out, iterations: 2, force: true }]) {
      const refused = await error(train(input));
      expect(refused).toBeInstanceOf(RunDirectoryError);
      expect(refused.message).toContain(`${out} is being trained by another process: pid ${process.pid} on host ${hostname()}, since 2024-05-01T10:00:00.000Z`);
      expect(refused.message).toContain('running: az train --game tictactoe --out runs/x');
      if (input.force) expect(refused.message).toContain('--force moves no run aside while it is being trained');
    }
    expect(snapshot()).toEqual(before); // no archive, no options.json, no checkpoint, no metrics line
    expect(readdirSync(work).filter((n) => n.startsWith('locked.archived-'))).toEqual([]);

    // Unlocked: the resume goes on; a session that fails after taking the lock gives it back too.
    rmSync(lockFile);
    await train({ resume: out, iterations: 2 });
    expect(metricIterations(out)).toEqual([1, 2]);
    expect(existsSync(lockFile)).toBe(false);
    const weights = join(listCheckpoints(out).at(-1)?.dir ?? '', 'weights.bin');
    const bytes = readFileSync(weights);
    writeFileSync(weights, bytes.subarray(0, bytes.length - 1));
    expect(await error(train({ resume: out, iterations: 3 }))).toBeInstanceOf(CheckpointError);
    expect(existsSync(lockFile)).toBe(false);
    writeFileSync(weights, bytes);

    // --force on an unlocked run: the archive takes no lock along, and is a run of its own.
    await train({ out, iterations: 1, force: true });
    const [archive] = readdirSync(work).filter((n) => n.startsWith('locked.archived-'));
    expect(readdirSync(join(work, archive))).not.toContain('train.lock');
    expect(metricIterations(join(work, archive))).toEqual([1, 2]);
    expect(existsSync(lockFile)).toBe(false);
  }, 90_000);

  it('counts a lone train.lock as no run: not one of its own, and no contents a new run must move aside', () => {
    const dir = join(work, 'lone-lock');
    mkdirSync(dir);
    writeFileSync(join(dir, 'train.lock'), '{}');
    expect(holdsRun(dir)).toBe(false);
    expect(claimRunDirectory(dir, 'tictactoe', true)).toBeNull();
    expect(readdirSync(dir)).toEqual(['train.lock']);
  });

  it('names the game of the run it refuses, so the resume it advises works when --game asks for another', async () => {
    const out = join(work, 'other-game');
    await train({ out, iterations: 1 });
    const refused = (() => {
      try {
        claimRunDirectory(out, 'connect4', false);
      } catch (err) {
        return err as Error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(RunDirectoryError);
    expect(refused?.message).toContain('already holds a training run of tictactoe');
    expect(refused?.message).toContain(`az train --game tictactoe --resume ${out}`);
    expect(refused?.message).not.toContain('--game connect4');
  }, 60_000);

  it('refuses to resume on an unreadable options.json, and says so when it is missing, instead of silently taking the defaults', async () => {
    const out = join(work, 'lost-options');
    await train({ out, iterations: 1 });
    writeFileSync(join(out, 'options.json'), '{bad');
    const refused = await error(train({ resume: out, iterations: 2 }));
    expect(refused).toBeInstanceOf(RunDirectoryError);
    expect(refused.message).toContain(`cannot resume: ${join(out, 'options.json')}, the settings the run was trained with, is unreadable`);
    expect(metricIterations(out)).toEqual([1]); // nothing trained
    unlinkSync(join(out, 'options.json'));
    const logs: string[] = [];
    await train({ resume: out, iterations: 2 }, logs);
    expect(logs.join('\n')).toContain(`warning: ${join(out, 'options.json')} is missing: the resumed run takes the game's defaults`);
  }, 60_000);

  it('resumes from the run directory or its checkpoint folder into the same run, refusing what it cannot change', async () => {
    const out = join(work, 'resume');
    await train({ out, iterations: 1 });
    const checkpoint = listCheckpoints(out).at(-1)?.dir ?? '';
    expect(checkpoint).toBe(join(out, 'checkpoints', 'iter-000001'));
    await train({ resume: checkpoint, iterations: 2 });
    expect(listCheckpoints(out).map((c) => c.name)).toEqual(['iter-000001', 'iter-000002']);
    expect(existsSync(join(checkpoint, 'checkpoints'))).toBe(false);
    // The older checkpoint is not the one a resume continues from.
    expect((await error(train({ resume: checkpoint, iterations: 3 }))).message).toMatch(/not the run's newest checkpoint \(iter-000002\)/);
    expect((await error(train({ resume: out, iterations: 2 }))).message).toMatch(/at iteration 2 already; --iterations 2 asks for no more/);
    expect((await error(train({ resume: out, iterations: 3, network: { kind: 'mlp', hidden: [16] } }))).message).toMatch(/cannot change the network/);
    expect((await error(train({ resume: out, iterations: 3, gameConfig: { size: 4 } }))).message).toMatch(/unknown field 'size'/);
    const logs: string[] = [];
    await train({ resume: out, iterations: 3, learningRate: 5e-4 }, logs);
    expect(logs.join('\n')).toMatch(/resume changes learningRate 0\.001 -> 0\.0005/);
    expect(readFileSync(join(out, 'changes.jsonl'), 'utf8')).toContain('"learningRate":[0.001,0.0005]');
    expect(metricIterations(out)).toEqual([1, 2, 3]);
  }, 90_000);

  it('keeps the last --keep checkpoints and warns when optimizer files are gone', async () => {
    const out = join(work, 'keep');
    await train({ out, iterations: 3, keepCheckpoints: 2 });
    expect(listCheckpoints(out).map((c) => c.name)).toEqual(['iter-000002', 'iter-000003']);
    const newest = listCheckpoints(out).at(-1)?.dir ?? '';
    unlinkSync(join(newest, 'optimizer.bin'));
    unlinkSync(join(newest, 'optimizer.json'));
    const logs: string[] = [];
    await train({ resume: out, iterations: 4, keepCheckpoints: 2 }, logs);
    expect(logs.join('\n')).toMatch(/optimizer files .* are missing: training continues with a fresh Adam state/);
  }, 60_000);

  it('a damaged newest checkpoint is named, with the way back to the one before it', async () => {
    const out = join(work, 'rollback');
    await train({ out, iterations: 2, keepCheckpoints: 2 });
    const [older, newest] = listCheckpoints(out);
    const weights = join(newest.dir, 'weights.bin');
    const bytes = readFileSync(weights);
    bytes[5] ^= 0x40;
    writeFileSync(weights, bytes);
    const err = await error(train({ resume: out, iterations: 3 }));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toContain(`${weights} is corrupt`);
    expect(err.message).toContain(`previous checkpoint is ${older.name}: to continue from it, move ${newest.dir}`);
    renameSync(newest.dir, join(out, 'damaged-iter-2'));
    await train({ resume: out, iterations: 3, keepCheckpoints: 2 });
    expect(listCheckpoints(out).map((c) => c.name)).toEqual(['iter-000002', 'iter-000003']);
    // The metrics of the abandoned iteration 2 moved aside: metrics.jsonl is one history.
    expect(metricIterations(out)).toEqual([1, 2, 3]);
    expect(readFileSync(join(out, 'metrics.discarded.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  }, 60_000);

  it('a resume appends the metrics line its newest checkpoint committed when metrics.jsonl lacks it (a session killed before the line)', async () => {
    const out = join(work, 'lost-line');
    await train({ out, iterations: 2 });
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n');
    // What a kill after the checkpoint's rename and before the append leaves.
    writeFileSync(join(out, 'metrics.jsonl'), lines[0] + '\n');
    const logs: string[] = [];
    await train({ resume: out, iterations: 3 }, logs);
    expect(metricIterations(out)).toEqual([1, 2, 3]);
    const restored = JSON.parse(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')[1]) as { iteration: number; train: unknown };
    expect(restored.train).toEqual((JSON.parse(lines[1]) as { train: unknown }).train);
    expect(logs.join('\n')).toMatch(/metrics\.jsonl lacked iteration 2 .*added it from .*iter-000002\/metrics\.json/);
    // A resume that finds the line there adds nothing.
    await train({ resume: out, iterations: 4 });
    expect(metricIterations(out)).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('names a resumed setting that clashes with one the run fixes as a change of the run (Blob: roundCards above its maxHand)', async () => {
    const blobRegistry = new GameRegistry();
    blobRegistry.register(blobPlugin);
    const out = join(work, 'blob-cards');
    const blobRun = (input: Partial<TrainOptionsInput>): ReturnType<typeof runTraining> =>
      runTraining({ ...tiny, game: 'blob', gameConfig: { rounds: 'one', roundCards: 3 }, simulations: 2, determinizations: 1, ...input }, { registry: blobRegistry });
    await blobRun({ out, iterations: 1 });
    const refused = await error(blobRun({ resume: out, iterations: 2, gameConfig: { rounds: 'one', roundCards: 4 } }));
    expect(refused.message).toContain('--resume cannot change the game settings the network was trained for: the run has roundCards=3, --config asks for roundCards=4');
    // rounds=game leaves the run's roundCards=3 without a use (a ConfigError on roundCards): named as the change asked for.
    const whole = await error(blobRun({ resume: out, iterations: 2, gameConfig: { rounds: 'game' } }));
    expect(whole.message).toContain('--resume cannot change the game settings the network was trained for: the run has rounds=one, --config asks for rounds=game');
  }, 60_000);

  it('a lost replay segment, shared by every checkpoint, is not answered with a way back that repeats the error', async () => {
    const out = join(work, 'lost-replay');
    await train({ out, iterations: 2, keepCheckpoints: 2 });
    rmSync(join(out, 'replay'), { recursive: true, force: true });
    const err = await error(train({ resume: out, iterations: 3 }));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toContain('shared by the run\'s checkpoints, not part of iter-000002 alone, so an older checkpoint will not get past it');
    expect(err.message).not.toContain('to continue from it, move');
  }, 60_000);

  it('refuses sizes that cannot fit in memory before creating anything', async () => {
    const out = join(work, 'huge');
    expect((await error(train({ out, replayCapacity: 1e12 }))).message).toMatch(/--replay 1000000000000\) must be at most \d+ positions to fit in memory/);
    expect((await error(train({ out, batchSize: 1e9 }))).message).toMatch(/--batch-size 1000000000\) must be at most \d+ to fit in memory/);
    expect(existsSync(out)).toBe(false);
    expect(() => checkRunFitsMemory(50_000, 256, { inputSize: 27, actionSize: 9, numSeats: 2, policyWidth: 9 }, 2 ** 30)).not.toThrow();
  });
});

describe('non-finite training', () => {
  for (const [kind, cause] of [
    ['weights', /NaN weights/],
    ['replay', /Likely cause: the training data: position 0 of the batch has a value target of NaN/],
    ['gradient', /learning rate .* too high/],
    // A finite but absurd target (a record no check refused) overflows the loss: the data is named, not the learning rate.
    ['value-1e30', /the loss is Infinity\. Likely cause: the training data: position 7 of the batch has a value target of 1e\+30 \(seat 0; targets lie in \[-1, 1\]\)/],
  ] as const) {
    it(`stops on a NaN in the ${kind}, keeps the last good checkpoint and names the cause`, async () => {
      const out = join(work, `nan-${kind}`);
      await train({ out, iterations: 1 });
      const good = await readCheckpointManifest(listCheckpoints(out).at(-1)?.dir ?? '');
      process.env.AZ_FAULT_NAN = kind;
      try {
        const err = await error(train({ resume: out, iterations: 2 }));
        expect(err).toBeInstanceOf(TrainingDivergedError);
        expect(err.message).toMatch(cause);
        expect(err.message).toContain('iter-000001');
      } finally {
        delete process.env.AZ_FAULT_NAN;
      }
      expect(listCheckpoints(out).map((c) => c.name)).toEqual(['iter-000001']);
      expect((await readCheckpointManifest(listCheckpoints(out).at(-1)?.dir ?? '')).checksum).toBe(good.checksum);
      // The run goes on from there once the fault is gone.
      await train({ resume: out, iterations: 2 });
      expect(metricIterations(out)).toEqual([1, 2]);
    }, 60_000);
  }

  it('refuses --lr 1e4 before starting, naming the flag', async () => {
    const out = join(work, 'lr');
    const err = await error(train({ out, iterations: 3, learningRate: 1e4 }));
    expect(err.message).toMatch(/learningRate \(--lr\) must be at most 1, got 10000/);
    expect(existsSync(out)).toBe(false);
  });
});

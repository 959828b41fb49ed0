// az writes nothing outside --out and its temp folder: onnxruntime's telemetry (a device id and an
// event database under ~/.cache/Microsoft/DeveloperTools/, an empty mat-debug-<pid>.log per process in
// the temp folder) is off. Every command runs with a fresh HOME and TMPDIR, which must stay empty.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-leftovers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('no files outside --out', () => {
  it('train (one process and with a worker), play and eval leave HOME and TMPDIR empty', () => {
    const home = join(work, 'home');
    const temp = join(work, 'tmp');
    const runs = join(work, 'runs');
    for (const d of [home, temp, runs]) mkdirSync(d);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: temp, USERPROFILE: home };
    delete env.ORT_DISABLE_TELEMETRY;
    const az = (args: string[], input = ''): void => {
      const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, env, input, encoding: 'utf8', timeout: 240_000 });
      expect(r.status, `az ${args.join(' ')}: ${r.stderr}`).toBe(0);
    };
    const tiny = ['--game', 'tictactoe', '--iterations', '1', '--games-per-iter', '4', '--sims', '4', '--eval-games', '2', '--train-steps', '2', '--quiet'];
    // --backend auto: the search runs on onnxruntime, which is what wrote the files.
    az(['train', ...tiny, '--out', join(runs, 'one')]);
    az(['train', ...tiny, '--out', join(runs, 'workers'), '--devices', 'cpu:1']);
    az(['play', '--game', 'tictactoe', '--model', join(runs, 'one'), '--sims', '2', '--backend', 'onnx'], 'quit\n');
    az(['eval', '--game', 'tictactoe', '--a', join(runs, 'one'), '--b', 'random', '--games', '2', '--sims', '2', '--backend', 'onnx']);
    expect(filesUnder(home)).toEqual([]);
    expect(filesUnder(temp)).toEqual([]);
  }, 600_000);
});

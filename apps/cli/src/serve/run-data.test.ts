import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsFollower, parseMetricsLines, readRun, RunDirError } from './run-data.js';

const dirs: string[] = [];
function runDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'az-run-data-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('metrics.jsonl reading', () => {
  it('keeps a torn last line for later and skips corrupt lines', () => {
    const { rows, consumed } = parseMetricsLines('{"iteration":1}\nnot json\n{"iteration":2}\n{"iter');
    expect(rows).toEqual([{ iteration: 1 }, { iteration: 2 }]);
    expect(consumed).toBe('{"iteration":1}\nnot json\n{"iteration":2}\n'.length);
  });

  it('skips a line without a numeric iteration (it would blank every chart), naming the file and the line', () => {
    const dir = runDir();
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(path, '{"iteration":1}\n\n{"note":"no iteration"}\n{"iteration":"2"}\nnot json\n{"iteration":3}\n');
    const run = readRun(dir);
    expect(run.rows).toEqual([{ iteration: 1 }, { iteration: 3 }]);
    expect(run.warnings).toEqual([
      `${path} line 3: no numeric "iteration"; skipped (the charts show the other lines)`,
      `${path} line 4: no numeric "iteration"; skipped (the charts show the other lines)`,
      `${path} line 5: not valid JSON; skipped (the charts show the other lines)`,
    ]);
    // Followed as it grows, the lines keep their numbers in the file.
    const warnings: string[] = [];
    const follower = new MetricsFollower(dir, (m) => warnings.push(m));
    expect(follower.poll()).toEqual([{ iteration: 1 }, { iteration: 3 }]);
    appendFileSync(path, '{"iteration":4}\n[4]\n');
    expect(follower.poll()).toEqual([{ iteration: 4 }]);
    expect(warnings.at(-1)).toBe(`${path} line 8: not a JSON object; skipped (the charts show the other lines)`);
    expect(warnings).toHaveLength(4);
  });

  it('follows appended lines, including one finished across two writes', () => {
    const dir = runDir();
    const follower = new MetricsFollower(dir);
    expect(follower.poll()).toEqual([]); // no file yet: a run just starting
    writeFileSync(join(dir, 'metrics.jsonl'), '{"iteration":1}\n{"iteration":');
    expect(follower.poll()).toEqual([{ iteration: 1 }]);
    appendFileSync(join(dir, 'metrics.jsonl'), '2,"note":"é"}\n');
    expect(follower.poll()).toEqual([{ iteration: 2, note: 'é' }]);
    expect(follower.poll()).toEqual([]);
    appendFileSync(join(dir, 'metrics.jsonl'), '{"iteration":3}\n');
    expect(follower.poll()).toEqual([{ iteration: 3 }]);
  });

  it('reads a run with its options and summary, and names a missing directory', () => {
    const dir = runDir();
    writeFileSync(join(dir, 'metrics.jsonl'), '{"iteration":1}\n');
    writeFileSync(join(dir, 'options.json'), '{"game":"tictactoe"}');
    const run = readRun(dir);
    expect(run.rows).toHaveLength(1);
    expect(run.options).toEqual({ game: 'tictactoe' });
    expect(run.summary).toBeUndefined();
    expect(() => readRun(join(dir, 'nope'))).toThrow(RunDirError);
    expect(() => readRun(join(dir, 'nope'))).toThrow(/no run directory at .*nope/);
  });

  it('refuses a folder that is not a run, naming the runs inside it or the run it is inside', () => {
    const runs = runDir();
    const run = join(runs, 'ttt');
    mkdirSync(join(run, 'checkpoints', 'iter-000001'), { recursive: true });
    writeFileSync(join(run, 'options.json'), '{"game":"tictactoe"}');
    expect(readRun(run).options).toEqual({ game: 'tictactoe' });
    expect(() => readRun(runs)).toThrow(RunDirError);
    expect(() => readRun(runs)).toThrow(/is not a training run .*runs in it: .*ttt/);
    expect(() => readRun(join(run, 'checkpoints'))).toThrow(new RegExp(`is not a training run .*it is inside the run ${run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    // An empty directory is a run about to start: the dashboard waits for it.
    const fresh = join(runs, 'fresh');
    mkdirSync(fresh);
    expect(readRun(fresh).rows).toEqual([]);
    // So is one holding only the trainer's lock (a run starting); a run being trained reads as any run.
    writeFileSync(join(fresh, 'train.lock'), '{"pid":1,"hostname":"h","started":"2024-05-01T10:00:00.000Z","command":"az train"}\n');
    expect(readRun(fresh).rows).toEqual([]);
    // And one whose options.json is being written (its hidden temporary, before the rename).
    writeFileSync(join(fresh, '.options.json.tmp-0a1b2c3d'), '{"game":');
    expect(readRun(fresh).rows).toEqual([]);
    writeFileSync(join(run, 'train.lock'), '{"pid":1,"hostname":"h","started":"2024-05-01T10:00:00.000Z","command":"az train"}\n');
    expect(readRun(run).options).toEqual({ game: 'tictactoe' });
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandPlayers, schedule } from './ladder.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A run directory whose checkpoints/ holds the named folders, each with a manifest. */
function runWith(folders: readonly string[], sub = 'checkpoints'): string {
  const run = mkdtempSync(join(tmpdir(), 'az-ladder-'));
  dirs.push(run);
  for (const f of folders) {
    mkdirSync(join(run, sub, f), { recursive: true });
    writeFileSync(join(run, sub, f, 'manifest.json'), '{}');
  }
  return run;
}

describe('expandPlayers', () => {
  it("makes a run directory its kept checkpoints, one per iteration: the last save of each (the end of a multi-process run saves its last iteration twice)", () => {
    const run = runWith(['iter-000019', 'iter-000020', 'iter-000020-2', 'iter-000018']);
    expect(expandPlayers([run, 'greedy'])).toEqual([
      join(run, 'checkpoints', 'iter-000018'),
      join(run, 'checkpoints', 'iter-000019'),
      join(run, 'checkpoints', 'iter-000020-2'),
      'greedy',
    ]);
  });

  it('orders saves of one iteration by number, not by name (-10 after -2)', () => {
    const run = runWith(['iter-000005', 'iter-000005-2', 'iter-000005-10']);
    expect(expandPlayers([run])).toEqual([join(run, 'checkpoints', 'iter-000005-10')]);
  });

  it("prefers a run's rated/ series, keeps a checkpoint named directly, and leaves other names as given", () => {
    const run = runWith(['iter-0002', 'iter-0004'], 'rated');
    mkdirSync(join(run, 'checkpoints', 'iter-000004'), { recursive: true });
    writeFileSync(join(run, 'checkpoints', 'iter-000004', 'manifest.json'), '{}');
    expect(expandPlayers([run])).toEqual([join(run, 'rated', 'iter-0002'), join(run, 'rated', 'iter-0004')]);
    const direct = join(run, 'checkpoints', 'iter-000004');
    expect(expandPlayers([direct, 'uci:stockfish,depth=1', 'nosuchdir'])).toEqual([direct, 'uci:stockfish,depth=1', 'nosuchdir']);
  });
});

describe('schedule', () => {
  it('plays every pair, or each of the first K players against everyone', () => {
    expect(schedule(3)).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(schedule(4, 1)).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
    ]);
  });
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expandPlayers, schedule } from './ladder.js';
import { azInTempDir } from './test-cli.js';

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

// `az rate` through the built binary: what --include joins and where --out writes, checked before any game.
describe('az rate --include', () => {
  const { work, az } = azInTempDir('az-rate-include-');
  beforeAll(() => {
    const ttt = az(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '4', '--out', 'ttt.json']);
    expect(ttt.code, ttt.stderr).toBe(0);
    const chess = az(['rate', '--game', 'chess', 'random', 'greedy', '--games', '2', '--config', 'maxPlies=10', '--out', 'chess10.json']);
    expect(chess.code, chess.stderr).toBe(0);
  });

  it("refuses a ratings.json of another game, naming the file, its game and the game rated, with players or without", () => {
    const fitOnly = az(['rate', '--game', 'connect4', '--include', 'ttt.json', '--out', 'c4.json']);
    expect(fitOnly.code).toBe(2);
    expect(fitOnly.stderr).toMatch(/ttt\.json is a rating of tictactoe, not connect4/);
    expect(existsSync(join(work, 'c4.json'))).toBe(false);
    const playing = az(['rate', '--game', 'chess', 'random', 'greedy', '--games', '2', '--config', 'maxPlies=10', '--include', 'ttt.json', '--out', 'mixed.json']);
    expect(playing.code).toBe(2);
    expect(playing.stderr).toMatch(/ttt\.json is a rating of tictactoe, not chess/);
    expect(existsSync(join(work, 'mixed.json'))).toBe(false);
  });

  it('refuses a ratings.json played with other game settings, and joins one played with the same', () => {
    const other = az(['rate', '--game', 'chess', 'random', 'greedy', '--games', '2', '--config', 'maxPlies=12', '--include', 'chess10.json', '--out', 'chess12.json']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/chess10\.json was played with other chess settings .*\(maxPlies=10 against 12\)/);
    expect(existsSync(join(work, 'chess12.json'))).toBe(false);
    // Fitting only: the settings asked for with --config, else those of the first file, are the rating's.
    const asked = az(['rate', '--game', 'chess', '--include', 'chess10.json', '--config', 'maxPlies=12', '--out', 'fit12.json']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('(maxPlies=10 against 12)');
    const same = az(['rate', '--game', 'chess', 'random', 'mcts', '--games', '2', '--sims', '2', '--config', 'maxPlies=10', '--include', 'chess10.json', '--out', 'more10.json']);
    expect(same.code, same.stderr).toBe(0);
    const fit = az(['rate', '--game', 'chess', '--include', 'chess10.json,more10.json', '--out', 'fit10.json']);
    expect(fit.code, fit.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(work, 'fit10.json'), 'utf8')) as { config: { maxPlies: number } }).config.maxPlies).toBe(10);
  });

  it('refuses a file that holds null or another value than a ratings.json object, naming it', () => {
    for (const [name, text] of [['null.json', 'null'], ['array.json', '[]'], ['number.json', '3']]) {
      writeFileSync(join(work, name), text + '\n');
      const r = az(['rate', '--game', 'tictactoe', '--include', name]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${name} is not a ratings.json of az rate`);
    }
  });
});

describe('az rate --out', () => {
  const { work, az } = azInTempDir('az-rate-out-');

  it('refuses an --out that cannot be written before the first game, naming it', () => {
    const r = az(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '4', '--out', 'no/such/dir/r.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no/such/dir/r.json');
    expect(r.stderr).not.toMatch(/rate \d+\/4 games/);
    mkdirSync(join(work, 'adir'));
    const dir = az(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '4', '--out', 'adir']);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain('--out adir');
    expect(dir.stderr).not.toMatch(/rate \d+\/4 games/);
    writeFileSync(join(work, 'ttt.json'), JSON.stringify({ game: 'tictactoe', pairs: [{ a: 'random', b: 'minimax', wins: 0, draws: 1, losses: 3 }] }));
    const fitOnly = az(['rate', '--game', 'tictactoe', '--include', 'ttt.json', '--out', 'no/such/dir/r.json']);
    expect(fitOnly.code).toBe(2);
    expect(fitOnly.stderr).toContain('no/such/dir/r.json');
  });

  it('checks without creating or truncating the file: a run refused later leaves it as it was', () => {
    writeFileSync(join(work, 'keep.json'), 'keep\n');
    const kept = az(['rate', '--game', 'tictactoe', 'random', 'nosuchplayer', '--out', 'keep.json']);
    expect(kept.code).toBe(2);
    expect(readFileSync(join(work, 'keep.json'), 'utf8')).toBe('keep\n');
    const fresh = az(['rate', '--game', 'tictactoe', 'random', 'nosuchplayer', '--out', 'fresh.json']);
    expect(fresh.code).toBe(2);
    expect(existsSync(join(work, 'fresh.json'))).toBe(false);
  });
});

// `az compare` through the built binary: two arenas played on the same deals, paired game by game. The
// paired figures are checked against the two `az eval` reports and against a difference computed here
// from the records' own returns; mismatched arenas are refused with the reason.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-compare-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function az(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000 });
}

function ok(args: string[]): string {
  const r = az(args);
  expect(r.status, `az ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

interface Summary {
  mean: number;
  ci95: number;
  low: number;
  high: number;
  n: number;
}
interface Comparison {
  games: { paired: number; x: number; y: number; onlyX: number; onlyY: number };
  a: { x: string; y: string };
  metrics: Record<string, { x: number; y: number; difference: Summary }>;
  lead: Record<string, { x: number; y: number; difference: Summary }>;
}
interface EvalReport {
  a: { metrics: Record<string, Summary> };
  difference: Record<string, Summary>;
}

const blobRounds = ['--game', 'blob', '--config', 'rounds=one,roundCards=5'];

function arena(name: string, a: string, seed: number, games = 40, config = blobRounds): { file: string; report: EvalReport } {
  const file = join(work, `${name}.jsonl`);
  const report = JSON.parse(ok(['eval', ...config, '--a', a, '--b', 'random', '--games', String(games), '--seed', String(seed), '--games-out', file, '--json'])) as EvalReport;
  return { file, report };
}

/** A's return in each game of a record file, by deal, read from the records (seatAgent names A's seat). */
function returnsOfA(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { gameSeed: string; seatAgent: number[]; returns: number[] };
    out.set(r.gameSeed, r.returns[r.seatAgent.indexOf(0)]);
  }
  return out;
}

describe('az compare', () => {
  type Arena = ReturnType<typeof arena>;
  let heuristic: Arena;
  let counting: Arena;
  let tttMinimax: Arena;
  let tttRandom: Arena;
  beforeAll(() => {
    heuristic = arena('heuristic', 'heuristic', 3);
    counting = arena('counting', 'counting', 3);
    const ttt = ['--game', 'tictactoe'];
    tttMinimax = arena('ttt-minimax', 'minimax', 5, 10, ttt);
    tttRandom = arena('ttt-random', 'random', 5, 10, ttt);
  });

  it('pairs two Blob arenas deal by deal: the means are each arena’s, the interval that of the per-game differences', () => {
    const c = JSON.parse(ok(['compare', counting.file, heuristic.file, '--json'])) as Comparison;
    expect(c.games).toMatchObject({ paired: 40, x: 40, y: 40, onlyX: 0, onlyY: 0 });
    expect(c.a).toEqual({ x: 'counting', y: 'heuristic' });
    for (const key of ['scorePerRound', 'bidAccuracy']) {
      expect(c.metrics[key].x).toBeCloseTo(counting.report.a.metrics[key].mean, 9);
      expect(c.metrics[key].y).toBeCloseTo(heuristic.report.a.metrics[key].mean, 9);
      expect(c.lead[key].x).toBeCloseTo(counting.report.difference[key].mean, 9);
      expect(c.lead[key].y).toBeCloseTo(heuristic.report.difference[key].mean, 9);
      expect(c.metrics[key].difference.mean).toBeCloseTo(c.metrics[key].x - c.metrics[key].y, 9);
    }
    // The paired interval, computed here from the records' returns: Student's t with 39 degrees of freedom.
    const rx = returnsOfA(counting.file);
    const ry = returnsOfA(heuristic.file);
    const d = [...rx].map(([deal, v]) => v - (ry.get(deal) ?? NaN));
    const mean = d.reduce((s, v) => s + v, 0) / d.length;
    const sd = Math.sqrt(d.reduce((s, v) => s + (v - mean) ** 2, 0) / (d.length - 1));
    const t39 = 2.0226909;
    expect(c.metrics.return.difference.n).toBe(40);
    expect(c.metrics.return.difference.mean).toBeCloseTo(mean, 9);
    // studentT975 approximates the quantile above 30 degrees of freedom (Z95 + 2.4 / df, within 0.1%).
    expect(Math.abs(c.metrics.return.difference.ci95 / ((t39 * sd) / Math.sqrt(40)) - 1)).toBeLessThan(1e-3);
    // Two different players on the same deals: the games differ, so the differences are not all zero.
    expect(sd).toBeGreaterThan(0);
  });

  it('an arena against itself differs by zero, and the text names both files and A', () => {
    const text = ok(['compare', heuristic.file, heuristic.file]);
    expect(text).toContain('40 deals of blob played in both');
    expect(text).toContain(`A in X (${heuristic.file}): heuristic`);
    expect(text).toMatch(/bidAccuracy +X [0-9.]+ +Y [0-9.]+ +X - Y \+0\.000 \[\+0\.000, \+0\.000\] \(95% CI, n=40\)/);
  });

  it('reads records written before seatAgent when A is the one seat with its own name (three or more seats)', () => {
    const stripped = join(work, 'counting-old.jsonl');
    const lines = readFileSync(counting.file, 'utf8').trim().split('\n');
    writeFileSync(stripped, lines.map((l) => {
      const r = JSON.parse(l) as Record<string, unknown>;
      delete r.seatAgent;
      return JSON.stringify(r);
    }).join('\n') + '\n');
    const now = JSON.parse(ok(['compare', counting.file, heuristic.file, '--json'])) as Comparison;
    const old = JSON.parse(ok(['compare', stripped, heuristic.file, '--json'])) as Comparison;
    expect(old).toEqual(now);
  });

  it('pairs only the deals both arenas played, and finds A in a two-player game by the records’ seat lineup', () => {
    // Two seeds' files joined pool their deals (each deal has its own seed).
    const seed4 = arena('counting-seed-4', 'counting', 4, 12);
    const seed4h = arena('heuristic-seed-4', 'heuristic', 4, 12);
    const pooled = (files: string[], name: string): string => {
      const out = join(work, name);
      writeFileSync(out, files.map((f) => readFileSync(f, 'utf8')).join(''));
      return out;
    };
    const both = JSON.parse(ok(['compare', pooled([counting.file, seed4.file], 'c34.jsonl'), pooled([heuristic.file, seed4h.file], 'h34.jsonl'), '--json'])) as Comparison;
    expect(both.games).toMatchObject({ paired: 52, onlyX: 0, onlyY: 0 });
    const short = arena('heuristic-short', 'heuristic', 3, 24);
    const c = JSON.parse(ok(['compare', heuristic.file, short.file, '--json'])) as Comparison;
    expect(c.games).toMatchObject({ paired: 24, x: 40, y: 24, onlyX: 16, onlyY: 0 });
    // Tic-tac-toe: both names appear once a game, so only seatAgent tells A's seat.
    const t = JSON.parse(ok(['compare', tttMinimax.file, tttRandom.file, '--json'])) as Comparison;
    expect(t.a).toEqual({ x: 'minimax', y: 'random' });
    expect(t.metrics.return.x).toBeGreaterThan(t.metrics.return.y);
  });

  it('refuses arenas that are not on the same deals, records that do not replay, and records that do not say where A sat', () => {
    const other = arena('other-seed', 'heuristic', 4);
    const noDeal = az(['compare', heuristic.file, other.file]);
    expect(noDeal.status).toBe(2);
    expect(noDeal.stderr).toContain('share no deal: play both with the same --seed');
    const games = az(['compare', heuristic.file, tttRandom.file]);
    expect(games.status).toBe(2);
    expect(games.stderr).toContain('is blob and');
    expect(games.stderr).toContain('is tictactoe: compare arenas of one game');
    const three = arena('three-cards', 'heuristic', 3, 8, ['--game', 'blob', '--config', 'rounds=one,roundCards=3']);
    const config = az(['compare', heuristic.file, three.file]);
    expect(config.status).toBe(2);
    expect(config.stderr).toContain('roundCards=5 against 3');
    // A record whose first move is changed no longer replays.
    const lines = readFileSync(heuristic.file, 'utf8').trim().split('\n');
    const broken = JSON.parse(lines[0]) as { actions: number[]; index: number };
    broken.actions[0] = 0; // a card, while the round starts with bids
    const brokenFile = join(work, 'broken.jsonl');
    writeFileSync(brokenFile, [JSON.stringify(broken), ...lines.slice(1)].join('\n') + '\n');
    const replay = az(['compare', brokenFile, heuristic.file]);
    expect(replay.status).toBe(2);
    expect(replay.stderr).toContain(`game ${broken.index}: move 1 (action 0) is not legal`);
    // A two-player record without seatAgent (as written before it) cannot name A.
    const old = readFileSync(tttMinimax.file, 'utf8').trim().split('\n').map((l) => {
      const r = JSON.parse(l) as Record<string, unknown>;
      delete r.seatAgent;
      return JSON.stringify(r);
    });
    const oldFile = join(work, 'old.jsonl');
    writeFileSync(oldFile, old.join('\n') + '\n');
    const unnamed = az(['compare', oldFile, oldFile]);
    expect(unnamed.status).toBe(2);
    expect(unnamed.stderr).toContain('does not say which seat was A');
    const usage = az(['compare', heuristic.file]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('give two files of game records');
  });

  it('names the file and line of a record whose game or config cannot be set up (compare and play --replay)', () => {
    const lines = readFileSync(heuristic.file, 'utf8').trim().split('\n');
    const edited = (name: string, edit: (r: { game: string; config: Record<string, unknown> }) => void): string => {
      const file = join(work, `${name}.jsonl`);
      const records = lines.map((l) => {
        const r = JSON.parse(l) as { game: string; config: Record<string, unknown> };
        edit(r);
        return JSON.stringify(r);
      });
      // A blank first line: the first record is on line 2.
      writeFileSync(file, ['', ...records].join('\n') + '\n');
      return file;
    };
    const tooMany = edited('players-99', (r) => {
      r.config.players = 99;
    });
    const compared = az(['compare', tooMany, heuristic.file]);
    expect(compared.status).toBe(2);
    expect(compared.stderr).toContain(`${tooMany}:2: game 'blob' config: field 'players' must be <= 8 (got 99)`);
    // Games are written as they end, not in index order: game 0's line is found in the file.
    const line0 = 2 + lines.findIndex((l) => (JSON.parse(l) as { index: number }).index === 0);
    const replayed = az(['play', '--replay', tooMany, '--index', '0']);
    expect(replayed.status).toBe(2);
    expect(replayed.stderr).toContain(`${tooMany}:${line0}: game 'blob' config: field 'players' must be <= 8 (got 99)`);
    const unknown = edited('unknown-game', (r) => {
      r.game = 'hearts';
    });
    const notInstalled = az(['compare', unknown, heuristic.file]);
    expect(notInstalled.status).toBe(1);
    expect(notInstalled.stderr).toContain(`az compare: ${unknown}:2: unknown game 'hearts'`);
  });
});

// `az eval` on Blob through the built binary: per-agent and per-seat outcome metrics with confidence
// intervals, and the paired A-minus-B difference.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');

interface Summary {
  mean: number;
  ci95: number;
  n: number;
}
interface Side {
  agent: string;
  metrics: Record<string, Summary>;
  perSeat: { seat: number; metrics: Record<string, Summary> }[];
  wins: number;
  draws: number;
  losses: number;
  bySeat: { seat: number; games: number; wins: number; draws: number; losses: number; score: number; low: number; high: number }[];
}

function evalJson(args: string[]): { a: Side; b: Side; difference: Record<string, Summary>; determinizations?: number } {
  const r = spawnSync(process.execPath, [bin, 'eval', ...args, '--json'], { encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('az eval --game blob', () => {
  it('reports score per round and bid accuracy per agent and per seat, with the paired difference', () => {
    const report = evalJson(['--game', 'blob', '--config', 'rounds=one,roundCards=5', '--a', 'heuristic', '--b', 'random', '--games', '200']);
    expect(report.a.agent).toBe('heuristic');
    expect(report.a.metrics.scorePerRound.n).toBe(200);
    expect(report.b.metrics.scorePerRound.n).toBe(600);
    // Seats rotate: A holds each of the 4 seats in 50 games, B the other 150.
    expect(report.a.perSeat.map((s) => [s.seat, s.metrics.bidAccuracy.n])).toEqual([
      [0, 50],
      [1, 50],
      [2, 50],
      [3, 50],
    ]);
    expect(report.b.perSeat.every((s) => s.metrics.scorePerRound.n === 150)).toBe(true);
    const diff = report.difference.scorePerRound;
    expect(diff.n).toBe(200);
    expect(diff.mean).toBeCloseTo(report.a.metrics.scorePerRound.mean - report.b.metrics.scorePerRound.mean, 6);
    expect(diff.mean - diff.ci95).toBeGreaterThan(0); // the heuristic clearly beats random
    expect(report.difference.bidAccuracy.mean).toBeGreaterThan(0.2);
  });

  it('searches Blob by determinization for `mcts` (random rollouts, no network)', () => {
    const report = evalJson(['--game', 'blob', '--config', 'rounds=one,roundCards=5', '--a', 'mcts', '--b', 'random', '--games', '40', '--sims', '20', '--determinizations', '2']);
    expect(report.determinizations).toBe(2);
    expect(report.a.agent).toBe('mcts');
    expect(report.difference.scorePerRound.mean).toBeGreaterThan(0);
  });
});

describe('az eval --cpuct', () => {
  it('is reported with a search agent, and refused when no agent searches', () => {
    const report = evalJson(['--game', 'tictactoe', '--a', 'mcts', '--b', 'random', '--games', '2', '--sims', '20', '--cpuct', '0.5']) as { cPuct?: number };
    expect(report.cPuct).toBe(0.5);
    const byDefault = evalJson(['--game', 'tictactoe', '--a', 'mcts', '--b', 'random', '--games', '2', '--sims', '20']) as { cPuct?: number };
    expect(byDefault.cPuct).toBe(1.5);
    const noSearch = spawnSync(process.execPath, [bin, 'eval', '--game', 'tictactoe', '--a', 'random', '--b', 'minimax', '--games', '2', '--cpuct', '2'], { encoding: 'utf8', timeout: 60_000 });
    expect(noSearch.status).toBe(2);
    expect(noSearch.stderr).toContain("--cpuct sets the exploration of a search, and neither 'random' nor 'minimax' searches");
    // Without a search agent the header names no search settings; with one it does.
    const header = (args: string[]): string => spawnSync(process.execPath, [bin, 'eval', ...args], { encoding: 'utf8', timeout: 60_000 }).stdout.split('\n')[0];
    expect(header(['--game', 'tictactoe', '--a', 'random', '--b', 'minimax', '--games', '2'])).toBe('2 games of tictactoe (2 seats, rotating)');
    expect(header(['--game', 'tictactoe', '--a', 'mcts', '--b', 'random', '--games', '2', '--sims', '20'])).toBe('2 games of tictactoe (2 seats, rotating), 20 simulations per search move');
  });
});

describe('az eval per-seat intervals', () => {
  it('gives points a t interval even where a seat scored only 0, and keeps Wilson intervals for shares of games', () => {
    // Seed 0: random at seat 1 misses both its bids (score 0, 0): points, not a proportion.
    const report = evalJson(['--game', 'blob', '--config', 'rounds=one,roundCards=5', '--a', 'random', '--b', 'heuristic', '--games', '8', '--seed', '0']);
    const seat1 = report.a.perSeat.find((s) => s.seat === 1)?.metrics as Record<string, Summary & { low: number; high: number }>;
    expect(seat1.score.mean).toBe(0);
    expect(seat1.score.high).toBe(0); // Wilson would say 0.79 "points"
    // Bid accuracy is a share of rounds: its all-0 sample keeps a Wilson interval above 0.
    expect(seat1.bidAccuracy.mean).toBe(0);
    expect(seat1.bidAccuracy.high).toBeGreaterThan(0.5);
  });
});

describe('a flag and a --config field for the same setting (az eval, az play)', () => {
  const run = (args: string[]): ReturnType<typeof spawnSync> => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input: 'quit\n', timeout: 60_000 });

  it('are refused naming both when they differ', () => {
    const evaluated = run(['eval', '--game', 'blob', '--a', 'random', '--b', 'random', '--games', '2', '--players', '3', '--config', 'players=5']);
    expect(evaluated.status).toBe(2);
    expect(evaluated.stderr).toContain('az eval: --players 3 and --config players=5 set players to different values; give one of them');
    const played = run(['play', '--game', 'blob', '--opponent', 'random', '--players', '3', '--config', 'rounds=one,players=5']);
    expect(played.status).toBe(2);
    expect(played.stderr).toContain('az play: --players 3 and --config players=5 set players to different values; give one of them');
    expect(played.stdout).toBe('');
  });

  it('are accepted when they agree, as the game reads the value', () => {
    const report = evalJson(['--game', 'blob', '--a', 'random', '--b', 'random', '--games', '2', '--players', '3', '--config', 'rounds=one,roundCards=2,players=03']) as { config?: { players?: number } };
    expect(report.config?.players).toBe(3);
  });
});

describe('az eval results by seat', () => {
  it("splits A's and B's wins, draws and losses by the seat held, which the pooled score hides", () => {
    const report = evalJson(['--game', 'tictactoe', '--a', 'minimax', '--b', 'random', '--games', '40', '--seed', '3']);
    for (const side of [report.a, report.b]) {
      expect(side.bySeat.map((s) => [s.seat, s.games])).toEqual([
        [0, 20],
        [1, 20],
      ]);
      for (const k of ['wins', 'draws', 'losses'] as const) expect(side.bySeat[0][k] + side.bySeat[1][k]).toBe(side[k]);
    }
    // The perfect player never loses from either seat; B's seat-0 results are the mirror of A's seat-1 ones.
    expect(report.a.bySeat.every((s) => s.losses === 0)).toBe(true);
    expect(report.b.bySeat[0].losses).toBe(report.a.bySeat[1].wins);
    expect(report.a.bySeat[0].score).toBeCloseTo((report.a.bySeat[0].wins + report.a.bySeat[0].draws / 2) / 20, 9);
    const text = spawnSync(process.execPath, [bin, 'eval', '--game', 'tictactoe', '--a', 'minimax', '--b', 'random', '--games', '40', '--seed', '3'], { encoding: 'utf8', timeout: 120_000 });
    expect(text.status, text.stderr).toBe(0);
    const a0 = report.a.bySeat[0];
    expect(text.stdout).toContain(`seat 0: A ${a0.wins}-${a0.draws}-${a0.losses}, score ${a0.score.toFixed(3)}`);
  });
});


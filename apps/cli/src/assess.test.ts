import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AZ_BIN, azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-assess-');

describe('az assess', () => {
  it("runs the game's own assessment on an agent: the minimax bot plays tic-tac-toe perfectly", () => {
    const r = az(['assess', '--game', 'tictactoe', '--model', 'minimax', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { results: { assessment: { metrics: Record<string, number>; passed: boolean } }[] };
    expect(out.results).toHaveLength(1);
    expect(out.results[0].assessment.metrics.optimalMoves).toBe(4520);
    expect(out.results[0].assessment.passed).toBe(true);
  });

  it('names bad input: a malformed --sims, the policy alone without a model', () => {
    const bad = az(['assess', '--game', 'tictactoe', '--model', 'minimax', '--sims', '10,x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sims takes non-negative integers/);
    const noModel = az(['assess', '--game', 'tictactoe', '--model', 'random', '--sims', '0']);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/needs a model/);
  });

  it('judges a connect4 agent on the random-play set and on the held-out hard report set, per bucket, naming each', () => {
    // Run in the example package's folder, where az finds the plugin, as its users do.
    const packageDir = dirname(dirname(fileURLToPath(import.meta.resolve('az-game-connect4'))));
    const run = (args: string[]) => spawnSync(process.execPath, [AZ_BIN, ...args], { cwd: packageDir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_PLUGINS: '' } });
    const text = run(['assess', '--game', 'connect4', '--model', 'greedy']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/random-play set \(data\/positions\.json\): optimal moves \d+\/400 .*\[10-15 discs [\d.]+%, 16-21 discs/);
    expect(text.stdout).toMatch(/hard report set \(data\/hard-report\.json, held out: never tune on it\): optimal moves \d+\/\d+ .*\[8-14 discs [\d.]+%, 15-24 discs [\d.]+%, 25-35 discs [\d.]+%\]/);
    expect(text.stdout).not.toContain('tuning set');
    const json = run(['assess', '--game', 'connect4', '--model', 'greedy', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const metrics = (JSON.parse(json.stdout) as { results: { assessment: { metrics: Record<string, number> } }[] }).results[0].assessment.metrics;
    expect(metrics.positions).toBe(400);
    expect(metrics.hardReportPositions).toBeGreaterThanOrEqual(600);
    expect(metrics.hardReportRandomOptimalRate).toBeLessThan(metrics.randomOptimalRate);
    expect(metrics.hardReportOptimalRate8to14).toBeGreaterThanOrEqual(0);
    expect(Object.keys(metrics).some((k) => k.startsWith('hardTune'))).toBe(false);
  });
});

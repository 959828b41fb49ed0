import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-assess-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function az(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: work, timeout: 240_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

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
});

import { describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

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
});

// Tic-tac-toe against the shared contract test-kit from @az/core.
import { testGameContract } from '@az/core/testkit';
import { describe, expect, it } from 'vitest';
import { ticTacToePlugin } from './index.js';

describe('tictactoe game contract', () => {
  it('meets the contract in random play', async () => {
    // Every action of every deep-checked state is tried (the action space is only 9).
    const report = await testGameContract(ticTacToePlugin, { playouts: 64, illegalSamples: Infinity });
    expect(report.skipped).toEqual([]);
    expect(report.longestGame).toBeLessThanOrEqual(9);
    expect(report.checks['mask-matches-apply']).toBeGreaterThan(0);
    expect(report.checks.symmetry).toBeGreaterThan(0); // the 7 board symmetries, by mirrored replays
  });
});

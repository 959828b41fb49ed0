// Connect Four against the contract test-kit that @az/core ships for plugin authors.
import { testGameContract } from '@az/core/testkit';
import { describe, expect, it } from 'vitest';
import { connect4Plugin } from './index.js';

describe('connect4 game contract', () => {
  it('meets the contract on the standard board', async () => {
    const report = await testGameContract(connect4Plugin, { playouts: 32, illegalSamples: Infinity });
    expect(report.skipped).toEqual([]);
    expect(report.longestGame).toBeLessThanOrEqual(42);
    expect(report.checks.bots).toBe(1);
    expect(report.checks.symmetry).toBeGreaterThan(0); // the mirror, checked by replaying mirrored games
  });

  it('meets it on a small board with three in a row', async () => {
    await testGameContract(connect4Plugin, { config: { rows: 4, cols: 5, connect: 3 }, playouts: 16 });
  });

  it('refuses a line longer than the board', () => {
    expect(() => connect4Plugin.finalizeConfig!({ rows: 4, cols: 4, connect: 5 })).toThrow(/connect 5 does not fit a 4x4 grid/);
  });
});

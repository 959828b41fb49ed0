// Chess against the shared contract test-kit from @az/core. Games are capped short (maxPlies) to keep
// the test fast: the contract is the same at every length, and the cap itself is then exercised.
import { testGameContract } from '@az/core/testkit';
import { describe, expect, it } from 'vitest';
import { chessPlugin } from './index.js';

describe('chess game contract', () => {
  it('meets the contract in random play', async () => {
    const report = await testGameContract(chessPlugin, { config: { maxPlies: 40 }, playouts: 8, botGames: 2 });
    expect(report.skipped).toEqual([]);
    expect(report.longestGame).toBeLessThanOrEqual(40);
    expect(report.checks.bots).toBe(1);
  });

  it('meets the contract from a position with promotions and castling', async () => {
    const fen = 'r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1';
    const report = await testGameContract(chessPlugin, { config: { maxPlies: 16, fen, history: 0 }, playouts: 6, botGames: 0 });
    expect(report.skipped).toEqual([]);
  });
});

// Blob against the shared contract test-kit from @az/core, including the imperfect-information check:
// re-dealing what a seat cannot see must not change that seat's encoding, information state or mask.
import { testGameContract } from '@az/core/testkit';
import { describe, expect, it } from 'vitest';
import { BlobDeterminizer, blobPlugin, type BlobState } from './index.js';

// Used when the game offers no `determinizer` of its own (and as a second sampler when it does).
const determinizer = new BlobDeterminizer();
const resampleHidden = (state: BlobState, seat: number, rng: Parameters<BlobDeterminizer['sample']>[2]): BlobState =>
  determinizer.sample(state, seat, rng);

describe('blob game contract', () => {
  it('meets the contract for single rounds, trump turned up', async () => {
    const report = await testGameContract(blobPlugin, {
      config: { players: 3, rounds: 'one', roundCards: 5, trump: 'turned-up' },
      playouts: 16,
      resampleHidden,
    });
    expect(report.skipped).toEqual([]);
    expect(report.checks['hidden-information']).toBeGreaterThan(0);
  });

  it('meets the contract for single rounds drawn from a 5-player game', async () => {
    const report = await testGameContract(blobPlugin, { config: { players: 5, rounds: 'sampled' }, playouts: 16, resampleHidden });
    expect(report.skipped).toEqual([]);
    expect(report.checks['hidden-information']).toBeGreaterThan(0);
  });

  it('meets the contract for a whole game under the default rules', async () => {
    const report = await testGameContract(blobPlugin, { playouts: 4, resampleHidden, botGames: 2 });
    expect(report.skipped).toEqual([]);
    expect(report.checks.bots).toBe(2); // heuristic and counting
  });
});

// What .ci/run prints from the test log: the counts of its closing line, and the failures repeated at
// its end, against a log in the shape turbo and vitest write (two packages interleaved).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { failureReport, testCounts } from './ci-report.mjs';

const LOG = [
  '      Tests  4 passed (4)',
  '@az/core:test:  ❯ src/a.test.ts (2 tests | 1 failed) 13ms',
  '@az/core:test:    × adds 12ms',
  '@az/mcts:test:  ✓ src/b.test.ts (40 tests) 300ms',
  '@az/core:test: ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
  '@az/core:test:  FAIL  src/a.test.ts > adds',
  '@az/mcts:test:  Test Files  3 passed (3)',
  '@az/mcts:test:       Tests  40 passed (40)',
  '@az/core:test: AssertionError: expected 2 to be 3 // Object.is equality',
  '@az/core:test:  Test Files  1 failed (1)',
  '@az/core:test:       Tests  1 failed | 20 passed (21)',
  'az-game-connect4:test:       Tests  17 passed | 1 skipped (18)',
  '@az/core#test:  ERROR  command (/w/packages/core) /usr/bin/npm run test exited (1)',
  'Failed:    @az/core#test',
  ' ERROR  run failed: command  exited (1)',
].join('\n');

describe('ci-report', () => {
  it('sums every package\'s passed and failed tests (skipped ones are neither)', () => {
    expect(testCounts(LOG)).toEqual({ passed: 4 + 40 + 20 + 17, failed: 1 });
    expect(testCounts('no tests here')).toEqual({ passed: 0, failed: 0 });
    // A run that was not told NO_COLOR.
    expect(testCounts('@az/nn:test: \x1b[2m      Tests \x1b[22m \x1b[1m\x1b[32m96 passed\x1b[39m\x1b[22m\x1b[90m (96)\x1b[39m')).toEqual({ passed: 96, failed: 0 });
  });

  it("repeats each package's own failure section, not the lines another package wrote in between, and turbo's failed tasks", () => {
    expect(failureReport(LOG)).toEqual([
      '@az/core:test: ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      '@az/core:test:  FAIL  src/a.test.ts > adds',
      '@az/core:test: AssertionError: expected 2 to be 3 // Object.is equality',
      '@az/core#test:  ERROR  command (/w/packages/core) /usr/bin/npm run test exited (1)',
      'Failed:    @az/core#test',
      ' ERROR  run failed: command  exited (1)',
    ]);
  });

  it("repeats the API reference check's problems and its failed task", () => {
    const log = [
      '//:check:api-docs: > node scripts/api-docs.mjs',
      '@az/mcts:test:  ✓ src/b.test.ts (40 tests) 300ms',
      '//:check:api-docs: API reference check: 1 problem(s) in packages/core, packages/mcts:',
      '//:check:api-docs:   index.Rng.reseed (CallSignature), defined in @az/core/src/rng.ts, does not have any documentation',
      '//:check:api-docs: Document each exported symbol where it is declared (a /** ... */ comment: what it is, and briefly why).',
      '@az/mcts:test:       Tests  40 passed (40)',
      '//#check:api-docs:  ERROR  command (/w/) /usr/bin/npm run check:api-docs exited (1)',
      'Failed:    //#check:api-docs',
    ].join('\n');
    expect(failureReport(log)).toEqual([...log.split('\n').slice(2, 5), ...log.split('\n').slice(6)]);
  });

  it('repeats a test file that failed to load (vitest\'s "Failed Suites") and the failed tests after it', () => {
    const log = [
      '@az/nn:test: ⎯⎯⎯⎯⎯⎯ Failed Suites 1 ⎯⎯⎯⎯⎯⎯⎯',
      '@az/nn:test:  FAIL  src/bad.test.ts [ src/bad.test.ts ]',
      "@az/nn:test: Error: Cannot find module './missing-module.js'",
      '@az/nn:test: ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
      '@az/nn:test:  FAIL  src/a.test.ts > adds',
      '@az/nn:test:  Test Files  2 failed (2)',
      '@az/nn:test:       Tests  1 failed (1)',
    ].join('\n');
    expect(failureReport(log)).toEqual(log.split('\n').slice(0, 5));
  });

  it('reads an unprefixed vitest run and an unhandled error the same way, and stops at the line limit but keeps the failed tasks', () => {
    const plain = ['⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯', 'Error: boom', ' Test Files  2 passed (2)', '      Tests  9 passed (9)'].join('\n');
    expect(failureReport(plain)).toEqual(['⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯', 'Error: boom']);
    expect(failureReport(LOG, 2)).toEqual([...failureReport(LOG).slice(0, 2), ...failureReport(LOG).slice(-3)]);
    expect(failureReport('all well\n      Tests  3 passed (3)')).toEqual([]);
  });

  it('runs as a command from a checkout whose path has a space and a #', () => {
    const dir = mkdtempSync(join(tmpdir(), 'az ci #report-'));
    try {
      cpSync(join(dirname(fileURLToPath(import.meta.url)), 'ci-report.mjs'), join(dir, 'ci-report.mjs'));
      writeFileSync(join(dir, 'test.log'), LOG);
      const run = (what) => execFileSync(process.execPath, [join(dir, 'ci-report.mjs'), what, join(dir, 'test.log')], { encoding: 'utf8' });
      expect(run('counts')).toBe('81 1\n');
      expect(run('failures')).toBe(`${failureReport(LOG).join('\n')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

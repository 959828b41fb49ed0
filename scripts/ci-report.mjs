#!/usr/bin/env node
/**
 * Reads the log of `npm test` (vitest per package under turbo, each line prefixed "<package>:test: ")
 * for .ci/run:
 * - `counts LOG` prints "PASSED FAILED", the sums of vitest's "Tests  N passed | M failed (T)" lines;
 * - `failures LOG` prints vitest's account of each failure again ("Failed Tests" and "Unhandled
 *   Errors" sections, each package's own although turbo interleaves two packages' lines), the API
 *   reference check's list of problems (scripts/api-docs.mjs) and turbo's failed-task lines, at most
 *   150 lines: only the end of a CI log may be read.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const MAX_FAILURE_LINES = 150;
// turbo's task prefix ("@az/cli:test: "); lines without one (the root's own vitest run) share "".
const PREFIX = /^(\S+:test:)(?:\s|$)/;
// Colour codes, in case a run was not told NO_COLOR.
const ANSI = /\x1b\[[0-9;]*m/g;
const linesOf = (log) => log.replace(ANSI, '').split('\n');

/** Sums of the passed and failed counts of every vitest "Tests" line. */
export function testCounts(log) {
  let passed = 0;
  let failed = 0;
  for (const line of linesOf(log)) {
    if (!/Tests +\d+ (passed|failed)/.test(line)) continue;
    passed += Number(/(\d+) passed/.exec(line)?.[1] ?? 0);
    failed += Number(/(\d+) failed/.exec(line)?.[1] ?? 0);
  }
  return { passed, failed };
}

/**
 * The failure sections (test files that failed to load, failed tests, unhandled errors), in log order
 * and at most `max` lines, then turbo's failed-task lines, always kept: they name the packages.
 */
export function failureReport(log, max = MAX_FAILURE_LINES) {
  const open = new Set();
  const sections = [];
  const failedTasks = [];
  let apiDocs = false;
  for (const line of linesOf(log)) {
    // The API reference check's problems, from their count to its closing advice.
    if (/API reference check: \d+ problem/.test(line)) apiDocs = true;
    if (apiDocs) {
      sections.push(line);
      if (/Document each exported symbol/.test(line)) apiDocs = false;
      continue;
    }
    const prefix = PREFIX.exec(line)?.[1] ?? '';
    if (/Failed Suites \d+|Failed Tests \d+|Unhandled Errors?|Unhandled Rejection/.test(line)) open.add(prefix);
    if (/Test Files +\d+/.test(line)) open.delete(prefix);
    if (/ERROR +run failed|Failed: +\S+#(?:test|check:api-docs)|ERROR +command .* exited \(\d+\)/.test(line)) failedTasks.push(line);
    else if (open.has(prefix)) sections.push(line);
  }
  return [...sections.slice(0, max), ...failedTasks];
}

// Run as a command (argv[1] as a file URL: a checkout path with a space or '#' is percent-encoded in it).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [what, file] = process.argv.slice(2);
  if (!file || (what !== 'counts' && what !== 'failures')) {
    process.stderr.write('usage: node scripts/ci-report.mjs counts|failures LOG\n');
    process.exit(2);
  }
  const log = readFileSync(file, 'utf8');
  if (what === 'counts') {
    const { passed, failed } = testCounts(log);
    process.stdout.write(`${passed} ${failed}\n`);
  } else {
    const lines = failureReport(log);
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}

// Shared by every benchmark: each one prints its figures with the config it ran with and writes the
// same record as JSON to bench/results/<name>.json, so runs can be compared over time. Every record
// carries the machine's load average when the suite started (this module's import) and when it wrote
// its result: a figure from a loaded 2-core machine means little without it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** The 1, 5 and 15 minute load averages, two decimals. */
export function loadAverage() {
  return os.loadavg().map((x) => +x.toFixed(2));
}

// A suite imports this module before it measures anything, so this is its load at the start.
const loadAverageAtStart = loadAverage();

/** Records a benchmark: `config` is what it ran with, `results` the figures (numbers or nested objects). */
export function writeResult(name, config, results) {
  const record = {
    name,
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      loadAverage: { start: loadAverageAtStart, end: loadAverage() },
    },
    config,
    results,
  };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${name}.json`), JSON.stringify(record, null, 2) + '\n');
  console.log(`\n[bench ${name}] config: ${JSON.stringify(config)}`);
  console.log(`[bench ${name}] results: ${JSON.stringify(results, null, 2)}`);
  return record;
}

/** Runs `fn` until at least `minMs` have passed (and at least once); returns {iterations, ms, perSecond}. */
export async function timeIt(fn, minMs = 1000) {
  let iterations = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    await fn();
    iterations++;
    elapsed = performance.now() - start;
  } while (elapsed < minMs);
  return { iterations, ms: elapsed, perSecond: (iterations * 1000) / elapsed };
}

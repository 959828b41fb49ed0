// Shared by every benchmark: each one prints its figures with the config it ran with and writes the
// same record as JSON to bench/results/<name>.json, so runs can be compared over time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

/** Records a benchmark: `config` is what it ran with, `results` the figures (numbers or nested objects). */
export function writeResult(name, config, results) {
  const record = {
    name,
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? 'unknown', memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
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

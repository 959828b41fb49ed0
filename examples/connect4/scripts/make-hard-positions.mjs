#!/usr/bin/env node
// Builds a hard Connect Four reference set: positions reached by uniformly random play (no four
// connected on the way), in buckets of discs played, kept only where the mover can neither win at once
// nor is forced to block an immediate win, and where some legal move is worth less than another (see
// src/hard-positions.ts). Every legal move valued exactly (win 1 / draw 0 / loss -1 for the mover) by
// the solver. Seeded: the same flags give the same file. Two seeds make two sets:
//   data/hard-report.json (--purpose report): what results are quoted on; never used to choose settings.
//   data/hard-tune.json (--purpose tune): the one to tune on; the trainer's final assessment uses it.
// Run after `npm run build` in this folder (solving the 8-14 bucket takes the longest; --threads N
// solves on N threads and gives the same file):
//   nice -n 19 node scripts/make-hard-positions.mjs --purpose report --seed 49001 --per-bucket 200 --threads 4
import { writeFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { Rng } from '@az/core';
import { Connect4Solver, STANDARD_RULES, drop, newState, rejectBeforeSolving, rejectHardPosition } from '../dist/index.js';

const rules = STANDARD_RULES;

/** Plays 1-based column digits from the empty board. */
function stateOf(moves) {
  const s = newState(rules);
  for (const ch of moves) drop(rules, s, Number(ch) - 1);
  return s;
}

if (!isMainThread) {
  // A solving thread: the main thread draws the positions, so the output never depends on how many solve.
  const solver = new Connect4Solver(rules);
  parentPort.on('message', ({ id, moves }) => {
    parentPort.postMessage({ id, values: Array.from(solver.moveValues(rules, stateOf(moves), true), (v) => (Number.isNaN(v) ? null : v)) });
  });
} else {
  await main();
}

async function main() {
  const args = Object.fromEntries(
    process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
  );
  const purpose = args.purpose;
  if (purpose !== 'report' && purpose !== 'tune') throw new Error('make-hard-positions: --purpose report|tune is required');
  const seed = Number(args.seed ?? (purpose === 'report' ? 49001 : 49002));
  const perBucket = Number(args['per-bucket'] ?? 200);
  const threads = Number(args.threads ?? 1);
  const out = args.out ?? new URL(`../data/hard-${purpose}.json`, import.meta.url).pathname;
  /** Discs played, inclusive: the early middlegame, the middlegame, a crowded board. */
  const BUCKETS = [
    [8, 14],
    [15, 24],
    [25, 35],
  ];

  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url)));
  // A thread may still be solving a candidate of a bucket already full: its answer is dropped, and only
  // then is the thread idle again.
  const idle = [];
  const waiting = new Map();
  let nextId = 0;
  let pump = () => {};
  let failed = (e) => {
    throw e;
  };
  for (const w of workers) {
    idle.push(w);
    w.on('error', (e) => failed(e));
    w.on('message', ({ id, values }) => {
      const c = waiting.get(id);
      waiting.delete(id);
      if (c) {
        c.values = values;
        c.done = true;
      }
      idle.push(w);
      try {
        pump();
      } catch (e) {
        failed(e);
      }
    });
  }
  const positions = [];
  const generated = [];
  const started = performance.now();
  for (const [b, [lo, hi]] of BUCKETS.entries()) {
    const bucketStart = performance.now();
    // One stream per bucket: how far ahead the threads drew in one bucket must not move the next.
    const rng = new Rng(seed * 16 + b);
    const tally = { discs: [lo, hi], played: 0, rejected: {} };
    /** A random game of `target` discs (fewer if it connected four on the way). */
    const draw = () => {
      const target = lo + rng.int(hi - lo + 1);
      const s = newState(rules);
      const moves = [];
      for (let i = 0; i < target && s.winner === -1; i++) {
        const open = [];
        for (let c = 0; c < rules.cols; c++) if (s.heights[c] < rules.rows) open.push(c);
        const c = open[rng.int(open.length)];
        drop(rules, s, c);
        moves.push(c + 1);
      }
      // The solver runs only on positions the cheap checks keep.
      return { moves: moves.join(''), s, why: rejectBeforeSolving(rules, s), values: undefined, done: false };
    };
    // Candidates are judged in the order drawn, and the bucket takes the first `perBucket` kept, so
    // the file is the same for any number of threads.
    await new Promise((resolve, reject) => {
      const drawn = [];
      let judged = 0;
      let finished = false;
      failed = reject;
      pump = () => {
        for (;;) {
          while (!finished && judged < drawn.length && drawn[judged].done) {
            const c = drawn[judged++];
            tally.played++;
            const why = c.why ?? rejectHardPosition(rules, c.s, c.values);
            if (why) {
              tally.rejected[why] = (tally.rejected[why] ?? 0) + 1;
              continue;
            }
            positions.push({ moves: c.moves, bucket: `${lo}-${hi}`, values: c.values });
            process.stderr.write(`\r${positions.length}/${perBucket * BUCKETS.length} positions, ${((performance.now() - started) / 1000).toFixed(0)} s`);
            if (positions.length === perBucket * (generated.length + 1)) finished = true;
          }
          if (finished) {
            waiting.clear();
            return resolve();
          }
          if (idle.length === 0) return;
          const c = draw();
          drawn.push(c);
          if (c.why) {
            c.done = true;
            continue;
          }
          const id = nextId++;
          waiting.set(id, c);
          idle.pop().postMessage({ id, moves: c.moves });
        }
      };
      pump();
    });
    generated.push(tally);
    process.stderr.write(`\n${lo}-${hi} discs: ${perBucket} kept of ${tally.played} played in ${((performance.now() - bucketStart) / 1000).toFixed(0)} s\n`);
  }
  await Promise.all(workers.map((w) => w.terminate()));
  const file = {
    description:
      `Hard Connect Four 6x7 positions (${purpose === 'report' ? 'REPORT set: quote results on it, never choose settings with it' : 'TUNING set: choose settings with it; quote results on hard-report.json'}). ` +
      'Reached by uniformly random play without a four connected, kept only where the mover cannot win at once, is not forced to block an immediate win, and some legal move is worth less than another. ' +
      'Each holds the exact value of every move for the side to move (1 win, 0 draw, -1 loss, null for a full column); `moves` are the columns played from the empty board, 1-based.',
    purpose,
    generator: `node scripts/make-hard-positions.mjs --purpose ${purpose} --seed ${seed} --per-bucket ${perBucket}`,
    rules: { rows: rules.rows, cols: rules.cols, connect: rules.connect },
    buckets: BUCKETS,
    generated,
    positions,
  };
  writeFileSync(out, JSON.stringify(file, null, 0).replace(/\},\{"moves"/g, '},\n{"moves"') + '\n');
  console.log(`wrote ${positions.length} positions to ${out} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

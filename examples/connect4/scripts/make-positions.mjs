#!/usr/bin/env node
// Builds the Connect Four reference positions (data/positions.json) that `assessAgent` (and so
// `az assess --game connect4` and the trainer's final assessment) judges agents on: positions reached by
// uniformly random play from the start, `--per-bucket` of them in each bucket of discs played, every
// legal move valued exactly (win 1 / draw 0 / loss -1 for the mover) by the solver. Seeded: the same
// flags give the same file. Run after `npm run build` in this folder:
//   node scripts/make-positions.mjs --seed 1 --per-bucket 40 [--out data/positions.json]
import { writeFileSync } from 'node:fs';
import { Rng } from '@az/core';
import { Connect4Solver, STANDARD_RULES, drop, newState } from '../dist/index.js';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const seed = Number(args.seed ?? 1);
const perBucket = Number(args['per-bucket'] ?? 40);
const out = args.out ?? new URL('../data/positions.json', import.meta.url).pathname;
/** Discs played, inclusive ranges: from the opening's end (10) to a crowded board. */
const BUCKETS = [
  [10, 15],
  [16, 21],
  [22, 27],
  [28, 35],
];

const rules = STANDARD_RULES;
const solver = new Connect4Solver(rules);
const rng = new Rng(seed);
const positions = [];
const started = performance.now();
for (const [lo, hi] of BUCKETS) {
  let made = 0;
  while (made < perBucket) {
    const target = lo + rng.int(hi - lo + 1);
    const s = newState(rules);
    const moves = [];
    let over = false;
    for (let i = 0; i < target && !over; i++) {
      const open = [];
      for (let c = 0; c < rules.cols; c++) if (s.heights[c] < rules.rows) open.push(c);
      const c = open[rng.int(open.length)];
      drop(rules, s, c);
      moves.push(c + 1);
      over = s.winner !== -1 || s.moves === rules.rows * rules.cols;
    }
    if (over) continue;
    const values = Array.from(solver.moveValues(rules, s, true), (v) => (Number.isNaN(v) ? null : v));
    positions.push({ moves: moves.join(''), values });
    made++;
    process.stderr.write(`\r${positions.length}/${perBucket * BUCKETS.length} positions, ${((performance.now() - started) / 1000).toFixed(0)} s, ${solver.nodes} nodes`);
  }
}
process.stderr.write('\n');
const file = {
  description:
    'Connect Four 6x7 positions from uniformly random play, each with the exact value of every move for the side to move (1 win, 0 draw, -1 loss, null for a full column). `moves` are the columns played from the empty board, 1-based.',
  generator: `node scripts/make-positions.mjs --seed ${seed} --per-bucket ${perBucket}`,
  rules: { rows: rules.rows, cols: rules.cols, connect: rules.connect },
  buckets: BUCKETS,
  positions,
};
writeFileSync(out, JSON.stringify(file, null, 0).replace(/\},\{/g, '},\n{') + '\n');
console.log(`wrote ${positions.length} positions to ${out} in ${((performance.now() - started) / 1000).toFixed(0)} s`);

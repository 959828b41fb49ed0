// Perft from the start position to depth 5 (4,865,609 leaves) through the plugin's own fillMask, clone
// and applyAction, the operations self-play runs at every tree node. Leaves are counted from the mask
// at the last ply (bulk counting), as perft programs do. Run `npm run build` (or tsc) first.
import { Rng, validateConfig } from '@az/core';
import { Chess } from 'chess.js';
import { writeResult } from '@az/bench';
import { chessPlugin } from '../dist/index.js';

const DEPTH = 5;
const EXPECTED = 4_865_609;

const game = chessPlugin.create(chessPlugin.finalizeConfig(validateConfig(chessPlugin.configSchema, {})));
const rng = new Rng(0);
let expanded = 0;

function perft(state, depth, masks) {
  const mask = masks[depth];
  const count = game.masker.fillMask(state, mask, 0);
  if (depth === 1) return count;
  let total = 0;
  for (let action = 0; action < mask.length; action++) {
    if (!mask[action]) continue;
    const child = game.clone(state);
    game.applyAction(child, action, rng);
    expanded++;
    total += perft(child, depth - 1, masks);
  }
  return total;
}

const masks = Array.from({ length: DEPTH + 1 }, () => new Uint8Array(game.masker.actionSize));
perft(game.initialState(rng), 3, masks); // warm up the JIT
expanded = 0;
const start = performance.now();
const nodes = perft(game.initialState(rng), DEPTH, masks);
const seconds = (performance.now() - start) / 1000;
if (nodes !== EXPECTED) {
  console.error(`perft(${DEPTH}) = ${nodes}, expected ${EXPECTED}`);
  process.exit(1);
}

// chess.js's own perft (its make/unmake legality check) at depth 4, for scale.
const referenceStart = performance.now();
const referenceNodes = new Chess().perft(4);
const referenceSeconds = (performance.now() - referenceStart) / 1000;

writeResult(
  'game-chess-perft',
  { position: 'start', depth: DEPTH, path: 'fillMask + clone + applyAction, bulk-counted last ply' },
  {
    nodes,
    seconds: Number(seconds.toFixed(3)),
    nodesPerSecond: Math.round(nodes / seconds),
    movesAppliedPerSecond: Math.round(expanded / seconds),
    chessJsPerft4NodesPerSecond: Math.round(referenceNodes / referenceSeconds),
  },
);

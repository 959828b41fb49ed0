// Memory per search-tree node and per chess game state, measured (heap and array-buffer growth after a
// forced GC), for docs/performance.md. Run: npm run bench -- chess-memory
// (it restarts itself with --expose-gc).
//
// A tree node costs the same for every game: the per-node typed arrays of BatchedMcts, allocated for the
// whole capacity up front. A state is only stored for nodes the search has visited (plus the root's
// children, resolved at expansion), and costs what the game's state costs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resolveGameConfig, Rng } from '@az/core';
import { chessPlugin } from '@az/game-chess';
import { BatchedMcts } from '@az/mcts';
import { writeResult } from '@az/bench';

if (typeof globalThis.gc !== 'function') {
  // Heap figures need a forced collection before each reading.
  const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
const gc = globalThis.gc;

function used() {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const results = {};
for (const history of [0, 2]) {
  const game = chessPlugin.create(resolveGameConfig(chessPlugin, { history }));
  // States as the tree holds them: a clone of the parent, one move applied, legal actions and the
  // game-end status computed (the search asks for both), 20 plies into random games.
  const rng = new Rng(3);
  const parents = [];
  for (let g = 0; g < 50; g++) {
    const s = game.initialState();
    for (let ply = 0; ply < 20 && !game.isTerminal(s); ply++) {
      const legal = game.masker.legalActions(s);
      game.applyAction(s, legal[rng.int(legal.length)], rng);
    }
    parents.push(s);
  }
  const count = 100_000;
  const keep = new Array(count);
  const before = used();
  for (let i = 0; i < count; i++) {
    const parent = parents[i % parents.length];
    const legal = game.masker.legalActions(parent);
    const child = game.clone(parent);
    game.applyAction(child, legal[i % legal.length], rng);
    game.isTerminal(child);
    game.masker.legalActions(child);
    keep[i] = child;
  }
  const after = used();
  results[`stateBytes_history${history}`] = Math.round((after - before) / count);
  keep.length = 0;
}

{
  // Per-node arrays of the tree, for a two-player game (values are stored per seat).
  const game = chessPlugin.create(resolveGameConfig(chessPlugin, {}));
  const trees = 64;
  const nodeCapacity = 4096;
  const before = used();
  const engine = new BatchedMcts(game, { needsInputs: false, evaluate() {} }, trees, { nodeCapacity, leavesPerTree: 8 });
  const after = used();
  results.treeBytesPerNodeCapacity = +((after - before) / (trees * nodeCapacity)).toFixed(1);
  results.treeNodes = trees * nodeCapacity;
  void engine;
}

writeResult('chess-memory', { node: process.version }, results);

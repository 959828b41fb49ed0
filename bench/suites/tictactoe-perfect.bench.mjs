// Wall time of `az train --game tictactoe` with its defaults, until the final model is assessed
// against the exact oracle (>= 99% optimal moves over 4,520 positions, no loss from any opening).
// Goal from the foundation issue: under 3 minutes on the 2-core reference machine.
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultRegistry } from '@az/core';
import { registerTicTacToe } from '@az/game-tictactoe';
import { runTraining } from '@az/trainer-multigpu';
import { writeResult } from '@az/bench';

registerTicTacToe(defaultRegistry);
const out = mkdtempSync(join(tmpdir(), 'az-bench-ttt-'));
const start = performance.now();
try {
  const summary = await runTraining({ game: 'tictactoe', out }, { events: { iteration: (m) => console.log(`iteration ${m.iteration}: policy ${m.train.policyLoss.toFixed(3)} value ${m.train.valueLoss.toFixed(3)}`) } });
  const seconds = (performance.now() - start) / 1000;
  writeResult(
    'tictactoe-perfect',
    { command: 'az train --game tictactoe (defaults)', backend: summary.backend, loadAverage: os.loadavg().map((x) => +x.toFixed(2)) },
    { wallSeconds: +seconds.toFixed(1), iterations: summary.iterations, games: summary.gamesPlayed, perfectPlay: summary.assessment?.passed ?? false, ...summary.assessment?.metrics, goalSeconds: 180 },
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}

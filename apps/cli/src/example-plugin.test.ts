// Training the example plugin (examples/connect4) with the az CLI, exactly as a user of that package
// would: `az train --game connect4` run in the package's folder. Nothing registers the game by hand: az
// finds it because the project in the current directory declares "az": { "gamePlugin": "connect4Plugin" }.
// The test lives here, not in the example, so the plugin itself installs without the CLI's ML stack.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The example's entry (its exports name only '.'): dist/index.js, one level below its folder.
const packageDir = dirname(dirname(fileURLToPath(import.meta.resolve('az-game-connect4'))));
const az = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const out = mkdtempSync(join(tmpdir(), 'az-connect4-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('az train --game connect4', () => {
  it('is listed by az games and trains for a few iterations', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [az, ...args], { cwd: packageDir, encoding: 'utf8', timeout: 110_000, env: { ...process.env, AZ_PLUGINS: '' } });
    const games = run(['games']);
    expect(games.stdout).toMatch(/^connect4\s+Connect Four: 2 players/m);
    const tiny = ['--games-per-iter', '8', '--parallel-games', '8', '--sims', '8', '--train-steps', '4', '--batch-size', '32', '--eval-games', '2'];
    const r = run(['train', '--game', 'connect4', '--iterations', '2', ...tiny, '--network', 'resnet:8x1', '--out', join(out, 'run'), '--quiet', '--seed', '1']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('az train: connect4, 2 iterations');
    expect(r.stdout).toMatch(/vs greedy \d+W\/\d+D\/\d+L/);
    expect(existsSync(join(out, 'run', 'checkpoints', 'iter-000002', 'manifest.json'))).toBe(true);
    const metrics = readFileSync(join(out, 'run', 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(metrics).toHaveLength(2);
    // The game's selfPlayProcesses hint (1): with a core to spare, self-play runs in a worker process
    // beside the trainer, and the metrics say where the games came from.
    const beside = availableParallelism() > 1;
    expect(r.stderr.includes('self-play: 1 worker process beside the trainer'), r.stderr).toBe(beside);
    expect('workers' in JSON.parse(metrics[1])).toBe(beside);
    // --single-process: self-play and training in turns in this process, as before the hint.
    const single = run(['train', '--game', 'connect4', '--iterations', '1', ...tiny, '--network', 'resnet:8x1', '--out', join(out, 'single'), '--quiet', '--single-process']);
    expect(single.status, single.stderr).toBe(0);
    expect(single.stderr).not.toContain('worker process');
    expect('workers' in JSON.parse(readFileSync(join(out, 'single', 'metrics.jsonl'), 'utf8'))).toBe(false);
    expect(run(['train', '--game', 'connect4', '--devices', 'cpu:1', '--single-process', '--out', join(out, 'bad')]).stderr).toMatch(/--single-process cannot be combined/);
  });
});

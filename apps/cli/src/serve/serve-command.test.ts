// The az serve and az report commands through the built binary: the URL printed, loopback by default,
// the warning for another address, and clear errors for a bad run directory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exposureWarning } from '../commands/serve.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');

describe('az serve', () => {
  it('listens on 127.0.0.1, prints its URL, answers, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--game', 'tictactoe'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /az serve: (http:\/\/127\.0\.0\.1:\d+)\/play\/tictactoe/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`az serve exited with ${code}: ${stderr}`)));
    });
    const games = (await (await fetch(`${url}/api/games`)).json()) as { id: string; hasView: boolean }[];
    expect(games.find((g) => g.id === 'tictactoe')?.hasView).toBe(true);
    expect(stderr).not.toMatch(/warning: listening/);
    // Without --seed, each game is dealt afresh (a default seed dealt every Blob game the same hands).
    const hands = await Promise.all([0, 1].map(async () => {
      const res = await fetch(`${url}/api/games/blob/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ opponent: 'random', config: { rounds: 'one', roundCards: 8 } }) });
      return ((await res.json()) as { view: { hand: string[] } }).view.hand.join(',');
    }));
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(hands[0]).not.toBe(hands[1]);
  });

  it('warns when --host exposes it beyond this machine', () => {
    expect(exposureWarning('127.0.0.1')).toBeUndefined();
    expect(exposureWarning('::1')).toBeUndefined();
    expect(exposureWarning('0.0.0.0')).toMatch(/warning: listening on 0\.0\.0\.0.*no login/);
  });

  it('refuses a model without a game, and a run directory that does not exist', () => {
    const noGame = spawnSync(process.execPath, [bin, 'serve', '--model', 'runs/x'], { encoding: 'utf8' });
    expect(noGame.status).toBe(2);
    expect(noGame.stderr).toMatch(/--model needs --game/);
    const noRun = spawnSync(process.execPath, [bin, 'serve', '--run', '/nonexistent/run'], { encoding: 'utf8' });
    expect(noRun.status).toBe(1);
    expect(noRun.stderr).toMatch(/no run directory at \/nonexistent\/run/);
    const report = spawnSync(process.execPath, [bin, 'report', '/nonexistent/run'], { encoding: 'utf8' });
    expect(report.status).toBe(1);
    expect(report.stderr).toMatch(/no run directory at \/nonexistent\/run/);
    const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--host ADDRESS/);
    expect(help.stdout).toMatch(/--max-searches N +most computer moves searched at once/);
    const noSearches = spawnSync(process.execPath, [bin, 'serve', '--max-searches', '0'], { encoding: 'utf8' });
    expect(noSearches.status).toBe(2);
    expect(noSearches.stderr).toMatch(/--max-searches/);
  });
});

describe('az train --dashboard', () => {
  it('serves the run being trained and prints its URL; summary.json is written at the end', async () => {
    const out = mkdtempSync(join(tmpdir(), 'az-train-dashboard-'));
    try {
      const args = [bin, 'train', '--game', 'tictactoe', '--iterations', '2', '--games-per-iter', '8', '--sims', '8', '--train-steps', '5', '--eval-games', '2'];
      const child = spawn(process.execPath, [...args, '--backend', 'cpu', '--quiet', '--out', out, '--dashboard', '--dashboard-port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
      const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\/dashboard/.exec(err);
          if (m) resolve(m[1]);
        });
        void exit.then((code) => reject(new Error(`az train exited with ${code} before printing the dashboard URL: ${err}`)));
      });
      // The server is up before the first iteration starts.
      const run = (await (await fetch(`${url}/api/run`)).json()) as { dir: string; rows: unknown[] };
      expect(run.dir).toBe(out);
      expect(await exit).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { game: string; iterations: number; assessment?: { summary: string } };
      expect(summary.game).toBe('tictactoe');
      expect(summary.iterations).toBe(2);
      expect(summary.assessment?.summary).toMatch(/minimax oracle/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});


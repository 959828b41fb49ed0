// `az ... | head -1`: the reader of stdout goes away after one line. Training carries on to the end,
// an interactive game stops, and neither prints a stack trace or fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readCheckpointManifest, resolveCheckpointPath } from '@az/nn';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-closed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  firstLine: string;
  stderr: string;
}

/**
 * Runs az with stdout on a real pipe and closes the pipe's reading end once the first line has
 * arrived, like `| head -1`; `afterClose` runs once it is closed (to make the command write again).
 */
function runClosingAfterFirstLine(args: string[], afterClose?: (stdin: NodeJS.WritableStream) => void): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let firstLine = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (firstLine) return;
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      firstLine = out.slice(0, nl);
      child.stdout.destroy();
    });
    child.stdout.on('close', () => afterClose?.(child.stdin));
    child.stdin.on('error', () => undefined);
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise({ code, signal, firstLine, stderr }));
  });
}

describe('stdout closed early', () => {
  it('az train keeps training to the end and exits 0 without a stack trace', async () => {
    const out = join(work, 'run');
    const iterations = 3;
    const r = await runClosingAfterFirstLine(['train', '--game', 'tictactoe', '--iterations', String(iterations), '--games-per-iter', '4', '--sims', '4', '--eval-games', '2', '--train-steps', '2', '--out', out, '--quiet']);
    expect(r.firstLine).toMatch(/^iter 1:/);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(r.code, r.stderr).toBe(0);
    // Every iteration ran and was recorded after the reader had gone.
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(iterations);
    expect(await readCheckpointManifest(resolveCheckpointPath(out).checkpointDir)).toMatchObject({ iteration: iterations });
  }, 300_000);

  it('az play stops quietly with status 0 when it can no longer show the game', async () => {
    // After the pipe is closed, a command makes az play write again; stdin stays open, so only the
    // closed stdout can end the game.
    const r = await runClosingAfterFirstLine(['play', '--game', 'tictactoe', '--sims', '2'], (stdin) => stdin.write('moves\nmoves\n'));
    expect(r.firstLine).toMatch(/Tic-tac-toe/);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});

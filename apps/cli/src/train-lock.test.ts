// One az train at a time on a run directory, through the built binary: a second one (--resume, or
// --force) on a run being trained is refused with exit 2 and changes nothing, readers keep working,
// and once the trainer is stopped (Ctrl-C) the run is unlocked and resumes.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listCheckpoints } from '@az/nn';
import { azInTempDir, startAz } from './test-cli.js';

const { work, az } = azInTempDir('az-train-lock-');

/** Every file under `dir` with a hash of its bytes: what a refused command must leave as it was. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)} ${createHash('sha256').update(readFileSync(join(e.parentPath, e.name))).digest('hex')}`)
    .sort();
}

describe('az train on a run another az train is training', () => {
  it('is refused with exit 2 before changing anything (--resume and --force); readers still read; after Ctrl-C the lock is gone and the run resumes', async () => {
    const dir = join(work, 'runs', 'ttt');
    const lock = join(dir, 'train.lock');
    const small = ['--games-per-iter', '4', '--parallel-games', '4', '--sims', '4', '--train-steps', '2', '--batch-size', '8', '--eval-games', '0', '--quiet'];
    const trainer = startAz(work, ['train', '--game', 'tictactoe', '--out', dir, '--iterations', '100000', '--single-process', ...small]);
    // Its first checkpoint is written before its first iteration line.
    await trainer.until(/^iter 1:/m);
    expect(existsSync(join(dir, 'checkpoints', 'iter-000001'))).toBe(true);
    const pid = trainer.child.pid;

    // Paused, so its own writes hold still while the others try theirs; still alive, so still the holder.
    trainer.child.kill('SIGSTOP');
    try {
      const before = snapshot(work);
      // One iteration past the run's: were it not refused, it would train it and end.
      const reached = listCheckpoints(dir).at(-1)?.iteration ?? 0;
      const resume = az(['train', '--resume', dir, '--iterations', String(reached + 1), '--quiet']);
      expect(resume.code, resume.stderr).toBe(2);
      const holder = JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; hostname: string; started: string; command: string };
      expect(holder).toMatchObject({ pid, hostname: hostname(), command: `az train --game tictactoe --out ${dir} --iterations 100000 --single-process ${small.join(' ')}` });
      expect(resume.stderr).toContain(`az train: ${dir} is being trained by another process: pid ${pid} on host ${hostname()}, since ${holder.started}`);
      expect(resume.stderr).toContain(`running: ${holder.command}`);
      expect(resume.stderr).toContain(`kill -INT ${pid}`);
      const force = az(['train', '--game', 'tictactoe', '--out', dir, '--force', '--iterations', '1', '--single-process', ...small]);
      expect(force.code, force.stderr).toBe(2);
      expect(force.stderr).toContain(`az train: ${dir} is being trained by another process: pid ${pid}`);
      expect(force.stderr).toContain('--force moves no run aside while it is being trained');
      // No archive, no options.json rewritten, no checkpoint, no metrics line.
      expect(snapshot(work)).toEqual(before);

      // Readers take no lock.
      const report = az(['report', dir]);
      expect(report.code, report.stderr).toBe(0);
      const play = az(['play', '--game', 'tictactoe', '--model', dir, '--sims', '2'], 'quit\n');
      expect(play.code, play.stderr).toBe(0);
    } finally {
      trainer.child.kill('SIGCONT');
    }

    trainer.child.kill('SIGINT');
    expect(await trainer.exit, trainer.output()).toBe(130);
    const at = /interrupted: checkpoint written at iteration (\d+)/.exec(trainer.output());
    expect(at, trainer.output()).not.toBeNull();
    expect(existsSync(lock)).toBe(false);
    const iterations = Number(at?.[1]) + 1;
    const resumed = az(['train', '--resume', dir, '--iterations', String(iterations), '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`az train: tictactoe, ${iterations} iterations`);
    expect(resumed.stderr).not.toContain('warning');
    expect(existsSync(lock)).toBe(false);
  }, 300_000);
});

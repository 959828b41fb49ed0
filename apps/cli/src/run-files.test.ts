// The run's own files through the built binary when a write cannot finish: a full disk (simulated by a
// file-size limit, `prlimit --fsize`: every write past it fails as a full disk's would) or a kill
// before the first checkpoint. No empty or truncated options.json or report.html is ever left behind,
// and every refusal names the one command that works.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AZ_BIN, azInTempDir, type AzResult } from './test-cli.js';

const { work, az } = azInTempDir('az-run-files-');

const tiny = ['--game', 'tictactoe', '--games-per-iter', '4', '--parallel-games', '4', '--sims', '4', '--train-steps', '2', '--batch-size', '8', '--eval-games', '0', '--network', 'mlp:8', '--backend', 'cpu', '--quiet'];

/** `az args` with every file it writes limited to `maxFileBytes` (a disk that fills up past it). */
function azOnFullDisk(maxFileBytes: number, args: string[]): AzResult {
  const r = spawnSync('prlimit', [`--fsize=${maxFileBytes}`, process.execPath, AZ_BIN, ...args], { cwd: work, encoding: 'utf8', timeout: 240_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `az args` killed (SIGKILL, as a power cut) at the trainer's named step. */
function azKilledAt(step: string, args: string[]): NodeJS.Signals | null {
  const r = spawnSync(process.execPath, [AZ_BIN, ...args], { cwd: work, encoding: 'utf8', timeout: 240_000, env: { ...process.env, AZ_FAULT_KILL_AT: step } });
  return r.signal;
}

const temporaries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((n) => n.includes('.tmp-')) : []);

describe('a run directory after a full disk or a kill', () => {
  it('a full disk when az train writes options.json leaves none (new run) or the old one (resume), and the same command then works', () => {
    // Past the lock file (a few hundred bytes), short of options.json (over a kilobyte).
    const limit = 1024;
    const fresh = azOnFullDisk(limit, ['train', ...tiny, '--out', 'full', '--iterations', '1']);
    expect(fresh.code, fresh.stderr).toBe(1);
    expect(fresh.stderr).toMatch(/cannot write \S*full\/options\.json .*run the same command again/);
    expect(existsSync(join(work, 'full', 'options.json'))).toBe(false);
    expect(temporaries(join(work, 'full'))).toEqual([]);

    const again = az(['train', ...tiny, '--out', 'full', '--iterations', '1']);
    expect(again.code, again.stderr).toBe(0);
    const options = readFileSync(join(work, 'full', 'options.json'), 'utf8');
    expect((JSON.parse(options) as { game: string }).game).toBe('tictactoe');

    const resume = azOnFullDisk(limit, ['train', '--game', 'tictactoe', '--resume', 'full', '--iterations', '2', '--quiet']);
    expect(resume.code, resume.stderr).toBe(1);
    expect(resume.stderr).toMatch(/cannot write \S*full\/options\.json/);
    expect(readFileSync(join(work, 'full', 'options.json'), 'utf8')).toBe(options);
    expect(temporaries(join(work, 'full'))).toEqual([]);
    const resumed = az(['train', '--game', 'tictactoe', '--resume', 'full', '--iterations', '2', '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('a run killed before its first checkpoint: --out and --resume both name the command that starts it again, and it does', () => {
    const args = ['train', ...tiny, '--out', 'killed', '--iterations', '1'];
    expect(azKilledAt('checkpoint:mkdir', args)).toBe('SIGKILL');
    expect(readdirSync(join(work, 'killed'))).toContain('options.json');
    const restart = 'az train --game tictactoe --out killed --force';

    const out = az(args);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('has no checkpoint yet');
    expect(out.stderr).toContain(restart);
    expect(out.stderr).not.toContain('--resume');

    const resume = az(['train', '--game', 'tictactoe', '--resume', 'killed', '--iterations', '1']);
    expect(resume.code, resume.stderr).toBe(2);
    expect(resume.stderr).toContain('has no checkpoint yet');
    expect(resume.stderr).toContain(restart);

    const restarted = az([...args, '--force']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const iterations = readFileSync(join(work, 'killed', 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { iteration: number }).iteration);
    expect(iterations).toEqual([1]);
  });

  it('az report on a full disk says so and leaves no partial report; it skips a metrics line without an iteration, naming file and line', () => {
    const run = join(work, 'report-run');
    mkdirSync(run);
    writeFileSync(join(run, 'options.json'), JSON.stringify({ game: 'tictactoe' }));
    writeFileSync(join(run, 'metrics.jsonl'), ['{"iteration":1,"train":{"total":2}}', '{"note":"no iteration"}', '{"iteration":2,"train":{"total":1}}', ''].join('\n'));
    writeFileSync(join(run, 'report.html'), 'the earlier report');

    const full = azOnFullDisk(4096, ['report', run]);
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr).toMatch(/az report: cannot write \S*report\.html .*no report was written/);
    expect(readFileSync(join(run, 'report.html'), 'utf8')).toBe('the earlier report');
    const elsewhere = azOnFullDisk(4096, ['report', run, '--out', join(work, 'shared.html')]);
    expect(elsewhere.code, elsewhere.stderr).toBe(1);
    expect(existsSync(join(work, 'shared.html'))).toBe(false);
    expect(temporaries(run)).toEqual([]);
    expect(temporaries(work)).toEqual([]);

    const written = az(['report', run]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain(`${join(run, 'metrics.jsonl')} line 2: no numeric "iteration"; skipped`);
    expect(written.stdout).toContain('(2 iterations');
    const html = readFileSync(join(run, 'report.html'), 'utf8');
    const data = JSON.parse(/<script id="run-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null') as { rows: { iteration: number }[] };
    expect(data.rows.map((r) => r.iteration)).toEqual([1, 2]);
  });
});

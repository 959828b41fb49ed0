// End-to-end tests of the built `az` binary: what a user types, what they see, the exit codes.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AZ_BIN, azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-cli-');

describe('az (usage and errors)', () => {
  it('lists commands, and every command has --help', () => {
    const top = az(['--help']);
    expect(top.code).toBe(0);
    for (const cmd of ['train', 'play', 'eval', 'compare', 'rate', 'uci', 'games', 'worker']) {
      expect(top.stdout).toContain(cmd);
      const help = az([cmd, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: az ${cmd}`);
      // Every option line keeps its flag apart from its description (long flags wrap instead).
      for (const line of help.stdout.split('\n').filter((l) => l.startsWith('  -'))) {
        expect(line, `${cmd}: ${line}`).toMatch(/^ {2}(-\w, )?--[a-z-]+( [^ ]+)?( {2,}\S.*)?$/);
      }
    }
  });

  it('rejects unknown commands, unknown flags and bad values with exit 2, naming them', () => {
    expect(az(['trian']).code).toBe(2);
    expect(az(['trian']).stderr).toContain("unknown command 'trian'");
    const flag = az(['train', '--game', 'tictactoe', '--itterations', '3']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("'--itterations'");
    const value = az(['train', '--game', 'tictactoe', '--sims', '0']);
    expect(value.code).toBe(2);
    expect(value.stderr).toContain('--sims must be at least 1');
    // A negative number is a value out of range, not a flag.
    const negative = az(['train', '--game', 'tictactoe', '--sims', '-5']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain("--sims must be at least 1 (got '-5')");
    // A flag given twice with different values: the first would be dropped without a word.
    const twice = az(['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'random', '--config', 'a=1', '--config', 'b=2']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("az eval: --config was given more than once ('a=1' and 'b=2'); put every setting in one, --config a=1,b=2");
    const seeds = az(['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'random', '--seed', '1', '--seed=2']);
    expect(seeds.code).toBe(2);
    expect(seeds.stderr).toContain("az eval: --seed was given more than once ('1' and '2'); give it once");
    // The same value twice is harmless.
    const same = az(['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'random', '--games', '2', '--seed', '1', '--seed', '1', '--json', '--json']);
    expect(same.code, same.stderr).toBe(0);
    // Nor is one setting given twice with different values inside --config.
    const setting = az(['eval', '--game', 'blob', '--a', 'random', '--b', 'random', '--config', 'players=3,players=5']);
    expect(setting.code).toBe(2);
    expect(setting.stderr).toContain('config: players is given twice, players=3 and players=5; give it once');
    // The same for a flag that takes a list of numbers (parsed by its command).
    const list = az(['assess', '--game', 'tictactoe', '--model', 'minimax', '--sims', '-5']);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain("--sims takes non-negative integers separated by commas, got '-5'");
    // A rate of 0 is refused by the flag, in the flag's words (not the trainer's field name).
    for (const [flag, v] of [['--lr', '0'], ['--lr', '-1'], ['--cpuct', '0'], ['--lr-final', '0']]) {
      const zero = az(['train', '--game', 'tictactoe', flag, v]);
      expect(zero.code).toBe(2);
      expect(zero.stderr).toContain(`${flag} must be greater than 0 (got '${v}')`);
    }
    const root = az(['train', '--game', 'tictactoe', '--root-selection', 'best']);
    expect(root.code).toBe(2);
    expect(root.stderr).toContain('--root-selection must be one of puct, gumbel');
    const game = az(['train', '--game', 'checkers']);
    expect(game.code).toBe(1);
    expect(game.stderr).toContain("unknown game 'checkers'");
    const config = az(['play', '--game', 'tictactoe', '--config', 'size=4']);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("unknown field 'size'");
    const sugar = az(['play', '--game', 'tictactoe', '--players', '3']);
    expect(sugar.code).toBe(2);
    expect(sugar.stderr).toContain("has no 'players' setting");
  });

  it('refuses information-set self-play with forced playouts before a run starts, naming the flag to add', () => {
    const r = az(['train', '--game', 'blob', '--self-play-search', 'information-set', '--root-selection', 'puct', '--forced-playouts', '2', '--out', 'ismcts-forced']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("az train: selfPlaySearchMethod 'information-set' (--self-play-search information-set) must be used without forced playouts, got forcedPlayouts 2");
    expect(r.stderr).toContain('add --forced-playouts 0');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(work, 'ismcts-forced'))).toBe(false);
    const method = az(['train', '--game', 'blob', '--self-play-search', 'pimc']);
    expect(method.code).toBe(2);
    expect(method.stderr).toContain('--self-play-search must be one of determinized, information-set');
  });

  it('lists the installed games with their traits', () => {
    const r = az(['games']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/tictactoe\s+Tic-tac-toe: 2 players, perfect information/);
    const json = JSON.parse(az(['games', '--json']).stdout) as { id: string }[];
    expect(json.map((g) => g.id)).toContain('tictactoe');
  });
});

describe('az play', () => {
  it('re-prompts on garbage and illegal moves and never crashes', () => {
    // Human is X. 'zz' is garbage, then b2, then 'b2' again (now occupied), then quit.
    const r = az(['play', '--game', 'tictactoe', '--sims', '50'], 'zz\nb2\nb2\nmoves\nquit\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('legal moves:');
    expect(r.stdout).toMatch(/already taken|occupied/);
    expect(r.stdout).toContain('seat 1 (mcts) plays');
    expect(r.stdout).toContain('you resigned');
  });

  it('plays a whole game to the end and handles end of input', () => {
    // Enough moves in cell order to finish any game; illegal ones are refused and the next is tried.
    const moves = Array.from({ length: 4 }, () => ['1', '2', '3', '4', '5', '6', '7', '8', '9']).flat().join('\n') + '\n';
    const r = az(['play', '--game', 'tictactoe', '--seat', '1', '--sims', '50'], moves);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('game over:');
    const eof = az(['play', '--game', 'tictactoe'], '');
    expect(eof.code).toBe(0);
    expect(eof.stdout).toContain('end of input');
  });
});

describe('az train, resume, eval and play with a model', () => {
  const out = join(work, 'run');

  it('trains, writes a checkpoint and metrics, and resumes where it stopped', () => {
    const common = ['--game', 'tictactoe', '--out', out, '--games-per-iter', '16', '--parallel-games', '8', '--sims', '16', '--train-steps', '5', '--batch-size', '32', '--eval-games', '4', '--quiet'];
    const first = az(['train', ...common, '--iterations', '1']);
    expect(first.stderr + first.stdout).toContain('az train: tictactoe, 1 iterations');
    expect(first.code).toBe(0);
    expect(existsSync(join(out, 'checkpoints', 'iter-000001', 'manifest.json'))).toBe(true);
    expect(existsSync(join(out, 'checkpoints', 'iter-000001', 'replay.json'))).toBe(true);
    // Running it again into the same --out is refused, naming the ways out; nothing is touched.
    const again = az(['train', ...common, '--iterations', '1']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--resume ${out}`);
    expect(again.stderr).toContain('--force');
    const second = az(['train', ...common, '--iterations', '2', '--resume', out]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('resumed from');
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { iteration: number; weightsVersion: number; train: { policyLoss: number } });
    expect(metrics.map((m) => m.iteration)).toEqual([1, 2]);
    expect(metrics.map((m) => m.weightsVersion)).toEqual([1, 2]);
    expect(Number.isFinite(metrics[1].train.policyLoss)).toBe(true);
    // The run records its game: a resume may leave --game out (the game-blob README's commands do).
    const third = az(['train', '--resume', out, '--iterations', '3', '--quiet']);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr + third.stdout).toContain('az train: tictactoe, 3 iterations');
    const nowhere = az(['train', '--resume', join(out, 'no-such-run'), '--iterations', '3']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('cannot tell which game the run at --resume');
  });

  it('Ctrl-C writes a checkpoint and exits 130', async () => {
    const dir = join(work, 'interrupted');
    const child = spawn(process.execPath, [AZ_BIN, 'train', '--game', 'tictactoe', '--out', dir, '--iterations', '1000', '--games-per-iter', '4', '--parallel-games', '4', '--sims', '4', '--train-steps', '2', '--batch-size', '8', '--eval-games', '0', '--quiet'], { cwd: work });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Interrupt once the first iteration is reported (an event, not a timer).
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/^iter 1:/m.test(stdout) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted: checkpoint written at iteration \d+/);
    expect(stdout).toContain(`continue with --resume ${dir}`);
    expect(readdirSync(join(dir, 'checkpoints')).some((n) => n.startsWith('iter-'))).toBe(true);
  }, 240_000);

  it('--time-limit ends a run on a finished iteration once another would not fit, and refuses what it cannot honour', () => {
    const dir = join(work, 'timed');
    // No --iterations: the budget alone ends the run. However loaded the machine, at least one iteration runs.
    const r = az(['train', '--game', 'tictactoe', '--out', dir, '--time-limit', '3s', '--games-per-iter', '4', '--parallel-games', '4', '--sims', '4', '--train-steps', '2', '--batch-size', '8', '--eval-games', '0', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const done = /az train: tictactoe, (\d+) iterations \(time limit 3s reached\)/.exec(r.stdout);
    expect(done, r.stdout).not.toBeNull();
    const iterations = Number(done?.[1]);
    expect(iterations).toBeGreaterThanOrEqual(1);
    expect(r.stderr).toContain(`time limit 3s: stopping after iteration ${iterations} at `);
    expect(r.stdout).toMatch(/^iter 1: .* \((?:\d+m)?\d+s of 3s\)$/m);
    const metrics = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(metrics).toHaveLength(iterations);
    expect(readdirSync(join(dir, 'checkpoints'))).toContain(`iter-${String(iterations).padStart(6, '0')}`);
    // A resume does not inherit the budget (it was that session's) nor the count it stood for.
    const resumed = az(['train', '--game', 'tictactoe', '--resume', dir, '--iterations', String(iterations + 1), '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`az train: tictactoe, ${iterations + 1} iterations, `);
    expect((JSON.parse(readFileSync(join(dir, 'options.json'), 'utf8')) as { timeLimitSeconds: number }).timeLimitSeconds).toBe(0);
    // A new budget without a count: the budget alone ends it, whatever count the run had.
    const again = az(['train', '--game', 'tictactoe', '--resume', dir, '--time-limit', '1s', '--quiet']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/az train: tictactoe, \d+ iterations \(time limit 1s reached\)/);
    // A bare number would be a guess between minutes and seconds; a cosine schedule needs a count to run over.
    const bare = az(['train', '--game', 'tictactoe', '--out', join(work, 'never-timed'), '--time-limit', '60']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--time-limit 60 is not a duration: write it as 90s, 45m, 1h or 1h30m');
    const cosine = az(['train', '--game', 'tictactoe', '--out', join(work, 'never-timed'), '--time-limit', '1m', '--lr-schedule', 'cosine']);
    expect(cosine.code).toBe(2);
    expect(cosine.stderr).toContain("learningRateSchedule 'cosine' (--lr-schedule) must be given --iterations with --time-limit");
    expect(existsSync(join(work, 'never-timed'))).toBe(false);
  });

  it('evaluates the model in an arena and plays against it', () => {
    const r = az(['eval', '--game', 'tictactoe', '--a', out, '--b', 'random', '--games', '10', '--sims', '16', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { games: number; a: { wins: number; draws: number; losses: number } };
    expect(report.games).toBe(10);
    expect(report.a.wins + report.a.draws + report.a.losses).toBe(10);
    // The network alone against itself: no search and no sampling, so the seed cannot change a game; a missing model is named.
    const policyGames = (seed: string): string[] => {
      const e = az(['eval', '--game', 'tictactoe', '--a', `policy:${out}`, '--b', `policy:${out}`, '--games', '4', '--seed', seed, '--games-out', join(work, `policy-${seed}.jsonl`)]);
      expect(e.code, e.stderr).toBe(0);
      expect(e.stdout).toContain(`policy of ${out}`);
      return readFileSync(join(work, `policy-${seed}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.stringify((JSON.parse(l) as { moves: unknown }).moves));
    };
    const first = policyGames('1');
    expect(first).toHaveLength(4);
    expect(policyGames('2')).toEqual(first);
    const missingPolicy = az(['eval', '--game', 'tictactoe', '--a', `policy:${join(work, 'nope')}`, '--b', 'random']);
    expect(missingPolicy.code).toBe(2);
    expect(missingPolicy.stderr).toContain(`no model at ${join(work, 'nope')}`);
    // Rollouts sample hidden worlds: a perfect-information game's model is refused, naming why.
    const rollout = az(['eval', '--game', 'tictactoe', '--a', `rollout:${out}`, '--b', 'random', '--games', '2']);
    expect(rollout.code).toBe(2);
    expect(rollout.stderr).toContain('tictactoe has no hidden information to sample worlds of');
    const p = az(['play', '--game', 'tictactoe', '--model', out, '--sims', '16'], 'b2\nquit\n');
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/seat 1 \(model .*\) plays/);
  });

  it('refuses a corrupt checkpoint with a message naming the problem', () => {
    const bad = join(work, 'bad', 'checkpoints', 'iter-000001');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'manifest.json'), '{ not json');
    const r = az(['play', '--game', 'tictactoe', '--model', join(work, 'bad')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/manifest/i);
    const missing = az(['eval', '--game', 'tictactoe', '--a', join(work, 'nope'), '--b', 'random']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("unknown agent");
  });
});

describe('az train with self-play processes (--gpus / --devices)', () => {
  it('rejects bad device flags with exit 2 naming the flag, and --gpus without tfjs-node-gpu before starting anything', () => {
    const out = join(work, 'never');
    for (const [flag, value, message] of [
      ['--gpus', '0,0', '--gpus lists GPU 0 more than once'],
      ['--gpus', '1,x', '--gpus must be a comma-separated list of non-negative integers'],
      ['--devices', 'cpu:0', '--devices must be cpu:N with N >= 1'],
    ]) {
      const r = az(['train', '--game', 'tictactoe', '--out', out, flag, value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    const gpu = az(['train', '--game', 'tictactoe', '--out', out, '--gpus', '0']);
    expect(gpu.code).toBe(1);
    expect(gpu.stderr).toContain('@tensorflow/tfjs-node-gpu');
    expect(existsSync(out)).toBe(false);
  });

  it('trains tic-tac-toe with 2 CPU self-play processes, reporting their NN cache hit rate', () => {
    const out = join(work, 'multi');
    const r = az(['train', '--game', 'tictactoe', '--devices', 'cpu:2', '--out', out, '--iterations', '1', '--games-per-iter', '8', '--parallel-games', '4', '--sims', '8', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '--eval-cache', '10000', '--quiet']);
    expect(r.stderr + r.stdout).toContain('az train: tictactoe, 1 iterations');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/worker 1 \(cpu:1\) ready/);
    const metrics = JSON.parse(readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim()) as { weightsVersion: number; workers: { devices: Record<string, unknown> }; selfPlay: { cacheHitRate?: number } };
    expect(metrics.weightsVersion).toBe(1);
    expect(Object.keys(metrics.workers.devices)).toEqual(['cpu:0', 'cpu:1']);
    // --eval-cache in the worker processes: their hits over their lookups, in the metrics and the iteration line.
    expect(metrics.selfPlay.cacheHitRate).toBeGreaterThan(0);
    expect(metrics.selfPlay.cacheHitRate).toBeLessThanOrEqual(1);
    expect(r.stdout).toContain(`cache hits ${((metrics.selfPlay.cacheHitRate ?? 0) * 100).toFixed(1)}%`);
  });
});

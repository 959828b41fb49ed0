// `az play` without --model: finds the run trained for the game and config asked for (a model per
// player count for Blob), says which, and says what to train when none fits.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-model-finder-');

const round = 'rounds=one,roundCards=2';
const tiny = ['--iterations', '1', '--games-per-iter', '4', '--parallel-games', '4', '--sims', '2', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0', '--quiet'];

describe('az play finds the model trained for the table size', () => {
  beforeAll(() => {
    for (const players of [3, 5]) {
      const r = az(['train', '--game', 'blob', '--config', `players=${players},${round}`, '--out', `runs/blob-${players}p`, ...tiny]);
      expect(r.code, r.stderr).toBe(0);
    }
    const rounds = az(['train', '--game', 'blob', '--config', 'players=3,rounds=sampled', '--out', 'runs/blob-3p-rounds', ...tiny]);
    expect(rounds.code, rounds.stderr).toBe(0);
  }, 240_000);

  it('plays against the run trained for --players N', () => {
    for (const players of [3, 5]) {
      const r = az(['play', '--game', 'blob', '--players', String(players), '--config', round, '--sims', '2'], 'quit\n');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`using the model in ${join('runs', `blob-${players}p`)}`);
      expect(r.stdout).toMatch(/the other seats are model /);
    }
  });

  it('refuses a seat the table does not have before a model is announced or loaded, counting the seats of the config the model fixes', () => {
    // --players 5 finds runs/blob-5p: seat 9 is refused before that model is named.
    const found = az(['play', '--game', 'blob', '--players', '5', '--config', round, '--seat', '9'], 'quit\n');
    expect(found.code).toBe(2);
    expect(found.stderr).toContain('az play: --seat must be below 5 for this blob game');
    expect(found.stdout).not.toContain('using the model');
    // Without --players the model's recorded config decides: 5 seats, where the game's default has 4.
    const fits = az(['play', '--game', 'blob', '--model', 'runs/blob-5p', '--seat', '4', '--sims', '2'], 'quit\n');
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stdout).toContain('you are seat 4');
    // The seats are read from the model's manifest alone: a copy of it without the network is refused for
    // the seat, not for the network it would have failed to load.
    const checkpoints = join(work, 'runs', 'blob-5p', 'checkpoints');
    const newest = readdirSync(checkpoints).sort().at(-1) ?? '';
    const manifestOnly = join(work, 'manifest-only');
    mkdirSync(manifestOnly);
    copyFileSync(join(checkpoints, newest, 'manifest.json'), join(manifestOnly, 'manifest.json'));
    const beyond = az(['play', '--game', 'blob', '--model', manifestOnly, '--seat', '5'], 'quit\n');
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toContain('az play: --seat must be below 5 for this blob game');
    expect(beyond.stdout).toBe('');
  });

  it('falls back to the bot and says what to train when no run fits, naming the difference', () => {
    const r = az(['play', '--game', 'blob', '--players', '4', '--config', round], 'quit\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${join('runs', 'blob-3p')} has players=3 where 4 is asked`);
    expect(r.stdout).toContain(`${join('runs', 'blob-5p')} has players=5 where 4 is asked`);
    expect(r.stdout).toContain('train one with: az train --game blob --config rounds=one,roundCards=2,players=4 --out runs/<name>');
    expect(r.stdout).toMatch(/the other seats are heuristic/);
  });

  it('an explicit --opponent or another --models folder is respected', () => {
    const bot = az(['play', '--game', 'blob', '--players', '3', '--config', round, '--opponent', 'random'], 'quit\n');
    expect(bot.code, bot.stderr).toBe(0);
    expect(bot.stdout).not.toContain('using the model');
    expect(bot.stdout).toMatch(/the other seats are random/);
    const elsewhere = az(['play', '--game', 'blob', '--players', '3', '--config', round, '--models', 'nowhere'], 'quit\n');
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).not.toContain('using the model');
  });

  it('a model of rounds drawn from the game (rounds=sampled) plays whole games, round by round', () => {
    const found = az(['play', '--game', 'blob', '--players', '3', '--sims', '2'], 'quit\n');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain(`using the model in ${join('runs', 'blob-3p-rounds')}`);
    expect(found.stdout).toContain('round 1 of 16');
    const games = join(work, 'games.jsonl');
    const whole = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--sims', '2', '--games-out', games]);
    expect(whole.code, whole.stderr).toBe(0);
    const record = JSON.parse(readFileSync(games, 'utf8').split('\n')[0]) as { config: Record<string, unknown>; actions: number[] };
    expect(record.config.rounds).toBe('game');
    expect(record.actions.length).toBe(3 * (16 + 58)); // 16 rounds: a bid and every card dealt, for each seat
    const policy = az(['eval', '--game', 'blob', '--a', 'policy:runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1']);
    expect(policy.code, policy.stderr).toBe(0);
    // The rollout player on one drawn round (a whole game of rollouts costs a minute under CI's load).
    const rollout = az(['eval', '--game', 'blob', '--a', 'rollout:runs/blob-3p-rounds', '--b', 'heuristic', '--games', '2', '--config', 'rounds=sampled', '--json']);
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(JSON.parse(rollout.stdout)).toMatchObject({ games: 2, a: { agent: 'rollout of runs/blob-3p-rounds' } });
    // Neither player searches leaves (the rollout player plays decisions out): no leaf values to report.
    expect(JSON.parse(rollout.stdout)).not.toHaveProperty('leafValues');
    // Blob models play information-set search over inferred worlds; --worlds uniform samples them plainly, and inferred needs that search.
    const inferred = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--sims', '2', '--json']);
    expect(inferred.code, inferred.stderr).toBe(0);
    expect(JSON.parse(inferred.stdout)).toMatchObject({ search: 'information-set', worlds: 'inferred', otherSeatPriors: 'uniform', otherSeatMoves: 'search', leafValues: 'playouts', playoutWeight: 1, games: 1 });
    const byPolicy = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--sims', '2', '--other-seat-moves', 'policy', '--json']);
    expect(byPolicy.code, byPolicy.stderr).toBe(0);
    expect(JSON.parse(byPolicy.stdout)).toMatchObject({ search: 'information-set', otherSeatMoves: 'policy', games: 1 });
    const byPolicyWithoutModel = az(['eval', '--game', 'blob', '--a', 'mcts', '--b', 'heuristic', '--games', '1', '--other-seat-moves', 'policy']);
    expect(byPolicyWithoutModel.code).toBe(2);
    expect(byPolicyWithoutModel.stderr).toContain('--other-seat-moves policy needs a model agent');
    const byPolicyFirstWorld = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--other-seat-moves', 'policy', '--other-seat-priors', 'first-world']);
    expect(byPolicyFirstWorld.code).toBe(2);
    expect(byPolicyFirstWorld.stderr).toContain('--other-seat-priors first-world has no effect with --other-seat-moves policy');
    const byPolicyRollout = az(['eval', '--game', 'blob', '--a', 'rollout:runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--other-seat-moves', 'policy']);
    expect(byPolicyRollout.code).toBe(2);
    expect(byPolicyRollout.stderr).toContain('--other-seat-moves policy needs a model agent that searches');
    // Against plain search the model's search moves the other seats by its network; mcts, without one, as before.
    const byPolicyAgainstMcts = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'mcts', '--games', '1', '--sims', '2', '--other-seat-moves', 'policy', '--json']);
    expect(byPolicyAgainstMcts.code, byPolicyAgainstMcts.stderr).toBe(0);
    expect(JSON.parse(byPolicyAgainstMcts.stdout)).toMatchObject({ otherSeatMoves: 'policy', games: 1 });
    const uniform = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--sims', '2', '--worlds', 'uniform', '--other-seat-priors', 'first-world', '--leaf-values', 'world', '--playout-weight', '0.5', '--json']);
    expect(JSON.parse(uniform.stdout)).toMatchObject({ search: 'information-set', worlds: 'uniform', otherSeatPriors: 'first-world', leafValues: 'world', playoutWeight: 0.5 });
    // Plain search (no network) has nothing to infer with: its worlds are uniform whatever the game's play setting.
    const plain = az(['eval', '--game', 'blob', '--config', 'rounds=one,roundCards=2', '--a', 'mcts', '--b', 'heuristic', '--games', '1', '--sims', '2', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ search: 'information-set', worlds: 'uniform', otherSeatPriors: 'uniform', leafValues: 'playouts', playoutWeight: 1 });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('otherSeatMoves');
    const priorsDeterminized = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--other-seat-priors', 'first-world', '--search', 'determinized']);
    expect(priorsDeterminized.code).toBe(2);
    expect(priorsDeterminized.stderr).toContain('--other-seat-priors needs information-set search');
    const movesDeterminized = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--other-seat-moves', 'policy', '--search', 'determinized']);
    expect(movesDeterminized.code).toBe(2);
    expect(movesDeterminized.stderr).toContain('--other-seat-moves needs information-set search');
    const inferDeterminized = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--worlds', 'inferred', '--search', 'determinized']);
    expect(inferDeterminized.code).toBe(2);
    expect(inferDeterminized.stderr).toContain('--worlds inferred needs information-set search');
    const policyMixed = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--leaf-values', 'policy-playouts', '--playout-weight', '0.5']);
    expect(policyMixed.code).toBe(2);
    expect(policyMixed.stderr).toContain('--leaf-values policy-playouts replaces');
    const mixed = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--sims', '2', '--playout-weight', '0.5']);
    expect(mixed.code, mixed.stderr).toBe(0);
    const badWeight = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--playout-weight', '1.5']);
    expect(badWeight.code).toBe(2);
    expect(badWeight.stderr).toContain('--playout-weight');
    const single = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--config', 'rounds=one']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('was trained with rounds=sampled; it cannot play rounds=one');
    // A setting that clashes with one the model fixes (its maxHand, 7) is named as asked, with the game's reason.
    const tooMany = az(['eval', '--game', 'blob', '--a', 'runs/blob-3p-rounds', '--b', 'heuristic', '--games', '1', '--config', 'rounds=one,roundCards=9']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('it cannot play roundCards=9 (game \'blob\' config: roundCards 9 exceeds maxHand 7');
  });

  it('names the whole-game model to train when none fits', () => {
    const r = az(['play', '--game', 'blob', '--players', '4'], 'quit\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${join('runs', 'blob-3p-rounds')} has players=3 where 4 is asked`);
    expect(r.stdout).toContain('train one with: az train --game blob --config players=4,rounds=sampled --out runs/<name>');
  });
});

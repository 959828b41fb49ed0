// UCI end to end through the built binary: `az uci` in a scripted protocol conversation, and engines in
// the arena (`az eval` with uci: agents, records, replay, ratings). A 1-iteration toy model keeps it short.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { realComponent } from '@az/core/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { AZ_BIN, azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-uci-cli-', 300_000);

beforeAll(() => {
  const train = az([
    'train', '--game', 'chess', '--iterations', '1', '--games-per-iter', '2', '--parallel-games', '2', '--sims', '4',
    '--config', 'maxPlies=8', '--network', 'resnet:4x1', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0',
    '--out', 'toy', '--quiet',
  ]);
  expect(train.code, train.stderr).toBe(0);
}, 300_000);

describe('az uci', () => {
  it('speaks UCI: handshake, options, positions with moves, go with nodes, movetime, clocks and infinite + stop', () => {
    const script = [
      'uci',
      'setoption name Simulations value 40',
      'isready',
      'ucinewgame',
      'position startpos moves e2e4 e7e5',
      'go nodes 64',
      'position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1',
      'go movetime 300',
      'position startpos',
      'go wtime 2000 btime 2000 winc 0 binc 0 movestogo 20',
      'position startpos moves e2e4',
      'go infinite',
      'stop',
      'position startpos moves e2e4 e7e4',
      'setoption name Bogus value 1',
      'go',
      // Tiny searches leave visit ties, broken at random: the reported line must still start with the move played.
      'position startpos moves e2e4',
      'go nodes 10',
      'position startpos moves d2d4',
      'go nodes 10',
      'position startpos',
      'go nodes 10',
      'quit',
    ].join('\n');
    const r = az(['uci', '--model', 'toy'], script + '\n');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id name az .*toy/);
    expect(lines).toContain('option name Simulations type spin default 800 min 1 max 10000000');
    expect(lines.indexOf('uciok')).toBeLessThan(lines.indexOf('readyok'));
    const best = lines.filter((l) => l.startsWith('bestmove')).map((l) => l.split(' ')[1]);
    expect(best).toHaveLength(8);
    // The last info before each bestmove reports a line that starts with that move.
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith('bestmove')) continue;
      const lastInfo = lines.slice(0, i).reverse().find((l) => l.startsWith('info depth'));
      expect(lastInfo?.split(' pv ')[1]?.split(' ')[0], `${lastInfo} / ${lines[i]}`).toBe(lines[i].split(' ')[1]);
    }
    // After 1. e4 e5 white moves a white piece; the mate in one is found; black answers 1. e4.
    expect(best[0]).toMatch(/^[a-h][12][a-h][1-8]$/);
    expect(best[1]).toBe('a1a8');
    expect(best[3]).toMatch(/^[a-h][78][a-h][1-8]$/);
    const infos = lines.filter((l) => l.startsWith('info depth'));
    expect(infos.length).toBeGreaterThanOrEqual(5);
    for (const l of infos) expect(l).toMatch(/^info depth \d+ seldepth \d+ nodes \d+ nps \d+ time \d+ score cp -?\d+ pv( [a-h][1-8][a-h][1-8][qrbn]?)+$/);
    // nodes 64 means 64 simulations.
    expect(Number(/nodes (\d+)/.exec(infos[0])?.[1])).toBe(64);
    expect(lines).toContain("info string illegal move 'e7e4' in the position command; position ignored");
    expect(lines).toContain("info string unknown option 'Bogus' (options: Simulations, Threads)");
  });

  it("searches exactly 'go nodes N' simulations, and 'go depth D' until the mean depth of its simulations reaches D", () => {
    const script = ['uci', 'position startpos', 'go nodes 50', 'position startpos moves e2e4', 'go nodes 33', 'position startpos', 'go nodes 1', 'position startpos moves d2d4', 'go depth 3', 'position startpos', 'go depth 40 nodes 70', 'ucinewgame', 'quit'];
    // ('quit' stops a search: 'ucinewgame' waits for the last one to end before 'quit' is read.)
    const r = az(['uci', '--model', 'toy'], script.join('\n') + '\n');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('bestmove'))).toHaveLength(5);
    expect(lines.filter((l) => l.startsWith('info string'))).toEqual([]);
    // The report of each search: the last info line before its bestmove.
    const reports = lines.flatMap((l, i) => (l.startsWith('bestmove') ? [lines.slice(0, i).reverse().find((x) => x.startsWith('info depth')) ?? ''] : []));
    const field = (line: string, name: string): number => Number(new RegExp(` ${name} (\\d+)`).exec(line)?.[1]);
    // Not rounded up to steps of 32; 1 is 2 (the first simulation only evaluates the position).
    expect(reports.slice(0, 3).map((l) => field(l, 'nodes'))).toEqual([50, 33, 2]);
    // depth: the mean depth of the simulations' leaves, rounded down; seldepth: the deepest.
    for (const l of reports) expect(field(l, 'seldepth')).toBeGreaterThanOrEqual(field(l, 'depth'));
    expect(field(reports[3], 'depth')).toBeGreaterThanOrEqual(3);
    // A depth out of reach within the nodes given: the nodes end the search.
    expect(field(reports[4], 'nodes')).toBe(70);
    expect(field(reports[4], 'depth')).toBeLessThan(40);
  });

  it('refuses to start without a chess model', () => {
    const r = az(['uci']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--model DIR is required');
  });
});

const stockfish = realComponent('stockfish', { executables: ['stockfish', '/usr/games/stockfish'], install: 'apt-get install stockfish', suite: 'az eval with UCI engines' });

describe.skipIf(stockfish.path === undefined)('UCI engines in the arena', () => {
  it('plays az uci against Stockfish through az eval, with PGN and JSONL records that replay', () => {
    const model = `uci:${process.execPath} ${AZ_BIN} uci --model toy --sims 16,nodes=16`;
    const r = az(['eval', '--game', 'chess', '--a', model, '--b', `uci:${stockfish.path},depth=1`, '--games', '2', '--pgn', 'match.pgn', '--games-out', 'match.jsonl', '--config', 'maxPlies=60']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^2 games of chess/m);
    expect(r.stdout).toMatch(/A's score \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] \(Wilson 95%, n=2\)/);
    const pgn = readFileSync(join(work, 'match.pgn'), 'utf8');
    expect(pgn.match(/\[Event "az eval"\]/g)).toHaveLength(2);
    expect(pgn).toMatch(/\[White "uci:.* uci --model toy.*"\]\n\[Black "uci:.*stockfish,depth=1"\]/);
    expect(pgn).toMatch(/\[Result "(1-0|0-1|1\/2-1\/2)"\]/);
    expect(pgn).toMatch(/\[Termination "(checkmate|stalemate|fifty-move rule|threefold repetition|insufficient material|move limit)"\]/);
    const records = readFileSync(join(work, 'match.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { index: number; moves: string[]; returns: number[] });
    expect(records.map((g) => g.index).sort()).toEqual([0, 1]);
    const replay = az(['play', '--replay', 'match.jsonl', '--index', String(records[0].index)]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`0:${records[0].moves[0]}`);
    expect(replay.stdout).toMatch(/result: returns by seat/);
    // Every engine process has exited.
    const ps = spawnSync('ps', ['-eo', 'stat,args'], { encoding: 'utf8' }).stdout;
    expect(ps).not.toMatch(/^Z.*stockfish/m);
    expect(ps).not.toContain(`${work}`);
  });

  it('says clearly when an engine command does not start or does not speak UCI', () => {
    const missing = az(['eval', '--game', 'chess', '--a', 'uci:no-such-engine-xyz,depth=1', '--b', 'random', '--games', '2']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot start engine 'no-such-engine-xyz': no such command");
    const mute = az(['eval', '--game', 'chess', '--a', 'uci:true', '--b', 'random', '--games', '2']);
    expect(mute.code).toBe(1);
    expect(mute.stderr).toMatch(/engine 'true' exited with code 0/);
    // A misspelt engine option is refused before any game, with the options the engine offers.
    const misspelt = az(['eval', '--game', 'chess', '--a', `uci:${stockfish.path},Hsh=64,depth=1`, '--b', 'random', '--games', '2']);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/agent 'uci:.*stockfish,Hsh=64,depth=1': engine '.*stockfish' \(Stockfish [^)]*\) has no option 'Hsh' \(not in its reply to 'uci'\); the options it lists: .*\bHash\b/);
    const wrongGame = az(['eval', '--game', 'tictactoe', '--a', `uci:${stockfish.path}`, '--b', 'random']);
    expect(wrongGame.code).toBe(2);
    expect(wrongGame.stderr).toContain('UCI engines play chess only');
  });

  it('rates random, greedy and Stockfish: the order is right and the anchor is fixed', () => {
    const r = az(['rate', '--game', 'chess', 'random', 'greedy', `uci:${stockfish.path},depth=1`, '--games', '6', '--out', 'ladder.json', '--config', 'maxPlies=200']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(work, 'ladder.json'), 'utf8')) as { ratings: { name: string; elo: number; low: number; high: number }[]; pairs: unknown[] };
    expect(report.ratings.map((p) => p.name)).toEqual([`uci:${stockfish.path},depth=1`, 'greedy', 'random']);
    expect(report.ratings[2].elo).toBe(0);
    expect(report.ratings[0].low).toBeLessThan(report.ratings[0].elo);
    expect(report.pairs).toHaveLength(3);
    expect(existsSync(join(work, 'ladder.json'))).toBe(true);
  });
});

describe('az rate', () => {
  it('rates tic-tac-toe players, stops a head-to-head by SPRT, and refuses bad requests', () => {
    const r = az(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '20', '--out', 'ttt.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1\s+minimax\s+\d+\s+\[\d+, \d+\]/);
    expect(r.stdout).toMatch(/2\s+random\s+0\s+\(anchor\)/);
    expect(r.stderr).toContain('az rate: 2 players, 1 pair x 20 games = 20 games:\n  1. random\n  2. minimax');
    // A new player rated against the pool of an earlier run, whose games are included, not replayed.
    const more = az(['rate', '--game', 'tictactoe', 'mcts', 'random', '--games', '4', '--sims', '8', '--include', 'ttt.json', '--out', 'ttt-more.json']);
    expect(more.code, more.stderr).toBe(0);
    expect(more.stdout).toMatch(/random vs minimax: \+0 =\d+ -\d+ \(included\)/);
    const pool = JSON.parse(readFileSync(join(work, 'ttt-more.json'), 'utf8')) as { ratings: { name: string }[]; pairs: unknown[] };
    expect(pool.ratings.map((p) => p.name).sort()).toEqual(['mcts', 'minimax', 'random']);
    expect(pool.pairs).toHaveLength(2);
    // Records joined without games (matches played in parallel): the fit of ttt-more.json's records alone is ttt-more.json's.
    const joined = az(['rate', '--game', 'tictactoe', '--include', 'ttt.json,ttt-more.json', '--json', '--out', 'joined.json']);
    expect(joined.code, joined.stderr).toBe(0);
    // ttt-more.json holds ttt.json's record (included) and its own: joined, ttt.json's counts once.
    const joinedPairs = (JSON.parse(joined.stdout) as { pairs: { a: string; b: string; from: string[] }[] }).pairs;
    expect(joinedPairs.map((p) => `${p.a}-${p.b} from ${p.from.map((f) => basename(f)).join('>')}`)).toEqual(['random-minimax from ttt.json', 'mcts-random from ttt-more.json']);
    const refit = az(['rate', '--game', 'tictactoe', '--include', 'ttt-more.json', '--json', '--out', 'refit.json']);
    const refitted = JSON.parse(refit.stdout) as { ratings: { name: string; elo: number; low: number }[] };
    expect(refitted.ratings.map((p) => [p.name, p.elo.toFixed(6), p.low.toFixed(6)])).toEqual((pool.ratings as { name: string; elo: number; low: number }[]).map((p) => [p.name, p.elo.toFixed(6), p.low.toFixed(6)]));
    expect(az(['rate', '--game', 'tictactoe', '--include', 'ttt.json', '--anchor', 'mcts=0']).stderr).toContain("the anchor 'mcts' played none of the included games (players: random, minimax)");
    expect(az(['rate', '--game', 'tictactoe', '--include', ',']).stderr).toContain('--include , holds no games');
    expect(az(['rate', '--game', 'tictactoe', '--include', 'ttt.json', '--sprt', '0,50']).stderr).toContain('--sprt is about playing games');
    const sprt = az(['rate', '--game', 'tictactoe', 'minimax', 'random', '--games', '400', '--sprt', '0,50', '--json', '--out', 'sprt.json']);
    expect(sprt.code, sprt.stderr).toBe(0);
    const report = JSON.parse(sprt.stdout) as { sprt: { decision: string }; pairs: { wins: number; draws: number; losses: number }[] };
    expect(report.sprt.decision).toBe('H1');
    const n = report.pairs[0].wins + report.pairs[0].draws + report.pairs[0].losses;
    expect(n).toBeLessThan(400);
    expect(az(['rate', '--game', 'tictactoe', 'random']).stderr).toContain('at least two players');
    expect(az(['rate', '--game', 'tictactoe', 'random', 'minimax', 'mcts', '--sprt', '0,50']).stderr).toContain('name exactly two players');
    expect(az(['rate', '--game', 'tictactoe', 'random', 'minimax', '--anchor', 'nobody=0']).stderr).toContain("the anchor 'nobody' is not among the players");
    expect(az(['rate', '--game', 'tictactoe', 'random', 'nosuchdir']).stderr).toContain("'nosuchdir' is not a player");
  });

  it('varies the openings with --opening-plies: each opening from both seats, and the games replay', () => {
    const r = az(['rate', '--game', 'tictactoe', 'minimax', 'random', '--games', '8', '--opening-plies', '2', '--games-out', 'open.jsonl', '--out', 'open.json']);
    expect(r.code, r.stderr).toBe(0);
    const games = readFileSync(join(work, 'open.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { index: number; players: string[]; actions: number[] });
    expect(games).toHaveLength(8);
    const opening = new Map(games.map((g) => [g.index, g.actions.slice(0, 2).join(',')]));
    for (let k = 0; k < 8; k += 2) expect(opening.get(k + 1)).toBe(opening.get(k));
    expect(new Set(opening.values()).size).toBeGreaterThan(1);
    const byIndex = new Map(games.map((g) => [g.index, g.players[0]]));
    expect(byIndex.get(1)).not.toBe(byIndex.get(0));
    const replay = az(['play', '--replay', 'open.jsonl']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(az(['rate', '--game', 'tictactoe', 'minimax', 'random', '--opening-plies', '-1']).code).toBe(2);
  });

  it('rates checkpoints while training (--rate-every), and az rate takes the rated checkpoints of a run', () => {
    const train = az(['train', '--game', 'tictactoe', '--out', 'ttt', '--iterations', '2', '--games-per-iter', '8', '--parallel-games', '8', '--sims', '8', '--train-steps', '2', '--batch-size', '16', '--eval-games', '0', '--rate-every', '1', '--rate-games', '4', '--rate-sims', '8', '--quiet']);
    expect(train.code, train.stderr).toBe(0);
    expect(train.stdout).toMatch(/iter 2: .*Elo -?\d+ \[-?\d+, -?\d+\] \(random = 0\)/);
    const metrics = readFileSync(join(work, 'ttt', 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { rating?: { elo: number; low: number; high: number; games: number } });
    expect(metrics).toHaveLength(2);
    for (const m of metrics) {
      expect(m.rating?.low).toBeLessThanOrEqual(m.rating?.elo ?? NaN);
      expect(m.rating?.high).toBeGreaterThanOrEqual(m.rating?.elo ?? NaN);
    }
    // Iteration 1 played random and minimax; iteration 2 also played iteration 1.
    expect(metrics[0].rating?.games).toBe(8);
    expect(metrics[1].rating?.games).toBe(12);
    const ratings = JSON.parse(readFileSync(join(work, 'ttt', 'ratings.json'), 'utf8')) as { ratings: { name: string }[] };
    expect(ratings.ratings.map((p) => p.name).sort()).toEqual(['iter-0001', 'iter-0002', 'minimax', 'random']);
    expect(existsSync(join(work, 'ttt', 'rated', 'iter-0002', 'manifest.json'))).toBe(true);
    const rate = az(['rate', '--game', 'tictactoe', 'ttt', 'random', '--games', '4', '--sims', '8', '--json', '--out', 'ttt-rate.json']);
    expect(rate.code, rate.stderr).toBe(0);
    const names = (JSON.parse(rate.stdout) as { ratings: { name: string }[] }).ratings.map((p) => p.name).sort();
    expect(names).toEqual(['random', join('ttt', 'rated', 'iter-0001'), join('ttt', 'rated', 'iter-0002')]);
  });
});

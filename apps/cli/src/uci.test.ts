// UCI end to end through the built binary: `az uci` in a scripted protocol conversation, and engines in
// the arena (`az eval` with uci: agents, records, replay, ratings). A 1-iteration toy model keeps it short.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { realComponent } from '@az/test-harness';
import { actionOfUci } from '@az/chess-uci';
import { stateFromFen } from '@az/game-chess';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AZ_BIN, azInTempDir, startAz, type RunningAz } from './test-cli.js';

const { work, az } = azInTempDir('az-uci-cli-', 300_000);

beforeAll(() => {
  const train = az([
    'train', '--game', 'chess', '--iterations', '1', '--games-per-iter', '2', '--parallel-games', '2', '--sims', '4',
    '--config', 'maxPlies=8', '--network', 'resnet:4x1', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0',
    '--out', 'toy', '--quiet',
  ]);
  expect(train.code, train.stderr).toBe(0);
}, 300_000);

/** How long a test waits for one answer of `az uci` before failing (rather than hanging with it). */
const ANSWER_BOUND_MS = 60_000;

/** `az uci --model toy` over pipes: lines are sent, and its stdout lines waited for (events, not timers). */
interface UciSession {
  /** Every stdout line so far. */
  readonly lines: string[];
  send(...commands: string[]): void;
  /** The next line (after the last one returned) matching `pattern`; fails if az exits first or nothing comes within the bound. */
  next(pattern: RegExp): Promise<string>;
  /** Closes az's stdin (the GUI went away). */
  endInput(): void;
  /** Its exit code, failing if it has not exited within the bound. */
  exited(): Promise<number | null>;
}

const sessions: RunningAz[] = [];
afterEach(() => {
  // A session that hung (the bug these tests catch) is killed, not left spinning.
  for (const s of sessions.splice(0)) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

function within<T>(promise: Promise<T>, what: string, output: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`az uci: no ${what} within ${ANSWER_BOUND_MS} ms; its output:\n${output()}`)), ANSWER_BOUND_MS);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

function uciSession(): UciSession {
  const az = startAz(work, ['uci', '--model', 'toy'], { stdin: 'pipe' });
  sessions.push(az);
  const lines: string[] = [];
  let partial = '';
  let cursor = 0;
  let wake = (): void => undefined;
  let exited = false;
  az.child.stdout?.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    wake();
  });
  void az.exit.then(() => {
    exited = true;
    wake();
  });
  const next = (pattern: RegExp): Promise<string> =>
    within(
      new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const at = lines.findIndex((l, i) => i >= cursor && pattern.test(l));
          if (at >= 0) {
            cursor = at + 1;
            resolve(lines[at]);
          } else if (exited) reject(new Error(`az uci exited before printing ${pattern}:\n${az.output()}`));
          else wake = check;
        };
        check();
      }),
      `line matching ${pattern}`,
      az.output,
    );
  return {
    lines,
    send: (...commands) => az.child.stdin?.write(commands.map((c) => `${c}\n`).join('')),
    next,
    endInput: () => az.child.stdin?.end(),
    exited: () => within(az.exit, 'exit', az.output),
  };
}

/** Plays `script` as a GUI does: after `uci`, `isready`, a `go` (not infinite) or `stop`, waits for its answer; then quits. */
async function converse(script: readonly string[]): Promise<string[]> {
  const uci = uciSession();
  for (const command of script) {
    uci.send(command);
    if (command === 'uci') await uci.next(/^uciok$/);
    else if (command === 'isready') await uci.next(/^readyok$/);
    else if (command === 'stop' || (command.startsWith('go') && !command.includes('infinite'))) await uci.next(/^bestmove /);
  }
  uci.send('quit');
  expect(await uci.exited(), uci.lines.join('\n')).toBe(0);
  return uci.lines.filter((l) => l !== '');
}

/** Whether `move` (UCI notation) is legal in `fen`. */
function legalIn(fen: string, move: string): boolean {
  return actionOfUci(stateFromFen(fen), move) >= 0;
}

describe('az uci', () => {
  it('speaks UCI: handshake, options, positions with moves, go with nodes, movetime, clocks and infinite + stop', async () => {
    const lines = await converse([
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
    ]);
    expect(lines[0]).toMatch(/^id name az .*toy/);
    expect(lines).toContain('option name Simulations type spin default 800 min 1 max 10000000');
    expect(lines).toContain('option name Ponder type check default false');
    expect(lines.indexOf('uciok')).toBeLessThan(lines.indexOf('readyok'));
    const best = lines.filter((l) => l.startsWith('bestmove')).map((l) => l.split(' ')[1]);
    expect(best).toHaveLength(8);
    // The last info before each bestmove reports a line that starts with that move.
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith('bestmove') || lines[i] === 'bestmove 0000') continue;
      const lastInfo = lines.slice(0, i).reverse().find((l) => l.startsWith('info depth'));
      expect(lastInfo?.split(' pv ')[1]?.split(' ')[0], `${lastInfo} / ${lines[i]}`).toBe(lines[i].split(' ')[1]);
    }
    // After 1. e4 e5 white moves a white piece; the mate in one is found; black answers 1. e4.
    expect(best[0]).toMatch(/^[a-h][12][a-h][1-8]$/);
    expect(best[1]).toBe('a1a8');
    expect(best[3]).toMatch(/^[a-h][78][a-h][1-8]$/);
    // No move for a position that was refused.
    expect(best[4]).toBe('0000');
    const infos = lines.filter((l) => l.startsWith('info depth'));
    expect(infos.length).toBeGreaterThanOrEqual(5);
    for (const l of infos) expect(l).toMatch(/^info depth \d+ seldepth \d+ nodes \d+ nps \d+ time \d+ score cp -?\d+ pv( [a-h][1-8][a-h][1-8][qrbn]?)+$/);
    for (const l of lines.filter((x) => x.startsWith('bestmove'))) expect(l).toMatch(/^bestmove ([a-h][1-8][a-h][1-8][qrbn]?|0000)( ponder [a-h][1-8][a-h][1-8][qrbn]?)?$/);
    // nodes 64 means 64 simulations.
    expect(Number(/nodes (\d+)/.exec(infos[0])?.[1])).toBe(64);
    expect(lines).toContain("info string illegal move 'e7e4' in the position command (position rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1); no position until a valid 'position' command");
    expect(lines).toContain("info string unknown option 'Bogus' (options: Simulations, Threads)");
  });

  it("searches exactly 'go nodes N' simulations, and 'go depth D' until the mean depth of its simulations reaches D", async () => {
    const lines = await converse(['uci', 'position startpos', 'go nodes 50', 'position startpos moves e2e4', 'go nodes 33', 'position startpos', 'go nodes 1', 'position startpos moves d2d4', 'go depth 3', 'position startpos', 'go depth 40 nodes 70', 'ucinewgame']);
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

  it('reads on during a search: isready, stop and quit act at once; position, ucinewgame, setoption and go wait for the search, in order', async () => {
    const uci = uciSession();
    uci.send('uci', 'position startpos', 'go infinite');
    await uci.next(/^uciok$/);
    // Sent during the search (UCI says a GUI should not): they wait for it, so the search is still white's.
    uci.send('position startpos moves e2e4', 'ucinewgame', 'setoption name Simulations value 10', 'isready');
    await uci.next(/^readyok$/);
    expect(uci.lines.some((l) => l.startsWith('bestmove'))).toBe(false);
    uci.send('stop');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][12][a-h][34]/);
    // Now the waiting commands are carried out: black to move, 10 simulations.
    uci.send('go');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][78][a-h][1-8]/);
    expect(Number(/ nodes (\d+)/.exec(uci.lines.filter((l) => l.startsWith('info depth')).at(-1) ?? '')?.[1])).toBe(10);
    // A go behind an infinite search starts when stop ends that one, and a stop sent after it stops it too.
    uci.send('position startpos', 'go infinite', 'position startpos moves d2d4', 'go infinite', 'stop');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][12]/);
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][78]/);
    // quit ends an infinite search and the process, whatever waits behind it.
    uci.send('go infinite', 'position startpos moves e2e4', 'setoption name Simulations value 20', 'go infinite', 'quit');
    expect(await uci.exited()).toBe(0);
  });

  it('stops the search and exits when its input ends during go infinite', async () => {
    const uci = uciSession();
    uci.send('position startpos', 'go infinite', 'isready');
    await uci.next(/^readyok$/);
    uci.endInput();
    expect(await uci.exited()).toBe(0);
    expect(uci.lines.filter((l) => l.startsWith('bestmove'))).toHaveLength(1);
  });

  it("honours 'go searchmoves': the search and its answer keep to the moves named", async () => {
    const mateInOne = '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1';
    const uci = uciSession();
    // Without searchmoves the mate a1a8 is found (see above); with them it is out of bounds.
    uci.send(`position fen ${mateInOne}`, 'go nodes 64 searchmoves g1f1 h2h3');
    const best = (await uci.next(/^bestmove /)).split(' ')[1];
    expect(['g1f1', 'h2h3']).toContain(best);
    // The reported line starts with it, and the root's visits went to the two moves only.
    const report = uci.lines.filter((l) => l.startsWith('info depth')).at(-1) ?? '';
    expect(report.split(' pv ')[1]?.split(' ')[0]).toBe(best);
    // searchmoves before other parameters, an illegal one named and left out.
    uci.send('position startpos', 'go searchmoves e2e5 b1c3 nodes 20');
    expect(await uci.next(/^info string/)).toBe("info string searchmoves: 'e2e5' is not a legal move here; left out");
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove b1c3( |$)/);
    uci.send('quit');
    expect(await uci.exited()).toBe(0);
  });

  it("supports go ponder: no bestmove until ponderhit (then the move time applies) or stop", async () => {
    const uci = uciSession();
    uci.send('uci', 'setoption name Ponder value true', 'position startpos moves e2e4', 'go ponder movetime 50');
    await uci.next(/^uciok$/);
    // Info lines come once a second while searching: two of them before any bestmove show the
    // search ran on well past its 50 ms (the time runs from ponderhit).
    expect(await uci.next(/^(info depth|bestmove)/)).toMatch(/^info depth/);
    expect(await uci.next(/^(info depth|bestmove)/)).toMatch(/^info depth/);
    uci.send('ponderhit');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][78][a-h][1-8]/);
    uci.send('go ponder wtime 1000 btime 1000', 'isready');
    await uci.next(/^readyok$/);
    uci.send('stop');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][78][a-h][1-8]/);
    expect(uci.lines.filter((l) => l.startsWith('info string'))).toEqual([]);
    uci.send('quit');
    expect(await uci.exited()).toBe(0);
  });

  it('after a bad position command answers go with no move rather than one for the previous position', async () => {
    const uci = uciSession();
    uci.send('position startpos moves e2e4', 'go nodes 8');
    await uci.next(/^bestmove [a-h][78]/);
    for (const bad of ['position startpos moves e2e4 e2e5', 'position fen 8/8/8/8 w - - 0 1', 'position', 'position startpos e2e4']) {
      uci.send(bad, 'go nodes 8');
      expect(await uci.next(/^info string/)).toMatch(/^info string (illegal move 'e2e5'|bad position|bad position command).*; no position until a valid 'position' command$/);
      expect(await uci.next(/^info string/)).toMatch(/^info string no valid position \(.*\): send 'position startpos' or 'position fen \.\.\.'$/);
      expect(await uci.next(/^bestmove /)).toBe('bestmove 0000');
    }
    uci.send('position startpos moves e2e4 e7e5', 'go nodes 8');
    expect(await uci.next(/^bestmove /)).toMatch(/^bestmove [a-h][12][a-h][1-8]/);
    uci.send('quit');
    expect(await uci.exited()).toBe(0);
  });

  it('plays a legal move while FIDE has not ended the game: fifty moves and threefold repetition are claims', async () => {
    const uci = uciSession();
    const asked: [string, string][] = [
      ['fen 8/8/8/4k3/8/8/R7/4K3 w - - 100 80', '8/8/8/4k3/8/8/R7/4K3 w - - 100 80'],
      ['fen 8/8/8/4k3/8/8/R7/4K3 w - - 150 100', '8/8/8/4k3/8/8/R7/4K3 w - - 150 100'],
      ['fen 8/8/8/4k3/8/8/R7/4K3 w - - 99 80 moves a2a3 e5e4', '8/8/8/8/4k3/R7/8/4K3 w - - 101 81'],
      ['startpos moves g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5'],
    ];
    for (const [position, fen] of asked) {
      uci.send(`position ${position}`, 'go nodes 16');
      const best = (await uci.next(/^bestmove /)).split(' ')[1];
      expect(legalIn(fen, best), `${position}: ${best}`).toBe(true);
    }
    // Checkmate: no move.
    uci.send('position fen R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1', 'go nodes 16');
    expect(await uci.next(/^bestmove /)).toBe('bestmove 0000');
    expect(uci.lines.filter((l) => l.startsWith('info string'))).toEqual([]);
    // A dead position (insufficient material): over under FIDE rules too, but a move is still a move.
    uci.send('position fen 8/8/8/4k3/8/8/8/4K3 w - - 0 1', 'go nodes 16');
    expect(await uci.next(/^info string/)).toBe('info string the game is over (insufficient material); any move keeps the result');
    expect(legalIn('8/8/8/4k3/8/8/8/4K3 w - - 0 1', (await uci.next(/^bestmove /)).split(' ')[1])).toBe(true);
    uci.send('quit');
    expect(await uci.exited()).toBe(0);
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

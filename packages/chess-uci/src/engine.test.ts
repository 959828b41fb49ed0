// The UCI client against scripted fake engines (each failure mode on demand) and against Stockfish.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realComponent } from '@az/test-harness';
import { legalActionsOf, stateFromFen } from '@az/game-chess';
import { afterAll, describe, expect, it } from 'vitest';
import { UciAgent, parseUciAgentSpec } from './agent.js';
import { UciEngine, UciEngineError, liveEngineCount, splitCommandLine } from './engine.js';

const work = mkdtempSync(join(tmpdir(), 'az-uci-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A fake engine: a node script that speaks just enough UCI and misbehaves as told by its argument:
 * 'good' answers every go with its first legal-looking move, 'crash-on-go' exits on the Nth go,
 * 'hang-on-go' never answers the Nth go, 'illegal' answers a move that is never legal, 'mute' never
 * answers uci.
 */
const fake = join(work, 'fake-engine.mjs');
writeFileSync(
  fake,
  `import { createInterface } from 'node:readline';
const [mode, nth] = [process.argv[2], Number(process.argv[3] ?? 1)];
let goes = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = line.trim().split(' ')[0];
  if (cmd === 'uci' && mode !== 'mute') console.log('id name Fake\\nuciok');
  if (cmd === 'isready') console.log('readyok');
  if (cmd === 'quit') process.exit(0);
  if (cmd === 'go') {
    goes++;
    if (mode === 'crash-on-go' && goes === nth) process.exit(3);
    if (mode === 'hang-on-go' && goes === nth) return;
    console.log('info depth 1 score cp 12 pv e2e4');
    console.log(mode === 'illegal' ? 'bestmove a1a8' : 'bestmove e2e4');
  }
});
`,
);
const node = process.execPath;
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function pidAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  // A zombie still answers kill(0); ps shows its state as Z.
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return r.stdout.trim() !== '';
}

describe('agent specs', () => {
  it('reads the command, per-move limits, UCI options and the hang timeout', () => {
    const spec = parseUciAgentSpec('stockfish,Skill Level=0,depth=1,movetime=50,UCI_LimitStrength=true,UCI_Elo=1350,timeout=5000');
    expect(spec.command).toBe('stockfish');
    expect(spec.limits).toEqual({ depth: 1, movetime: 50 });
    expect(spec.options).toEqual({ 'Skill Level': '0', UCI_LimitStrength: 'true', UCI_Elo: '1350' });
    expect(Object.keys(spec.options)).toEqual(['Skill Level', 'UCI_LimitStrength', 'UCI_Elo']);
    expect(spec.timeoutMs).toBe(5000);
    expect(Object.keys(parseUciAgentSpec('stockfish,__proto__=1').options)).toEqual(['__proto__']);
    expect(() => parseUciAgentSpec(',depth=1')).toThrow(/no engine command/);
    expect(() => parseUciAgentSpec('stockfish,depth')).toThrow(/'depth' is not key=value/);
    expect(() => parseUciAgentSpec('stockfish,nodes=-3')).toThrow(/nodes must be a positive integer/);
    expect(splitCommandLine(`node "my engine.js" --flag 'a b'`)).toEqual(['node', 'my engine.js', '--flag', 'a b']);
  });
});

describe('UciEngine', () => {
  it('says clearly when the command does not start or does not speak UCI', async () => {
    await expect(UciEngine.start('no-such-engine-az-test')).rejects.toThrow(/cannot start engine 'no-such-engine-az-test': no such command/);
    const err = await UciEngine.start(`${node} ${fake} mute`, { startTimeoutMs: 1500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UciEngineError);
    expect((err as UciEngineError).failure).toBe('protocol');
    expect((err as Error).message).toMatch(/did not answer 'uci' with 'uciok'.*does it speak UCI/);
    // `true` exits at once without a word.
    await expect(UciEngine.start('true')).rejects.toThrow(/exited with code 0/);
    expect(liveEngineCount()).toBe(0);
  });

  it('loses only the game in which the engine crashes, hangs or plays an illegal move, and restarts it', async () => {
    const state = stateFromFen(START);
    for (const [mode, failure] of [['crash-on-go', /exited with code 3/], ['hang-on-go', /did not answer 'go' with 'bestmove'/], ['illegal', /played 'a1a8', not a legal move/]] as const) {
      const agent = new UciAgent(parseUciAgentSpec(`${node} ${fake} ${mode} 2,movetime=10,timeout=1000`));
      await agent.start();
      const firstPid = agent.pid;
      const results = await agent.actSettled([state, state, state]);
      if (mode === 'illegal') {
        // Every answer is illegal: every game is lost, and each time a fresh engine is started.
        expect(results.every((r) => r instanceof Error && failure.test(r.message))).toBe(true);
        expect(agent.restarts).toBe(2);
      } else {
        expect(legalActionsOf(state)).toContain(results[0]);
        expect(results[1]).toBeInstanceOf(Error);
        expect((results[1] as Error).message).toMatch(failure);
        expect(legalActionsOf(state)).toContain(results[2]);
        expect(agent.restarts).toBe(1);
        expect(agent.failures).toHaveLength(1);
      }
      expect(agent.pid).not.toBe(firstPid);
      // The dead engine is reaped, not left a zombie.
      expect(pidAlive(firstPid)).toBe(false);
      await agent.close();
      expect(pidAlive(agent.pid)).toBe(false);
    }
    expect(liveEngineCount()).toBe(0);
  });
});

const stockfish = realComponent('stockfish', { executables: ['stockfish', '/usr/games/stockfish'], install: 'apt-get install stockfish', suite: 'the Stockfish UCI tests' });

describe.skipIf(stockfish.path === undefined)('Stockfish as an agent', () => {
  it('handshakes, takes options and limits, and finds a mate in one', async () => {
    // A bare name is found on PATH or, failing that, in /usr/games (Debian's place for it).
    const agent = new UciAgent(parseUciAgentSpec('stockfish,Skill Level=0,Threads=1,depth=3'));
    await agent.start();
    expect(agent.engineName).toMatch(/Stockfish/);
    // White mates with Ra8#.
    const state = stateFromFen('6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1');
    const [action] = await agent.act([state]);
    const { legalMoveOf } = await import('@az/game-chess');
    expect(legalMoveOf(state, action)?.uci).toBe('a1a8');
    await agent.close();
    expect(liveEngineCount()).toBe(0);
  });

  it('refuses an option Stockfish does not list, naming it and the options it offers; names match without regard to case', async () => {
    const err = await new UciAgent(parseUciAgentSpec('stockfish,Hsh=64,Threads=1,Skil Level=3,depth=1')).start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UciEngineError);
    expect((err as UciEngineError).failure).toBe('option');
    const message = (err as Error).message;
    expect(message).toMatch(/^engine 'stockfish' \(Stockfish [^)]*\) has no option 'Hsh', 'Skil Level' \(not in its reply to 'uci'\); the options it lists: /);
    // Every name it offers, as it spells them.
    for (const name of ['Threads', 'Hash', 'Skill Level', 'UCI_LimitStrength', 'UCI_Elo', 'Clear Hash']) expect(message.split('the options it lists: ')[1].split(', ')).toContain(name);
    expect(liveEngineCount()).toBe(0);
    // UCI option names are not case-sensitive: these are Hash, Skill Level and Threads, and take effect.
    const lines: string[] = [];
    const engine = await UciEngine.start(stockfish.path ?? 'stockfish', { setOptions: { hash: '8', 'skill level': '0', THREADS: '1' }, onLine: (l) => lines.push(l) });
    expect(engine.optionNames).toContain('Skill Level');
    // (Stockfish answers an option it lacks with 'No such option: X'.)
    expect(lines.join('\n')).not.toMatch(/No such option/i);
    await engine.quit();
    expect(liveEngineCount()).toBe(0);
  });
});

// The engine side of UCI against a scripted searcher: what reaches the searcher, and when `bestmove` is printed.
import { ChessGame, legalActionsOf, legalMoveOf, stateFromFen, toFen, type ChessState } from '@az/game-chess';
import { describe, expect, it } from 'vitest';
import { actionOfUci } from './moves.js';
import { runUciServer, type UciBudget, type UciSearchControl, type UciSearcher } from './server.js';

/** Lines pushed by the test as a GUI would send them; `end()` closes the input. */
class Input implements AsyncIterable<string> {
  private readonly queued: string[] = [];
  private ended = false;
  private wake = (): void => undefined;

  send(...lines: string[]): void {
    this.queued.push(...lines);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const line = this.queued.shift();
      if (line !== undefined) yield line;
      else if (this.ended) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** A searcher that searches in steps until stopped (or, with limits, after one step), recording what it was asked. */
class ScriptedSearcher implements UciSearcher {
  readonly name = 'scripted';
  readonly author = 'test';
  readonly options = [];
  readonly calls: string[] = [];
  readonly budgets: UciBudget[] = [];
  /** `control.pondering()` at the start and at each step of the searches. */
  readonly ponderingSeen: boolean[] = [];

  setOption(name: string, value: string): string | null {
    this.calls.push(`setoption ${name}=${value}`);
    return null;
  }

  newGame(): void {
    this.calls.push('ucinewgame');
  }

  async search(state: ChessState, budget: UciBudget, control: UciSearchControl): Promise<string> {
    this.calls.push(`search ${toFen(state)}`);
    this.budgets.push(budget);
    this.ponderingSeen.push(control.pondering());
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      this.ponderingSeen.push(control.pondering());
      if (control.stopped() || (!budget.infinite && !control.pondering())) break;
    }
    const first = budget.searchMoves?.[0] ?? legalActionsOf(state)[0];
    return legalMoveOf(state, first)?.uci ?? '0000';
  }
}

function serve(searcher: UciSearcher): { input: Input; lines: string[]; next: (pattern: RegExp) => Promise<string>; done: Promise<void> } {
  const input = new Input();
  const lines: string[] = [];
  let cursor = 0;
  let wake = (): void => undefined;
  const done = runUciServer(input, searcher, {
    game: new ChessGame({}),
    write: (line) => {
      lines.push(line);
      wake();
    },
  });
  const next = (pattern: RegExp): Promise<string> =>
    new Promise((resolve) => {
      const check = (): void => {
        const at = lines.findIndex((l, i) => i >= cursor && pattern.test(l));
        if (at < 0) {
          wake = check;
          return;
        }
        cursor = at + 1;
        resolve(lines[at]);
      };
      check();
    });
  return { input, lines, next, done };
}

describe('runUciServer', () => {
  it('carries out commands sent during a search after it answers, in order', async () => {
    const searcher = new ScriptedSearcher();
    const { input, next, done } = serve(searcher);
    input.send('go infinite', 'position startpos moves e2e4', 'setoption name Simulations value 9', 'ucinewgame', 'isready');
    await next(/^readyok$/);
    expect(searcher.calls).toEqual([`search rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1`]);
    input.send('stop', 'go nodes 5');
    await next(/^bestmove /);
    await next(/^bestmove /);
    expect(searcher.calls.slice(1)).toEqual(['setoption Simulations=9', 'ucinewgame', 'search rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1']);
    input.send('quit');
    await done;
  });

  it('answers go infinite or go ponder only at stop, even with no move to search', async () => {
    const searcher = new ScriptedSearcher();
    const { input, lines, next, done } = serve(searcher);
    input.send('position fen R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1', 'go infinite', 'isready');
    await next(/^readyok$/);
    expect(lines.filter((l) => l.startsWith('bestmove'))).toEqual([]);
    input.send('stop');
    expect(await next(/^bestmove /)).toBe('bestmove 0000');
    input.send('position fen 8/8/8', 'go ponder', 'isready');
    await next(/^readyok$/);
    expect(lines.filter((l) => l.startsWith('bestmove'))).toHaveLength(1);
    input.send('ponderhit');
    expect(await next(/^bestmove /)).toBe('bestmove 0000');
    expect(searcher.calls).toEqual([]);
    input.end();
    await done;
  });

  it('tells the searcher it ponders until ponderhit, and hands it searchmoves and the clock', async () => {
    const searcher = new ScriptedSearcher();
    const { input, next, done } = serve(searcher);
    input.send('position startpos', 'go ponder searchmoves g1f3 b1c3 wtime 3000 btime 3000', 'isready');
    await next(/^readyok$/);
    input.send('ponderhit');
    expect(await next(/^bestmove /)).toMatch(/^bestmove g1f3/);
    expect(searcher.ponderingSeen[0]).toBe(true);
    expect(searcher.ponderingSeen.at(-1)).toBe(false);
    const startpos = stateFromFen('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    expect(searcher.budgets[0].searchMoves).toEqual([actionOfUci(startpos, 'g1f3'), actionOfUci(startpos, 'b1c3')]);
    expect(searcher.budgets[0].timeMs).toBeGreaterThan(0);
    input.send('quit');
    await done;
  });
});

import { Chess } from 'chess.js';
import { describe, expect, it } from 'vitest';
import { ChessGame } from './game.js';
import { formatPgn } from './pgn.js';
import { stateFromFen } from './state.js';

const game = new ChessGame({ maxPlies: 512, fen: '', history: 0, adjudicateLead: 0 });

function play(moves: string[], start = game.initialState()): number[] {
  const state = game.clone(start);
  return moves.map((m) => {
    const parsed = game.parseAction(state, m);
    if (!parsed.ok) throw new Error(parsed.error);
    game.applyAction(state, parsed.action);
    return parsed.action;
  });
}

describe('formatPgn', () => {
  it("writes a mate with the seven-tag roster, result and termination, and chess.js reads it back", () => {
    const actions = play(['f3', 'e5', 'g4', 'Qh4#']);
    const text = formatPgn({ tags: { Event: 'az eval', White: 'random', Black: 'greedy', Round: '1' }, start: game.initialState(), actions });
    expect(text).toContain('[Event "az eval"]\n[Site "?"]\n[Date "?"]\n[Round "1"]\n[White "random"]\n[Black "greedy"]\n[Result "0-1"]');
    expect(text).toContain('[Termination "checkmate"]');
    expect(text).toContain('\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n');
    const reader = new Chess();
    reader.loadPgn(text);
    expect(reader.isCheckmate()).toBe(true);
  });

  it('starts from a FEN with SetUp, numbers a black first move, and marks an abandoned game', () => {
    const start = stateFromFen('6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 40');
    const actions = play(['Kh8', 'Ra8#'], start);
    const text = formatPgn({ tags: {}, start, actions });
    expect(text).toContain('[FEN "6k1/5ppp/8/8/8/8/5PPP/R5K1 b - - 0 40"]');
    expect(text).toContain('40... Kh8 41. Ra8# 1-0');
    const abandoned = formatPgn({ tags: {}, start, actions: actions.slice(0, 1), result: '*', termination: 'abandoned' });
    expect(abandoned).toContain('[Result "*"]');
    expect(abandoned).toContain('[Termination "abandoned"]');
    expect(abandoned).toMatch(/40\.\.\. Kh8 \*\n/);
  });
});

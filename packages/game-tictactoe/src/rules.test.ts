import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { ticTacToePlugin } from './plugin.js';
import type { TicTacToeState } from './rules.js';

const game = ticTacToePlugin.create({});
const rng = new Rng(1);

/** Walks every complete game through the plugin's own mask and applyAction. */
function enumerateGames(): { games: number; xWins: number; oWins: number; draws: number; positions: Map<string, boolean> } {
  const masks = Array.from({ length: 10 }, () => new Uint8Array(game.masker.actionSize));
  const positions = new Map<string, boolean>();
  let games = 0;
  let xWins = 0;
  let oWins = 0;
  let draws = 0;
  const walk = (state: TicTacToeState, depth: number): void => {
    const terminal = game.isTerminal(state);
    positions.set(game.hash(state), terminal);
    if (terminal) {
      games++;
      const r = game.returns(state);
      if (r[0] === 1 && r[1] === -1) xWins++;
      else if (r[0] === -1 && r[1] === 1) oWins++;
      else if (r[0] === 0 && r[1] === 0) draws++;
      else throw new Error(`bad returns ${String(r)}`);
      return;
    }
    const mask = masks[depth];
    if (game.masker.fillMask(state, mask, 0) === 0) throw new Error(`no legal move in ${game.hash(state)}`);
    for (let a = 0; a < mask.length; a++) {
      if (!mask[a]) continue;
      const child = game.clone(state);
      game.applyAction(child, a, rng);
      walk(child, depth + 1);
    }
  };
  walk(game.initialState(rng), 0);
  return { games, xWins, oWins, draws, positions };
}

describe('tictactoe rules', () => {
  it('declares its traits', () => {
    expect(game.traits).toMatchObject({
      id: 'tictactoe',
      minPlayers: 2,
      maxPlayers: 2,
      information: 'perfect',
      chance: false,
      rewards: 'zero-sum',
      maxGameLength: 9,
    });
    expect(game.numPlayers).toBe(2);
    expect(game.maxGameLength).toBe(9);
    expect(ticTacToePlugin.configSchema).toEqual({});
  });

  it('has 255,168 complete games (131,184 X wins, 77,904 O wins, 46,080 draws) and 5,478 positions (958 terminal)', () => {
    const { games, xWins, oWins, draws, positions } = enumerateGames();
    expect(games).toBe(255_168);
    expect(xWins).toBe(131_184);
    expect(oWins).toBe(77_904);
    expect(draws).toBe(46_080);
    expect(positions.size).toBe(5_478);
    expect([...positions.values()].filter(Boolean).length).toBe(958);
  });

  it('starts empty with X to move and zero returns', () => {
    const s = game.initialState(rng);
    expect(Array.from(s.board)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(game.currentPlayer(s)).toBe(0);
    expect(game.isTerminal(s)).toBe(false);
    expect(Array.from(game.returns(s))).toEqual([0, 0]);
  });

  it('plays X=1 and O=2 alternately, detects wins and caches the winner', () => {
    const s = game.initialState(rng);
    for (const a of [0, 3, 1, 4]) game.applyAction(s, a, rng);
    expect(Array.from(s.board)).toEqual([1, 1, 0, 2, 2, 0, 0, 0, 0]);
    expect(game.currentPlayer(s)).toBe(0);
    game.applyAction(s, 2, rng);
    expect(game.isTerminal(s)).toBe(true);
    expect(s.winner).toBe(0);
    expect(Array.from(game.returns(s))).toEqual([1, -1]);
  });

  it('O can win and a full board without a line is a draw', () => {
    const o = game.initialState(rng);
    for (const a of [0, 4, 1, 2, 8, 6]) game.applyAction(o, a, rng);
    expect(Array.from(game.returns(o))).toEqual([-1, 1]);
    const d = game.initialState(rng);
    // X O X / X O O / O X X
    for (const a of [0, 1, 2, 4, 3, 5, 7, 6, 8]) game.applyAction(d, a, rng);
    expect(game.isTerminal(d)).toBe(true);
    expect(d.winner).toBe(-1);
    expect(Array.from(game.returns(d))).toEqual([0, 0]);
  });

  it('mask equals the set of actions applyAction accepts, in every reachable position', () => {
    const seen = new Set<string>();
    const mask = new Uint8Array(9);
    const stack: TicTacToeState[] = [game.initialState(rng)];
    const mismatches: string[] = [];
    let checked = 0;
    while (stack.length) {
      const s = stack.pop()!;
      const h = game.hash(s);
      if (seen.has(h)) continue;
      seen.add(h);
      const count = game.masker.fillMask(s, mask, 0);
      let accepted = 0;
      for (let a = 0; a < 9; a++) {
        const c = game.clone(s);
        let ok = true;
        try {
          game.applyAction(c, a, rng);
        } catch {
          ok = false;
        }
        if (ok !== (mask[a] === 1)) mismatches.push(`${h} action ${a}: mask ${mask[a]}, applyAction ${ok ? 'accepted' : 'refused'}`);
        if (ok) {
          accepted++;
          stack.push(c);
        }
      }
      if (accepted !== count) mismatches.push(`${h}: fillMask returned ${count}, ${accepted} accepted`);
      checked++;
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBe(5_478);
  });

  it('throws a clear Error on illegal actions', () => {
    const s = game.initialState(rng);
    game.applyAction(s, 4, rng);
    expect(() => game.applyAction(s, 4, rng)).toThrow(/illegal action 4: cell b2 \(5\) is already taken by X/);
    for (const bad of [-1, 9, 1.5, Number.NaN]) expect(() => game.applyAction(s, bad, rng)).toThrow(/out of range/);
    for (const a of [0, 3, 1, 5]) game.applyAction(s, a, rng); // X wins on row 2
    expect(() => game.applyAction(s, 8, rng)).toThrow(/game is over \(X won\)/);
    // the failed attempts did not change the state
    expect(s.moveCount).toBe(5);
    expect(s.board[8]).toBe(0);
  });

  it('clones are independent', () => {
    const s = game.initialState(rng);
    game.applyAction(s, 0, rng);
    const c = game.clone(s);
    expect(c.board).not.toBe(s.board);
    expect(game.hash(c)).toBe(game.hash(s));
    game.applyAction(c, 4, rng);
    expect(s.board[4]).toBe(0);
    expect(s.moveCount).toBe(1);
    expect(game.currentPlayer(s)).toBe(1);
    game.applyAction(s, 8, rng);
    expect(c.board[8]).toBe(0);
    expect(game.hash(c)).not.toBe(game.hash(s));
  });

  it('hashes board and mover stably', () => {
    const s = game.initialState(rng);
    expect(game.hash(s)).toBe('.........|X');
    game.applyAction(s, 0, rng);
    game.applyAction(s, 4, rng);
    expect(game.hash(s)).toBe('X...O....|X');
    const t = game.initialState(rng);
    game.applyAction(t, 4, rng);
    expect(game.hash(t)).toBe('....X....|O');
  });
});

import { RandomAgent, Rng, type Agent } from '@az/core';
import { describe, expect, it } from 'vitest';
import { MinimaxAgent, minimaxValue, optimalActions, reachablePositions } from './oracle.js';
import { ticTacToePlugin } from './plugin.js';
import type { TicTacToeState } from './rules.js';

const game = ticTacToePlugin.create({});
const rng = new Rng(4);

function play(actions: number[]): TicTacToeState {
  const s = game.initialState(rng);
  for (const a of actions) game.applyAction(s, a, rng);
  return s;
}

describe('tictactoe minimax oracle', () => {
  it('values the empty board as a draw, where every first move is optimal', () => {
    const s = game.initialState(rng);
    expect(minimaxValue(s)).toBe(0);
    expect(optimalActions(s)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('knows a won position and its winning moves', () => {
    // X a1, O b1 (edge next to the corner): X to move wins, and only a2, b2, a3 keep the win.
    const s = play([0, 1]);
    expect(minimaxValue(s)).toBe(1);
    expect(optimalActions(s)).toEqual([3, 4, 6]);
    // X a1, O b2: a draw; X c3, O must not answer in a corner
    expect(minimaxValue(play([0, 4]))).toBe(0);
    const t = play([0, 4, 8]);
    expect(minimaxValue(t)).toBe(0);
    expect(optimalActions(t)).toEqual([1, 3, 5, 7]);
    // X to move with two in a row open: immediate win is optimal
    const w = play([0, 3, 1, 4]);
    expect(minimaxValue(w)).toBe(1);
    expect(optimalActions(w)).toContain(2);
  });

  it('values terminal states for the player to move and offers no actions', () => {
    const won = play([0, 3, 1, 4, 2]);
    expect(minimaxValue(won)).toBe(-1);
    expect(optimalActions(won)).toEqual([]);
    const draw = play([0, 1, 2, 4, 3, 5, 7, 6, 8]);
    expect(minimaxValue(draw)).toBe(0);
  });

  it('does not modify the state it is given', () => {
    const s = play([0, 1]);
    const before = game.hash(s);
    optimalActions(s);
    minimaxValue(s);
    expect(game.hash(s)).toBe(before);
    expect(s.moveCount).toBe(2);
  });

  it('enumerates 5,478 distinct reachable positions, 958 terminal, 4,520 to decide', () => {
    const positions = reachablePositions();
    expect(positions.length).toBe(5_478);
    expect(new Set(positions.map((p) => game.hash(p))).size).toBe(5_478);
    expect(positions.filter((p) => game.isTerminal(p)).length).toBe(958);
    expect(positions.filter((p) => !game.isTerminal(p)).length).toBe(4_520);
    expect(game.hash(positions[0])).toBe('.........|X');
    // fresh states each call
    expect(reachablePositions()[0]).not.toBe(positions[0]);
  });

  it('is consistent with the rules everywhere (Bellman equations over all reachable positions)', () => {
    const mask = new Uint8Array(9);
    const mismatches: string[] = [];
    for (const s of reachablePositions()) {
      const v = minimaxValue(s);
      const mover = game.currentPlayer(s);
      if (game.isTerminal(s)) {
        if (v !== game.returns(s)[mover]) mismatches.push(`${game.hash(s)}: value ${v}, returns ${String(game.returns(s))}`);
        continue;
      }
      game.masker.fillMask(s, mask, 0);
      let best = -2;
      const argmax: number[] = [];
      for (let a = 0; a < 9; a++) {
        if (!mask[a]) continue;
        const c = game.clone(s);
        game.applyAction(c, a, rng);
        const q = 0 - minimaxValue(c);
        if (q > best) {
          best = q;
          argmax.length = 0;
        }
        if (q === best) argmax.push(a);
      }
      if (!Object.is(v, best)) mismatches.push(`${game.hash(s)}: value ${v}, best child ${best}`);
      const opt = optimalActions(s);
      if (opt.join() !== argmax.join()) mismatches.push(`${game.hash(s)}: optimal ${opt.join()}, expected ${argmax.join()}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('MinimaxAgent never loses: draws itself and beats or draws a random player', async () => {
    const playOut = async (agents: readonly [Agent<TicTacToeState>, Agent<TicTacToeState>]): Promise<Float32Array> => {
      const s = game.initialState(rng);
      while (!game.isTerminal(s)) {
        const [a] = await agents[game.currentPlayer(s)].act([s]);
        game.applyAction(s, a, rng);
      }
      return game.returns(s);
    };
    const m0 = new MinimaxAgent(1);
    const m1 = new MinimaxAgent(2);
    const random = new RandomAgent(game, 3);
    for (let i = 0; i < 20; i++) expect(Array.from(await playOut([m0, m1]))).toEqual([0, 0]);
    let wins = 0;
    for (let i = 0; i < 100; i++) {
      const asX = await playOut([m0, random]);
      expect(asX[0]).toBeGreaterThanOrEqual(0);
      const asO = await playOut([random, m1]);
      expect(asO[1]).toBeGreaterThanOrEqual(0);
      wins += (asX[0] === 1 ? 1 : 0) + (asO[1] === 1 ? 1 : 0);
    }
    expect(wins).toBeGreaterThan(100);
  });

  it('MinimaxAgent is seeded, batched, and varies among optimal moves', async () => {
    const states = Array.from({ length: 50 }, () => game.initialState(rng));
    const a = await new MinimaxAgent(7).act(states);
    const b = await new MinimaxAgent(7).act(states);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(new Set(a).size).toBeGreaterThan(3);
    expect(a.length).toBe(50);
    const s = play([0, 1]);
    const picks = await new MinimaxAgent(8).act(Array.from({ length: 30 }, () => s));
    for (const p of picks) expect([3, 4, 6]).toContain(p);
    await expect(new MinimaxAgent(9).act([play([0, 3, 1, 4, 2])])).rejects.toThrow(/terminal/);
  });
});

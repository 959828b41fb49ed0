import { describe, expect, it } from 'vitest';
import { RandomAgent, type Agent } from '@az/core';
import { MinimaxAgent, optimalActions } from './oracle.js';
import { measurePerfectPlay, assessTicTacToeAgent } from './perfect-play.js';
import { TicTacToeGame } from './game.js';
import type { TicTacToeState } from './rules.js';

/** Minimax everywhere except one position (X X . / O O . / . . . , X to move) where it ignores the win. */
class OneBlunderAgent implements Agent<TicTacToeState> {
  readonly name = 'one-blunder';
  private readonly minimax = new MinimaxAgent(3);
  async act(states: readonly TicTacToeState[]): Promise<Int32Array> {
    const out = await this.minimax.act(states);
    states.forEach((s, i) => {
      if (Array.from(s.board).join('') === '110220000' && s.toMove === 0) out[i] = 6;
    });
    return out;
  }
}

/** Always the lowest empty cell. */
const firstCell: Agent<TicTacToeState> = {
  name: 'first-cell',
  async act(states) {
    return Int32Array.from(states.map((s) => s.board.indexOf(0)));
  },
};

describe('measurePerfectPlay', () => {
  it('gives the oracle itself a perfect score', async () => {
    const r = await measurePerfectPlay(new MinimaxAgent(1));
    expect(r.positions).toBe(4520);
    expect(r.optimalMoves).toBe(4520);
    expect(r.lossesVsOracle).toBe(0);
    expect(r.gamesVsOracle).toBeGreaterThan(18);
    const verdict = await assessTicTacToeAgent(new MinimaxAgent(1));
    expect(verdict.passed).toBe(true);
    expect(verdict.summary).toContain('4520/4520');
  });

  it('counts a single blunder exactly once', async () => {
    expect(optimalActions({ board: Int8Array.from([1, 1, 0, 2, 2, 0, 0, 0, 0]), toMove: 0, moveCount: 4, winner: -1 })).toEqual([2]);
    const r = await measurePerfectPlay(new OneBlunderAgent());
    expect(r.optimalMoves).toBe(4519);
    // One miss is not 100.0%: the share is rounded down.
    expect((await assessTicTacToeAgent(new OneBlunderAgent())).summary).toContain('optimal moves 4519/4520 (99.9%)');
  });

  it('catches weak agents: losses against the oracle and a low optimal rate', async () => {
    const r = await measurePerfectPlay(firstCell);
    expect(r.lossesVsOracle).toBeGreaterThan(0);
    expect(r.losingLines.length).toBeGreaterThan(0);
    expect(r.optimalRate).toBeLessThan(0.9);
    const random = await measurePerfectPlay(new RandomAgent(new TicTacToeGame({}), 5));
    expect(random.optimalRate).toBeLessThan(0.9);
    expect((await assessTicTacToeAgent(firstCell)).passed).toBe(false);
  });
});

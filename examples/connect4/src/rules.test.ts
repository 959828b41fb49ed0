import { Rng } from '@az/core';
import { describe, expect, it } from 'vitest';
import { GreedyAgent, connect4Plugin, type Connect4State } from './index.js';

const game = connect4Plugin.create({ rows: 6, cols: 7, connect: 4 });
const rng = new Rng(0);

function play(columns: string): Connect4State {
  const s = game.initialState(rng);
  for (const ch of columns) game.applyAction(s, Number(ch) - 1, rng);
  return s;
}

describe('connect4 rules', () => {
  it('wins across, down and on both diagonals', () => {
    expect(Array.from(game.returns(play('1122334')))).toEqual([1, -1]); // X across the bottom
    expect(Array.from(game.returns(play('1212121')))).toEqual([1, -1]); // X down column 1
    expect(Array.from(game.returns(play('12234334544')))).toEqual([1, -1]); // X rises from column 1 to 4
    expect(Array.from(game.returns(play('76654554344')))).toEqual([1, -1]); // the mirror image: the other diagonal
  });

  it('refuses a full column and anything after the end', () => {
    const s = play('111111');
    expect(game.parseAction(s, '1')).toEqual({ ok: false, error: 'column 1 is full' });
    expect(() => game.applyAction(s, 0, rng)).toThrow(/column 1 is full/);
    expect(game.parseAction(s, 'd')).toEqual({ ok: true, action: 3 });
    const over = play('1122334');
    expect(() => game.applyAction(over, 5, rng)).toThrow(/game is over/);
  });

  it('draws when the board fills without four in a row', () => {
    // Column pairs (a, b) filled a b b a a b b a a b b a, then column 6: rows alternate XXOOXXO / OOXXOOX,
    // columns alternate, and no diagonal has four of a kind.
    const order = [[1, 3], [2, 4], [5, 7]].flatMap(([a, b]) => [a, b, b, a, a, b, b, a, a, b, b, a]).concat([6, 6, 6, 6, 6, 6]);
    const draw = play(order.join(''));
    expect(draw.moves).toBe(42);
    expect(game.isTerminal(draw)).toBe(true);
    expect(Array.from(game.returns(draw))).toEqual([0, 0]);
    expect(game.render(draw)).toContain('a draw');
  });

  it("the view labels each column as formatAction names its move, and the seats by their colours", () => {
    const s = play('44');
    const view = game.view!(s, 0);
    if (view.kind !== 'grid') throw new Error(`a grid view, not ${view.kind}`);
    expect(view.columnLabels).toHaveLength(7);
    for (let col = 0; col < 7; col++) expect(view.columnLabels?.[col]).toBe(game.formatAction(s, col));
    expect(view.rowLabels).toBeUndefined();
    expect(view.seatNames).toEqual(['Red', 'Blue']);
  });

  it('encodes HWC planes relative to the perspective seat', () => {
    const s = play('4'); // X in the bottom centre, O to move
    const out = new Float32Array(game.encoder.size);
    expect(game.encoder.shape).toEqual([6, 7, 3]);
    const bottomCentre = (5 * 7 + 3) * 3;
    game.encoder.encode(s, 0, out, 0);
    expect([out[bottomCentre], out[bottomCentre + 1], out[bottomCentre + 2]]).toEqual([1, 0, 0]);
    game.encoder.encode(s, 1, out, 0);
    expect([out[bottomCentre], out[bottomCentre + 1], out[bottomCentre + 2]]).toEqual([0, 1, 1]);
  });

  it('greedy bot takes a win, else blocks one', async () => {
    const bot = new GreedyAgent(game, 1);
    // X to move with 1-2-3 on the bottom row: X wins in column 4.
    // X to move, O holds 2-3-4 on the bottom row and X has no win: X blocks (column 1 or 5; the first found).
    expect(Array.from(await bot.act([play('112233'), play('727364')]))).toEqual([3, 0]);
  });
});

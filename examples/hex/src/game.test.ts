// Run by `npm test`: tsc compiles src/ (tests included) to dist/, then Node's own test runner runs
// dist/**/*.test.js.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '@az/core';
import { testGameContract } from '@az/core/testkit';
import { hexPlugin, ShortestPathAgent } from './index.js';
import { distanceToConnect } from './rules.js';

describe('Hex rules', () => {
  const game = hexPlugin.create({ size: 5 });
  const play = (s: ReturnType<typeof game.initialState>, ...moves: string[]): void => {
    for (const m of moves) {
      const parsed = game.parseAction(s, m);
      assert.ok(parsed.ok, m + ': ' + (parsed.ok ? '' : parsed.error));
      game.applyAction(s, parsed.action, new Rng(0));
    }
  };

  it('X wins by joining top and bottom along a slanted chain', () => {
    const s = game.initialState(new Rng(0));
    // X: e1 d2 c3 b4 a5 is one chain on the rhombus (each step is the (+1, -1) neighbour).
    play(s, 'e1', 'a1', 'd2', 'a2', 'c3', 'a3', 'b4', 'b1');
    assert.equal(game.isTerminal(s), false);
    play(s, 'a5');
    assert.equal(game.isTerminal(s), true);
    assert.deepEqual(Array.from(game.returns(s)), [1, -1]);
  });

  it('O wins by joining left and right; X touching only the top does not', () => {
    const s = game.initialState(new Rng(0));
    play(s, 'a1', 'a3', 'b1', 'b3', 'c1', 'c3', 'd1', 'd3');
    assert.equal(game.isTerminal(s), false);
    play(s, 'e1', 'e3');
    assert.equal(game.isTerminal(s), true);
    assert.deepEqual(Array.from(game.returns(s)), [-1, 1]);
  });

  it('does not join along the other diagonal (a1-b2 are not neighbours)', () => {
    const s = game.initialState(new Rng(0));
    play(s, 'a1', 'e1', 'b2', 'e2', 'c3', 'e3', 'd4', 'e4');
    assert.equal(game.isTerminal(s), false);
    play(s, 'e5');
    assert.equal(game.isTerminal(s), false, 'e5 for X: not joined to the top');
  });

  it('refuses a taken cell and names it', () => {
    const s = game.initialState(new Rng(0));
    play(s, 'b2');
    const again = game.parseAction(s, 'b2');
    assert.equal(again.ok, false);
    assert.match(again.ok ? '' : again.error, /taken/);
  });

  it('never ends drawn: random games always have a winner', () => {
    const rng = new Rng(7);
    for (let g = 0; g < 200; g++) {
      const s = game.initialState(rng);
      while (!game.isTerminal(s)) {
        const empty = [...s.cells.keys()].filter((c) => s.cells[c] === -1);
        assert.ok(empty.length > 0, 'a full board always has a winner');
        game.applyAction(s, empty[rng.int(empty.length)], rng);
      }
      assert.equal(Math.abs(game.returns(s)[0]), 1);
    }
  });

  it('measures the distance to connect', () => {
    const s = game.initialState(new Rng(0));
    const rules = { size: 5 };
    assert.equal(distanceToConnect(rules, s, 0), 5);
    play(s, 'c3', 'c2');
    assert.equal(distanceToConnect(rules, s, 0), 4);
    assert.equal(distanceToConnect(rules, s, 1), 4);
  });

  it('the shortest-path bot wins at once and blocks a one-move win', async () => {
    const s = game.initialState(new Rng(0));
    play(s, 'c1', 'b5', 'c2', 'a1', 'c3', 'a2', 'c4');
    // O to move: X threatens c5 (b5 is O's), so O must take it.
    const [block] = await new ShortestPathAgent(game).act([s]);
    assert.equal(game.formatAction(s, block), 'c5');
    // X then has two ways to the bottom (d4-d5 ...); with a1 a2 b5 c5 O cannot finish first.
    play(s, 'c5', 'd4', 'a3');
    // X to move: d5 wins at once (d4 touches d5 and c5; c5 is O's).
    const [win] = await new ShortestPathAgent(game).act([s]);
    game.applyAction(s, win, new Rng(0));
    assert.equal(game.isTerminal(s), true);
    assert.deepEqual(Array.from(game.returns(s)), [1, -1]);
  });
});

describe('Hex plugin', () => {
  it('meets the game contract (random playouts, masks, encodings, symmetries, clones, notation, view, bots)', async () => {
    const report = await testGameContract(hexPlugin, { playouts: 24 });
    assert.deepEqual(report.skipped, []);
    assert.ok(report.checks.symmetry > 0, 'the symmetries were checked');
  });

  it('meets it under other sizes too', async () => {
    await testGameContract(hexPlugin, { config: { size: 3 }, playouts: 12 });
    await testGameContract(hexPlugin, { config: { size: 7 }, playouts: 8 });
  });
});

// Reading game records to learn from (az train --records): a record written by az eval comes back as the
// same positions and targets, bad lines are skipped and counted with file:line, and the reader holds one
// line at a time.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng, type Game } from '@az/core';
import { recordPositions, type RecordedGame } from '@az/trainer-multigpu';
import { connect4Plugin } from 'az-game-connect4';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordFiles, textLines, type GameRecordLine } from './records.js';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-records-stream-');
const game = connect4Plugin.create({ rows: 6, cols: 7, connect: 4 }) as Game<unknown>;
let lines: string[] = [];

beforeAll(() => {
  const r = az(['eval', '--game', 'connect4', '--a', 'mcts', '--b', 'random', '--sims', '16', '--games', '6', '--seed', '3', '--games-out', 'games.jsonl']);
  expect(r.code, r.stderr).toBe(0);
  lines = readFileSync(join(work, 'games.jsonl'), 'utf8').trim().split('\n');
  expect(lines).toHaveLength(6);
});

/** Every record of `files` the reader gives for `game`, and every skip it reports. */
async function readAll(files: string[]): Promise<{ games: RecordedGame[]; skipped: { where: string; reason: string; detail: string }[] }> {
  const games: RecordedGame[] = [];
  const skipped: { where: string; reason: string; detail: string }[] = [];
  for await (const g of recordFiles(files).games(game, (where, reason, detail) => skipped.push({ where, reason, detail }))) games.push(g);
  return { games, skipped };
}

describe('az train --records: reading records', () => {
  it('gives back the positions and targets of a record az eval wrote: its actions, the inputs from the mover\'s view, the returns', async () => {
    const { games, skipped } = await readAll([join(work, 'games.jsonl')]);
    expect(skipped).toEqual([]);
    expect(games).toHaveLength(lines.length);
    for (const [i, recorded] of games.entries()) {
      const written = JSON.parse(lines[i]) as GameRecordLine;
      const got = recordPositions(game, recorded, 0);
      // The game replayed here, independently of the reader: from the record's seed, move by move.
      const rng = new Rng(written.gameSeed);
      const state = game.initialState(rng);
      const expected = new Float32Array(game.encoder.size);
      expect(got.length).toBe(written.actions.length);
      for (const [ply, action] of written.actions.entries()) {
        const mover = game.currentPlayer(state);
        expect(game.formatAction(state, action)).toBe(written.moves[ply]);
        game.encoder.encode(state, mover, expected, 0);
        expect(got.inputs.subarray(ply * game.encoder.size, (ply + 1) * game.encoder.size)).toEqual(expected);
        // One-hot on the move played.
        expect(Array.from(got.policyIndex.subarray(got.policyOffsets[ply], got.policyOffsets[ply + 1]))).toEqual([action]);
        expect(Array.from(got.policyProb.subarray(got.policyOffsets[ply], got.policyOffsets[ply + 1]))).toEqual([1]);
        // The final returns from the mover's seat: index 0 is the mover's.
        const returns = written.returns ?? [];
        expect(Array.from(got.values.subarray(ply * 2, ply * 2 + 2))).toEqual([returns[mover], returns[1 - mover]]);
        game.applyAction(state, action, rng);
      }
      expect(Array.from(got.returns)).toEqual(written.returns);
    }
  });

  it('spreads --records-label-smoothing over the legal moves, the rest on the move played', async () => {
    const { games } = await readAll([join(work, 'games.jsonl')]);
    const got = recordPositions(game, games[0], 0.1);
    const first = Array.from(got.policyProb.subarray(got.policyOffsets[0], got.policyOffsets[1]));
    const played = (JSON.parse(lines[0]) as GameRecordLine).actions[0];
    expect(Array.from(got.policyIndex.subarray(got.policyOffsets[0], got.policyOffsets[1]))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    first.forEach((p, a) => expect(p).toBeCloseTo(a === played ? 0.9 + 0.1 / 7 : 0.1 / 7, 6));
  });

  it('skips and counts, with file:line, a truncated line, invalid JSON, another game, another config and an illegal move; reads a BOM and CRLF', async () => {
    const record = JSON.parse(lines[0]) as GameRecordLine;
    const illegal = { ...record, actions: [0, 0, 0, 0, 0, 0, 0, ...record.actions.slice(7)] };
    const content = [
      lines[0], // 1: good (after a BOM)
      lines[1].slice(0, 40), // 2: truncated
      '{"game": connect4}', // 3: invalid JSON
      JSON.stringify({ ...record, game: 'tictactoe', config: {} }), // 4: another game
      JSON.stringify({ ...record, config: { rows: 5, cols: 7, connect: 4 } }), // 5: another config
      JSON.stringify(illegal), // 6: a seventh disc in a column of six
      '', // 7: blank, ignored
      lines[2], // 8: good
    ];
    writeFileSync(join(work, 'bad.jsonl'), '\uFEFF' + content.join('\r\n') + '\r\n');
    const file = join(work, 'bad.jsonl');
    const { games, skipped } = await readAll([file]);
    // The reader passes the records of this game and config; replaying is the trainer's (it skips the illegal one).
    const replayed: string[] = [];
    for (const g of games) {
      try {
        recordPositions(game, g, 0);
        replayed.push(g.where);
      } catch (err) {
        skipped.push({ where: g.where, reason: 'does not replay', detail: String(err) });
      }
    }
    expect(replayed).toEqual([`${file}:1`, `${file}:8`]);
    expect(skipped.map((s) => [s.where, s.reason])).toEqual([
      [`${file}:2`, 'not JSON'],
      [`${file}:3`, 'not JSON'],
      [`${file}:4`, 'another game'],
      [`${file}:5`, 'another config'],
      [`${file}:6`, 'does not replay'],
    ]);
    expect(skipped[3].detail).toContain('rows=5');
    expect(skipped[4].detail).toMatch(/move 7 \(action 0\) is not legal/);
  });

  it('holds one line at a time, and cuts off a line too long to be a record', async () => {
    let produced = 0;
    let consumed = 0;
    let peak = 0;
    async function* oneLinePerChunk(): AsyncGenerator<string> {
      for (let i = 0; i < 20_000; i++) {
        produced++;
        yield `${lines[i % lines.length]}\n`;
      }
    }
    for await (const line of textLines(oneLinePerChunk())) {
      consumed++;
      peak = Math.max(peak, produced - consumed);
      expect(line.n).toBe(consumed);
    }
    expect(consumed).toBe(20_000);
    // The reader asks for the next line only once this one is taken.
    expect(peak).toBe(0);

    async function* longLine(): AsyncGenerator<string> {
      for (let i = 0; i < 10; i++) yield 'x'.repeat(100);
      yield 'y\nnext';
    }
    const got: { text: string; tooLong?: boolean }[] = [];
    for await (const line of textLines(longLine(), 250)) got.push(line);
    expect(got).toEqual([
      { text: 'x'.repeat(250), n: 1, tooLong: true },
      { text: 'next', n: 2 },
    ]);
  });
});

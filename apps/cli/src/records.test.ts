// Game-record files (`az eval --games-out`, JSON lines) read by `az compare` and `az play --replay`
// through the built binary: a line that is not a game record is refused naming the file and the line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-records-');
let lines: string[] = [];

beforeAll(() => {
  const r = az(['eval', '--game', 'tictactoe', '--a', 'minimax', '--b', 'random', '--games', '2', '--games-out', 'games.jsonl']);
  expect(r.code, r.stderr).toBe(0);
  lines = readFileSync(join(work, 'games.jsonl'), 'utf8').trim().split('\n');
  expect(lines).toHaveLength(2);
});

/** Both readers of record files, on `file`. */
const readers = (file: string): string[][] => [
  ['compare', file, file],
  ['play', '--replay', file],
];

describe('game record files', () => {
  it('refuses a line holding null, or a record whose config is null, as not a game record, naming the line', () => {
    const nullConfig = JSON.stringify({ ...(JSON.parse(lines[1]) as object), config: null });
    const cases: [string, string[], number][] = [
      ['null-line.jsonl', [lines[0], 'null'], 2],
      ['null-config.jsonl', [lines[0], nullConfig], 2],
      ['array-config.jsonl', [JSON.stringify({ ...(JSON.parse(lines[0]) as object), config: [] })], 1],
    ];
    for (const [name, content, line] of cases) {
      writeFileSync(join(work, name), content.join('\n') + '\n');
      for (const args of readers(name)) {
        const r = az(args);
        expect(r.stderr).toContain(`${name}:${line}: not an az game record`);
        expect(r.code, `az ${args.join(' ')}: ${r.stderr}`).toBe(2);
      }
    }
  });

  it('says that a JSON file written over several lines is not JSON lines of game records', () => {
    writeFileSync(join(work, 'ratings.json'), JSON.stringify({ game: 'tictactoe', pairs: [{ a: 'random', b: 'minimax', wins: 0, draws: 1, losses: 3 }] }, null, 2) + '\n');
    for (const args of readers('ratings.json')) {
      const r = az(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('ratings.json is not JSON lines of game records');
    }
    // A line that is not JSON in a file of records is still named by its line.
    writeFileSync(join(work, 'cut.jsonl'), `${lines[0]}\n${lines[1].slice(0, 20)}\n`);
    expect(az(['play', '--replay', 'cut.jsonl']).stderr).toContain('az play: cut.jsonl:2: not JSON');
  });

  it('refuses records whose returns, seats or moves are malformed or do not fit the game, naming the file, the line and the field', () => {
    const base = JSON.parse(lines[1]) as Record<string, unknown>;
    const cases: [string, Record<string, unknown>, string][] = [
      ['returns-text', { returns: ['1', '-1'] }, "'returns' must be a list of finite numbers, one per seat"],
      ['returns-null', { returns: [null, null] }, "'returns' must be a list of finite numbers, one per seat"],
      ['returns-object', { returns: { 0: 1 } }, "'returns' must be a list of finite numbers, one per seat"],
      ['returns-short', { returns: [1] }, "'returns' has 1 entries for the game's 2 seats"],
      ['returns-long', { returns: [...(base.returns as number[]), 5] }, "'returns' has 3 entries for the game's 2 seats"],
      ['seat-fraction', { seatAgent: [0, 0.5] }, "'seatAgent' must be a list of non-negative integers, one per seat"],
      ['seat-negative', { seatAgent: [-1, 0] }, "'seatAgent' must be a list of non-negative integers, one per seat"],
      ['seat-outside', { seatAgent: [0, 7] }, "'seatAgent' names agent 7 of a lineup of at most 2 (one per seat)"],
      ['seat-short', { seatAgent: [0] }, "'seatAgent' has 1 entries for the game's 2 seats"],
      ['players-three', { players: ['a', 'b', 'c'] }, "'players' has 3 entries for the game's 2 seats"],
      ['players-numbers', { players: [1, 2] }, "'players' must be a list of agent names, one per seat"],
      ['actions-text', { actions: (base.actions as number[]).map(String) }, "'actions' must be a list of non-negative integers"],
      ['index-text', { index: 'one' }, "'index' must be a non-negative integer"],
    ];
    // Both readers share the field checks (readGameRecords) but check seats each: both read the seat
    // cases and the first field case, compare alone the other field cases (each az run costs seconds).
    const bothReaders = (name: string): boolean => name === 'returns-text' || /short|long|outside|three/.test(name);
    for (const [name, change, message] of cases) {
      const file = `${name}.jsonl`;
      writeFileSync(join(work, file), `${lines[0]}\n${JSON.stringify({ ...base, ...change })}\n`);
      for (const args of bothReaders(name) ? readers(file) : [readers(file)[0]]) {
        const r = az(args);
        expect(r.stderr, `az ${args.join(' ')}`).toContain(`${file}:2: ${message}`);
        expect(r.code, `az ${args.join(' ')}: ${r.stderr}`).toBe(2);
      }
    }
    // A config field every object inherits is as unknown as any other.
    writeFileSync(join(work, 'config-constructor.jsonl'), `${JSON.stringify({ ...base, config: { constructor: 1 } })}\n`);
    const inherited = az(['play', '--replay', 'config-constructor.jsonl']);
    expect(inherited.stderr).toContain("config-constructor.jsonl:1: game 'tictactoe' config: unknown field 'constructor' (it takes no fields)");
    expect(inherited.code).toBe(2);
    // The records as written still replay.
    writeFileSync(join(work, 'good.jsonl'), `${lines[0]}\n${lines[1]}\n`);
    for (const args of readers('good.jsonl')) expect(az(args).code).toBe(0);
  });
});

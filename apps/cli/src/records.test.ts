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
});

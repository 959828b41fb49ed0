// Output paths under a regular file (or otherwise unwritable) are refused before a command starts, with a
// usage error naming the component at fault, for every command that writes a file or a directory.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from './args.js';
import { checkOutputDirectory, checkOutputFile } from './output-paths.js';
import { azInTempDir } from './test-cli.js';

const { work, az } = azInTempDir('az-output-paths-');
writeFileSync(join(work, 'afile'), 'not a directory\n');
mkdirSync(join(work, 'adir'));
// A directory where `runs`, az train's default parent, is a file.
const runsIsAFile = azInTempDir('az-output-paths-runs-');
writeFileSync(join(runsIsAFile.work, 'runs'), '');

/** The message `check` refuses with, or 'accepted'. */
function refusal(check: () => void): string {
  try {
    check();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  return 'accepted';
}

describe('checkOutputDirectory and checkOutputFile', () => {
  it('name the path component that is a file, at any depth', () => {
    const afile = join(work, 'afile');
    expect(refusal(() => checkOutputDirectory('train', '--out', join(afile, 'sub')))).toBe(`az train: cannot write --out ${join(afile, 'sub')}: ${afile} is a file, not a directory`);
    expect(refusal(() => checkOutputDirectory('train', '--out', join(afile, 'sub', 'deeper')))).toContain(`: ${afile} is a file, not a directory`);
    expect(refusal(() => checkOutputDirectory('train', '--out', afile))).toBe(`az train: cannot write --out ${afile}: it is a file, not a directory`);
    expect(refusal(() => checkOutputFile('eval', '--games-out', join(afile, 'games.jsonl')))).toBe(`az eval: cannot write --games-out ${join(afile, 'games.jsonl')}: ${afile} is a file, not a directory`);
    expect(refusal(() => checkOutputFile('eval', '--games-out', join(afile, 'sub', 'games.jsonl')))).toContain(`: ${afile} is a file, not a directory`);
  });

  it('accept what can be written: a directory to create under directories, a file in an existing directory', () => {
    expect(refusal(() => checkOutputDirectory('train', '--out', join(work, 'adir', 'new', 'run')))).toBe('accepted');
    expect(refusal(() => checkOutputDirectory('train', '--out', join(work, 'adir')))).toBe('accepted');
    expect(refusal(() => checkOutputFile('rate', '--out', join(work, 'adir', 'ratings.json')))).toBe('accepted');
    expect(refusal(() => checkOutputFile('rate', '--out', join(work, 'afile')))).toBe('accepted');
    // A file is not created with its directory; a directory is not a file.
    expect(refusal(() => checkOutputFile('rate', '--out', join(work, 'nowhere', 'r.json')))).toBe(`az rate: cannot write --out ${join(work, 'nowhere', 'r.json')}: the directory ${join(work, 'nowhere')} does not exist`);
    expect(refusal(() => checkOutputFile('rate', '--out', join(work, 'adir')))).toBe(`az rate: cannot write --out ${join(work, 'adir')}: it is a directory`);
  });
});

describe('every command that writes refuses a path under a file, exit 2, before it starts', () => {
  const refused = (args: string[], message: string): void => {
    const r = az(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('ENOTDIR');
  };

  it('az train --out (and its default run directory)', () => {
    refused(['train', '--game', 'tictactoe', '--out', 'afile/sub', '--iterations', '1'], 'az train: cannot write --out afile/sub: afile is a file, not a directory');
    // Nothing started: no backend was brought up.
    expect(az(['train', '--game', 'tictactoe', '--out', 'afile/sub']).stderr).not.toContain('backend:');
    const r = runsIsAFile.az(['train', '--game', 'tictactoe', '--iterations', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('az train: cannot write the run directory runs/tictactoe: runs is a file, not a directory');
  });

  it('az eval --games-out and --pgn', () => {
    refused(['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'random', '--games', '2', '--games-out', 'afile/games.jsonl'], 'az eval: cannot write --games-out afile/games.jsonl: afile is a file, not a directory');
    refused(['eval', '--game', 'chess', '--a', 'random', '--b', 'random', '--games', '1', '--pgn', 'afile/games.pgn'], 'az eval: cannot write --pgn afile/games.pgn: afile is a file, not a directory');
  });

  it('az rate --out and --games-out', () => {
    refused(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '2', '--out', 'afile/ratings.json'], 'az rate: cannot write --out afile/ratings.json: afile is a file, not a directory');
    refused(['rate', '--game', 'tictactoe', 'random', 'minimax', '--games', '2', '--games-out', 'afile/games.jsonl'], 'az rate: cannot write --games-out afile/games.jsonl: afile is a file, not a directory');
  });

  it('az report --out and az new-game --dir', () => {
    mkdirSync(join(work, 'run'));
    writeFileSync(join(work, 'run', 'metrics.jsonl'), '');
    refused(['report', 'run', '--out', 'afile/report.html'], 'az report: cannot write --out afile/report.html: afile is a file, not a directory');
    refused(['new-game', 'pebbles', '--dir', 'afile/pebbles'], 'az new-game: cannot write --dir afile/pebbles: afile is a file, not a directory');
  });
});

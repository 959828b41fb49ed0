// `az train --help` says what a run gets when a flag is not given: the framework's defaults, or with
// --game that game's own (its training hints over the framework's), the network included.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { AZ_BIN } from './test-cli.js';
import { TRAIN_SETTING_FLAGS } from './train-flags.js';

function help(args: string[]): { code: number; out: string } {
  const r = spawnSync(process.execPath, [AZ_BIN, 'train', ...args, '--help'], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

describe('az train --help defaults', () => {
  it("lists the framework's defaults, and the rule for the one that depends on the game", () => {
    const { code, out } = help([]);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^Framework defaults/m);
    expect(out).toMatch(/^ {2}--network +mlp:128,128$/m);
    expect(out).toMatch(/^ {2}--iterations +10$/m);
    expect(out).toMatch(/^ {2}--temperature-moves +a quarter of the game's longest game, at most 30$/m);
  });

  it('shows a default for every flag that fills a setting, section by section', () => {
    const { out } = help([]);
    for (const row of TRAIN_SETTING_FLAGS) expect(out).toMatch(new RegExp(`^ {2}--${row.flag} +\\S`, 'm'));
    expect(out).toMatch(/^ Self-play search and recording:$/m);
    expect(out).toMatch(/^ {2}--leaves +8$/m);
  });

  it("with --game, that game's defaults: Connect Four's residual network and its own iterations and games", () => {
    const { code, out } = help(['--game', 'connect4']);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^Defaults for --game connect4/m);
    expect(out).toMatch(/^ {2}--network +resnet:32x2/m);
    expect(out).toMatch(/^ {2}--iterations +48$/m);
    expect(out).toMatch(/^ {2}--games-per-iter +384$/m);
    expect(out).not.toMatch(/--determinizations +\d/); // a perfect-information game
  });

  it('names an unknown game instead of printing the help', () => {
    const { code, out } = help(['--game', 'nosuch']);
    expect(code).not.toBe(0);
    expect(out).toContain("unknown game 'nosuch'");
    expect(out).not.toContain('Defaults for');
  });
});

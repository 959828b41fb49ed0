// The API reference check's reading of TypeDoc's output, on output of the forms TypeDoc 0.28 prints:
// a warning outside the not-yet-documented list fails, a list entry with nothing left fails, and an
// error or an output it cannot account for fails rather than passing unseen. (The check itself runs
// TypeDoc on the repository as the root turbo task check:api-docs in `npm test`.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkConfig, checkedPackages, judge, NOT_YET_DOCUMENTED, parseTypedocOutput, warningFile } from './api-docs.mjs';

const notYet = { packages: ['packages/nn'], files: ['@az/core/src/game.ts'] };
const converting = '[info] Converting project at ./packages/core\n[info] Converting project at ./packages/mcts\n[info] Merging converted projects\n';
const warning = (symbol, file) => `[warning] ${symbol} (Property), defined in ${file}, does not have any documentation`;
const summary = (errors, warnings) => `[${errors ? 'error' : warnings ? 'warning' : 'info'}] Found ${errors} errors and ${warnings} warnings`;
const output = (...lines) => `${converting}${lines.join('\n')}\n`;

describe('parseTypedocOutput', () => {
  it('reads warnings, errors and the closing count, colour codes or not', () => {
    const parsed = parseTypedocOutput(
      '\x1b[93m[warning]\x1b[0m index.Rng.reseed (CallSignature), defined in @az/core/src/rng.ts, does not have any documentation\n' +
        '[error] Failed to convert one or more packages, result will not be merged together\n' +
        '\x1b[91m[error]\x1b[0m Found 2 errors and 1 warnings\n',
    );
    expect(parsed.warnings).toEqual(['index.Rng.reseed (CallSignature), defined in @az/core/src/rng.ts, does not have any documentation']);
    expect(parsed.errors).toEqual(['Failed to convert one or more packages, result will not be merged together']);
    expect(parsed.summary).toEqual({ errors: 2, warnings: 1 });
  });

  it('names the file a warning is about', () => {
    expect(warningFile('testkit.RealComponent.name (Property), defined in @az/core/src/testkit/real-components.ts, does not have any documentation')).toBe('@az/core/src/testkit/real-components.ts');
    expect(warningFile('Failed to resolve link to "Nowhere" in comment for index.Rng')).toBeNull();
  });
});

describe('judge', () => {
  it('passes a run whose warnings are all in files still on the list, and counts them', () => {
    const verdict = judge(output(warning('index.Game.clone', '@az/core/src/game.ts'), warning('index.Game.hash', '@az/core/src/game.ts'), summary(0, 2)), 3, notYet);
    expect(verdict.problems).toEqual([]);
    expect(verdict.pending.get('@az/core/src/game.ts')).toBe(2);
  });

  it('passes a clean run with an empty list (TypeDoc then prints no closing count)', () => {
    expect(judge(output(), 0, { packages: [], files: [] }).problems).toEqual([]);
    expect(judge(output(summary(0, 0)), 0, { packages: [], files: [] }).problems).toEqual([]);
  });

  it('fails on an export without a doc comment outside the list, naming it', () => {
    const missing = warning('index.Rng.reseed', '@az/core/src/rng.ts');
    const verdict = judge(output(warning('index.Game.clone', '@az/core/src/game.ts'), missing, summary(0, 2)), 3, notYet);
    expect(verdict.problems).toEqual([missing.slice('[warning] '.length)]);
    expect(verdict.showOutput).toBe(false);
  });

  it('fails on a warning that names no file (a broken link)', () => {
    const link = '[warning] Failed to resolve link to "Nowhere" in comment for index.Rng';
    expect(judge(output(warning('index.Game.clone', '@az/core/src/game.ts'), link, summary(0, 2)), 3, notYet).problems).toEqual([link.slice('[warning] '.length)]);
  });

  it('fails when a listed file has no warning left, so the list only shrinks', () => {
    expect(judge(output(), 0, notYet).problems).toEqual([expect.stringContaining('@az/core/src/game.ts has no warning left')]);
  });

  it('fails on errors (a type error stops a package from converting) without blaming the list', () => {
    const verdict = judge(output("packages/mcts/src/x.ts:1:1 - error TS2339: Property 'mul' does not exist", '[error] Failed to convert one or more packages, result will not be merged together', summary(2, 0)), 3, notYet);
    expect(verdict.problems).toEqual([expect.stringContaining('TypeDoc reported 2 error(s)')]);
    expect(verdict.showOutput).toBe(true);
  });

  it('fails when it cannot account for every warning TypeDoc counted', () => {
    const verdict = judge(output('[warn] a warning in a form this check does not read', summary(0, 1)), 3, { packages: [], files: [] });
    expect(verdict.problems).toEqual([expect.stringContaining('counted 1 warning(s) but this check read 0')]);
  });

  it('fails when TypeDoc stops before its closing count', () => {
    expect(judge('Error: Cannot find module typedoc\n', 1, notYet).problems).toEqual([expect.stringContaining('stopped before its closing count')]);
  });
});

describe('the configuration it runs', () => {
  const config = JSON.parse(readFileSync(new URL('../typedoc.json', import.meta.url), 'utf8'));

  it("accepts the repository's typedoc.json and refuses one that stops asking for documentation", () => {
    expect(checkConfig(config)).toEqual([]);
    const lax = { ...config, packageOptions: { ...config.packageOptions, validation: { ...config.packageOptions.validation, notDocumented: false } } };
    expect(checkConfig(lax)).toEqual([expect.stringContaining('notDocumented must be true')]);
  });

  it('converts every package of typedoc.json but those not documented yet', () => {
    expect(checkedPackages({ entryPoints: ['packages/core', 'packages/mcts', 'packages/nn'] }, notYet)).toEqual(['packages/core', 'packages/mcts']);
    for (const p of NOT_YET_DOCUMENTED.packages) expect(config.entryPoints).toContain(p);
  });
});

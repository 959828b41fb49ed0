// `az new-game`: the scaffold builds, its own tests pass, and az lists the game once it is installed.
// The scaffold is made in a temp dir outside the monorepo whose node_modules links @az/core and the
// build tools from the workspace, as an installed project would have them (no npm install: offline
// and fast).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scaffoldNames, workspaceRootOf } from './commands/new-game.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'main.js');
const repo = join(here, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'az-new-game-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env, AZ_PLUGINS: '', CI: '1', NO_COLOR: '1' } });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

/** npm run in DIR as from a user's shell (none of this test run's npm_* variables), with what it printed. */
function npmWarnings(dir: string): { code: number; out: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const r = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

function link(projectDir: string, name: string, target: string): void {
  const at = join(projectDir, 'node_modules', name);
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at, 'dir');
}

describe('az new-game names', () => {
  it('derives id, package, export and class names from what was typed', () => {
    expect(scaffoldNames('pebbles')).toEqual({
      id: 'pebbles',
      title: 'Pebbles',
      package: 'az-game-pebbles',
      exportName: 'pebblesPlugin',
      Class: 'Pebbles',
      CONST: 'PEBBLES',
    });
    expect(scaffoldNames('Connect Six')).toMatchObject({ id: 'connect-six', title: 'Connect Six', package: 'az-game-connect-six', exportName: 'connectSixPlugin' });
    expect(scaffoldNames('@me/az-game-hex')).toMatchObject({ id: 'hex', package: '@me/az-game-hex', Class: 'Hex' });
    expect(() => scaffoldNames('42')).toThrow(/must start with a letter.*--id/);
    expect(scaffoldNames('42', { id: 'g42' }).exportName).toBe('g42Plugin');
    // A bad --id is named as the flag, without telling the user to pass the flag they passed.
    expect(() => scaffoldNames('foo', { id: 'BAD' })).toThrow("az new-game: --id 'BAD' must start with a letter and use lowercase letters, digits and '-'");
    expect(() => scaffoldNames('foo', { id: 'BAD' })).not.toThrow(/pass --id/);
  });

  it('refuses a non-empty target as a usage error, said once; creates missing parents; fails at once where no folder can be made', () => {
    // A folder of its own: a second scaffolded pebbles under `work` would be found by the tests below.
    const own = mkdtempSync(join(tmpdir(), 'az-new-game-dirs-'));
    const taken = join(own, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'x'), '');
    const refused = run(process.execPath, [bin, 'new-game', 'pebbles', '--dir', taken], own);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain(`az new-game: ${taken} already exists and is not an empty directory; choose another --dir or name`);
    expect(refused.out).not.toContain('az new-game: az new-game:');
    const nested = join(own, 'a', 'b', 'pebbles');
    expect(run(process.execPath, [bin, 'new-game', 'pebbles', '--dir', nested], own).code).toBe(0);
    expect(existsSync(join(nested, 'package.json'))).toBe(true);
    // /proc holds no new folders: Node's recursive mkdir spins there; this must end with a message.
    if (existsSync('/proc/self')) {
      const proc = run(process.execPath, [bin, 'new-game', 'pebbles', '--dir', '/proc/az-nope/pebbles'], own);
      expect(proc.code).toBe(1);
      expect(proc.out).toContain('az new-game: cannot create /proc/az-nope');
    }
    rmSync(own, { recursive: true, force: true });
  });
});

describe('az new-game', () => {
  const pluginDir = join(work, 'az-game-pebbles');

  it('scaffolds a package whose build and tests pass straight away', () => {
    const made = run(process.execPath, [bin, 'new-game', 'pebbles', '--dir', pluginDir], work);
    expect(made.code, made.out).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'README.md', '.gitignore', '.changeset/config.json', 'src/game.test.ts', 'src/plugin.ts']) {
      expect(existsSync(join(pluginDir, f)), f).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(pluginDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.az).toEqual({ gamePlugin: 'pebblesPlugin' });
    expect(pkg.keywords).toContain('az-game-plugin');
    expect(pkg.peerDependencies).toHaveProperty('@az/core');
    // A plugin's install stays small: no CLI (and with it no ML runtime) and no test framework.
    expect(Object.keys(pkg.devDependencies as Record<string, string>).sort()).toEqual(['@az/core', '@changesets/cli', '@types/node', 'typescript']);
    // npm run in the scaffold must say nothing about its settings (a project .npmrc inside a workspace is warned about on every command).
    const npmSays = npmWarnings(pluginDir);
    expect(npmSays.code, npmSays.out).toBe(0);
    expect(npmSays.out).not.toMatch(/npm warn/i);
    expect(run(process.execPath, [bin, 'new-game', 'pebbles', '--dir', pluginDir], work).code).toBe(2); // refuses to overwrite (a usage error: choose another --dir)

    link(pluginDir, '@az/core', join(repo, 'packages', 'core'));
    for (const tool of ['typescript', '@types/node']) link(pluginDir, tool, join(repo, 'node_modules', tool));
    const tsc = join(pluginDir, 'node_modules', 'typescript', 'bin', 'tsc');
    const typecheck = run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], pluginDir);
    expect(typecheck.code, typecheck.out).toBe(0);
    const build = run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], pluginDir);
    expect(build.code, build.out).toBe(0);
    expect(existsSync(join(pluginDir, 'dist', 'index.js'))).toBe(true);
    // What `npm test` runs there: compile with the tests, then Node's test runner.
    const compiled = run(process.execPath, [tsc, '-p', 'tsconfig.json'], pluginDir);
    expect(compiled.code, compiled.out).toBe(0);
    const tests = run(process.execPath, ['--test'], pluginDir);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.out).toMatch(/^# pass 6$/m);
    expect(tests.out).toMatch(/^# fail 0$/m);
  });

  it('is listed by az games once installed in a project', () => {
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, dependencies: { 'az-game-pebbles': '^0.1.0' } }));
    link(consumer, 'az-game-pebbles', pluginDir);
    const games = run(process.execPath, [bin, 'games'], consumer);
    expect(games.code, games.out).toBe(0);
    expect(games.out).toMatch(/^pebbles\s+Pebbles: 2 players/m);
    expect(games.out).toContain('agents: random, mcts, perfect');
    expect(games.out).not.toContain('not loaded');
  });
});

describe('az new-game inside a workspace', () => {
  it("tells a package scaffolded into a workspace (examples/NAME in az's clone) to install at the workspace root", () => {
    const root = join(work, 'monorepo');
    mkdirSync(join(root, 'examples'), { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/core', 'examples/*'] }));
    expect(workspaceRootOf(join(root, 'examples', 'hex'))).toBe(root);
    expect(workspaceRootOf(join(root, 'other', 'hex'))).toBeUndefined();
    expect(workspaceRootOf(join(work, 'alone'))).toBeUndefined();
    const made = run(process.execPath, [bin, 'new-game', 'hex', '--dir', 'examples/hex'], root);
    expect(made.code, made.out).toBe(0);
    expect(made.out).toMatch(/Next \(examples\/hex is a workspace package of .*monorepo\):\n {2}npm install {2,}# at the workspace root/);
    expect(made.out).toContain('npm run az -- train --game hex');
    expect(made.out).not.toMatch(/^ {2}cd examples\/hex$/m);
    // Marked private inside the workspace, so publishing the workspace never sends it to the public registry.
    expect(JSON.parse(readFileSync(join(root, 'examples', 'hex', 'package.json'), 'utf8')).private).toBe(true);
    const alone = join(work, 'alone-pkg');
    expect(run(process.execPath, [bin, 'new-game', 'solo', '--dir', alone], work).code).toBe(0);
    expect(JSON.parse(readFileSync(join(alone, 'package.json'), 'utf8')).private).toBeUndefined();
  });
});


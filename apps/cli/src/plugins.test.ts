// Plugin discovery against fixture packages in a temp project: each way a plugin can fail is reported
// by package name with the reason, and the other games still load. Most tests call discovery in
// process; one runs the built `az` to see what a user sees.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GAME_CONTRACT_VERSION, GameRegistry, defaultRegistry } from '@az/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverGamePlugins, type DiscoveryResult } from './plugins.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'main.js');
const coreDir = join(here, '..', '..', '..', 'packages', 'core');
const work = mkdtempSync(join(tmpdir(), 'az-plugins-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A plugin module whose game has id `id`; `extra` is spliced into the plugin object. */
function pluginSource(exportName: string, id: string, extra = ''): string {
  return `import { GAME_CONTRACT_VERSION } from '@az/core';
export const ${exportName} = {
  contractVersion: GAME_CONTRACT_VERSION,
  traits: { id: '${id}', name: 'Fixture ${id}', description: 'a fixture', minPlayers: 2, maxPlayers: 2,
    information: 'perfect', chance: false, rewards: 'zero-sum', maxGameLength: 9 },
  configSchema: {},
  create() { throw new Error('fixture games are not playable'); },
  ${extra}
};
`;
}

interface Fixture {
  readonly name: string;
  readonly pkg: Record<string, unknown>;
  /** Files in the package, by relative path; none means no entry file at all. */
  readonly files?: Record<string, string>;
}

const declared = (exportName: string): Record<string, unknown> => ({ az: { gamePlugin: exportName }, keywords: ['az-game-plugin'] });

const fixtures: Fixture[] = [
  { name: 'az-game-good', pkg: { ...declared('goodPlugin'), main: 'index.js' }, files: { 'index.js': pluginSource('goodPlugin', 'good') } },
  // conditional exports, nested, in the order Node applies them
  {
    name: '@scope/az-game-nested',
    pkg: { ...declared('nestedPlugin'), exports: { '.': { types: './x.d.ts', node: { import: './lib/entry.js' }, default: './nope.js' } } },
    files: { 'lib/entry.js': pluginSource('nestedPlugin', 'nested') },
  },
  { name: 'az-game-throws', pkg: declared('p'), files: { 'index.js': `throw new Error('boom while importing');\n` } },
  {
    name: 'az-game-future',
    pkg: declared('futurePlugin'),
    files: { 'index.js': pluginSource('futurePlugin', 'future').replace('contractVersion: GAME_CONTRACT_VERSION', 'contractVersion: GAME_CONTRACT_VERSION + 1') },
  },
  { name: 'az-game-duplicate', pkg: declared('dupPlugin'), files: { 'index.js': pluginSource('dupPlugin', 'good') } },
  { name: 'az-game-misnamed', pkg: declared('missingPlugin'), files: { 'index.js': pluginSource('otherPlugin', 'misnamed') } },
  { name: 'az-game-shapeless', pkg: declared('shapeless'), files: { 'index.js': `export const shapeless = { traits: { id: 'shapeless' } };\n` } },
  { name: 'az-game-unbuilt', pkg: { ...declared('p'), main: './dist/index.js' } },
  { name: 'az-game-keyword-only', pkg: { keywords: ['az-game-plugin'] }, files: { 'index.js': pluginSource('kwPlugin', 'kw') } },
  { name: 'not-a-plugin', pkg: {}, files: { 'index.js': `throw new Error('never imported');\n` } },
  // Entries that leave the package folder: Node refuses the exports target, az refuses the main.
  { name: 'az-game-exports-escape', pkg: { ...declared('escapedPlugin'), exports: { '.': '../escaped-code/index.js' } } },
  { name: 'az-game-main-escape', pkg: { ...declared('escapedPlugin'), main: '../escaped-code/index.js' } },
];

/** Code outside any declared package: importing it is what the escape checks prevent (it counts its imports). */
const escapedCode = `globalThis.__azEscapedImports = (globalThis.__azEscapedImports ?? 0) + 1;
${pluginSource('escapedPlugin', 'escaped')}`;

const project = join(work, 'project');
/** Broken fixtures reported by discovery of the project. */
const PROBLEMS = 10;

beforeAll(() => {
  mkdirSync(join(project, 'node_modules', '@az'), { recursive: true });
  symlinkSync(coreDir, join(project, 'node_modules', '@az', 'core'), 'dir');
  for (const f of fixtures) {
    const dir = join(project, 'node_modules', f.name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: f.name, version: '1.0.0', type: 'module', ...f.pkg }));
    for (const [path, text] of Object.entries(f.files ?? {})) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  }
  // Not a package: node_modules/escaped-code, and project/escaped-code reached by a dependency named '../escaped-code'.
  for (const dir of [join(project, 'node_modules', 'escaped-code'), join(project, 'escaped-code')]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'escaped-code', type: 'module', main: 'index.js', ...declared('escapedPlugin') }));
    writeFileSync(join(dir, 'index.js'), escapedCode);
  }
  const dependencies = { ...Object.fromEntries(fixtures.map((f) => [f.name, '1.0.0'])), '../escaped-code': 'file:../escaped-code' };
  // The project is a plugin itself, so running az inside a plugin's own repository finds it.
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-game', version: '0.0.1', type: 'module', main: 'main.js', az: { gamePlugin: 'minePlugin' }, dependencies }),
  );
  writeFileSync(join(project, 'main.js'), pluginSource('minePlugin', 'mine'));
});

function freshRegistry(): GameRegistry {
  return new GameRegistry(defaultRegistry.container.createChildContainer());
}

function reasonFor(result: DiscoveryResult, packageName: string): string {
  const found = result.problems.filter((p) => p.packageName === packageName);
  expect(found, `problems of ${packageName}`).toHaveLength(1);
  return found[0].reason;
}

describe('game plugin discovery', () => {
  let result: DiscoveryResult;
  let registry: GameRegistry;

  beforeAll(async () => {
    registry = freshRegistry();
    // cliDir null: only the fixture project, not the CLI's built-in games.
    result = await discoverGamePlugins(registry, { cwd: project, cliDir: null, azPlugins: '' });
  });

  it('loads the project itself and its declared dependencies, in order', () => {
    expect(result.loaded.map((l) => [l.packageName, l.gameId, l.source])).toEqual([
      ['my-game', 'mine', 'project'],
      ['az-game-good', 'good', 'project dependency'],
      ['@scope/az-game-nested', 'nested', 'project dependency'],
    ]);
    expect(registry.list().map((p) => p.traits.id)).toEqual(['mine', 'good', 'nested']);
  });

  it('reports each broken plugin by name with the reason', () => {
    expect(reasonFor(result, 'az-game-throws')).toMatch(/importing .*index\.js threw: boom while importing/);
    const future = reasonFor(result, 'az-game-future');
    expect(future).toContain(`built for game contract version ${GAME_CONTRACT_VERSION + 1}`);
    expect(future).toContain(`this @az/core implements version ${GAME_CONTRACT_VERSION}`);
    expect(reasonFor(result, 'az-game-duplicate')).toMatch(/game id 'good' is already registered by az-game-good@1\.0\.0/);
    expect(reasonFor(result, 'az-game-misnamed')).toMatch(/no such export.*it exports: otherPlugin/);
    expect(reasonFor(result, 'az-game-shapeless')).toMatch(/lacks configSchema, create\(\)/);
    expect(reasonFor(result, 'az-game-unbuilt')).toMatch(/dist\/index\.js does not exist \(is the package built\?\)/);
    expect(reasonFor(result, 'az-game-keyword-only')).toMatch(/keyword 'az-game-plugin' but no "az": \{ "gamePlugin"/);
    expect(result.problems.some((p) => p.packageName === 'not-a-plugin')).toBe(false);
    expect(reasonFor(result, 'az-game-exports-escape')).toMatch(/Node cannot resolve its entry: .*Invalid "exports" main target/);
    expect(reasonFor(result, 'az-game-main-escape')).toMatch(/entry file .*escaped-code.index\.js is outside the package folder/);
    expect(reasonFor(result, '../escaped-code')).toMatch(/is not a package name/);
    expect((globalThis as { __azEscapedImports?: number }).__azEscapedImports).toBeUndefined();
    expect(result.problems).toHaveLength(PROBLEMS);
  });

  it('imports each package once, and a second discovery registers nothing twice', async () => {
    const again = await discoverGamePlugins(registry, { cwd: project, cliDir: null, azPlugins: '' });
    expect(again.loaded.map((l) => l.gameId)).toEqual(['mine', 'good', 'nested']);
    expect(again.problems).toHaveLength(PROBLEMS);
    expect(registry.list()).toHaveLength(3);
  });

  it('takes extra packages from AZ_PLUGINS, by name or path', async () => {
    const r = freshRegistry();
    const found = await discoverGamePlugins(r, { cwd: work, cliDir: null, azPlugins: `${join(project, 'node_modules', 'az-game-good')}, az-game-absent` });
    expect(found.loaded.map((l) => [l.gameId, l.source])).toEqual([['good', 'AZ_PLUGINS']]);
    expect(found.problems).toEqual([{ packageName: 'az-game-absent', source: 'AZ_PLUGINS', reason: expect.stringMatching(/not found/) as unknown }]);
  });
});

describe('az with broken plugins installed', () => {
  function az(args: string[], input = ''): { code: number; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8', cwd: project, timeout: 120_000, env: { ...process.env, AZ_PLUGINS: '' } });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  it('az games lists the good games and a line per broken plugin', () => {
    const r = az(['games']);
    expect(r.code).toBe(0);
    for (const id of ['tictactoe', 'chess', 'blob', 'good', 'nested', 'mine']) expect(r.stdout).toMatch(new RegExp(`^${id}\\s`, 'm'));
    expect(r.stdout).toContain(`not loaded (${PROBLEMS}):`);
    // Where each game came from, and where az looked.
    expect(r.stdout).toMatch(/^ {4}from az-game-good@1\.0\.0 \(project dependency, .*az-game-good\)$/m);
    expect(r.stdout).toMatch(/^ {4}from @az\/game-chess@\d+\.\d+\.\d+ \(az CLI dependency, /m);
    expect(r.stdout).toMatch(/looked for game plugins in:\n {2}the project in the current folder, /);
    const json = JSON.parse(az(['games', '--json']).stdout) as { id: string; plugin: { package: string; version: string; source: string } }[];
    expect(json.find((g) => g.id === 'good')?.plugin).toMatchObject({ package: 'az-game-good', version: '1.0.0', source: 'project dependency' });
    expect(r.stdout).toMatch(/game plugin az-game-future \(project dependency\) failed to load: .*built for game contract version/);
    expect(r.stdout).toMatch(/game plugin az-game-throws \(project dependency\) failed to load: .*boom while importing/);
  });

  it('other commands warn on stderr and the built-in games still work', () => {
    const r = az(['play', '--game', 'tictactoe', '--sims', '8'], 'quit\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('you resigned');
    expect(r.stderr).toMatch(/az: warning: game plugin az-game-misnamed .*no such export/);
  });
});

describe('where az looks', () => {
  it('--help imports no plugin code', () => {
    const marker = join(work, 'imported-by-help');
    const dir = join(work, 'help-project');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'help-game', type: 'module', main: 'main.js', az: { gamePlugin: 'helpPlugin' } }));
    writeFileSync(join(dir, 'main.js'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'imported');\nexport const helpPlugin = null;\n`);
    for (const args of [['train', '--help'], ['play', '-h'], ['eval', '--help'], ['games', '--help']]) {
      const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_PLUGINS: '' } });
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(marker), `az ${args.join(' ')} imported the project's plugin`).toBe(false);
    }
    // Without --help the same project is imported (so the check above can fail).
    spawnSync(process.execPath, [bin, 'games'], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_PLUGINS: '' } });
    expect(existsSync(marker)).toBe(true);
  });

  it('never imports from a parent folder: neither its package.json nor its node_modules, and says where it looked', () => {
    // A shared folder (think /tmp) someone else can write to: a package.json that declares itself a
    // plugin, and a node_modules holding a plugin named like one a project below lists.
    const shared = realpathSync(mkdtempSync(join(work, 'shared-')));
    const marker = join(work, 'hostile-imports');
    const hostile = (what: string): string => `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(marker)}, ${JSON.stringify(what + '\n')});\nexport const evilPlugin = null;\n`;
    const evilDir = join(shared, 'node_modules', 'az-game-evil');
    mkdirSync(evilDir, { recursive: true });
    writeFileSync(join(shared, 'package.json'), JSON.stringify({ name: 'shared-evil', type: 'module', main: 'main.js', az: { gamePlugin: 'evilPlugin' }, dependencies: { 'az-game-evil': '1.0.0' } }));
    writeFileSync(join(shared, 'main.js'), hostile('the parent folder package.json'));
    writeFileSync(join(evilDir, 'package.json'), JSON.stringify({ name: 'az-game-evil', version: '1.0.0', type: 'module', main: 'index.js', az: { gamePlugin: 'evilPlugin' } }));
    writeFileSync(join(evilDir, 'index.js'), hostile('az-game-evil from the parent node_modules'));
    // Below it: a folder with no package.json, and a project that lists az-game-evil without installing it.
    const notes = join(shared, 'me', 'notes');
    const mine = join(shared, 'me', 'project');
    mkdirSync(notes, { recursive: true });
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'package.json'), JSON.stringify({ name: 'my-project', private: true, dependencies: { 'az-game-evil': '1.0.0' } }));
    const games = (cwd: string, azPlugins = ''): { code: number | null; stdout: string; stderr: string } => {
      const r = spawnSync(process.execPath, [bin, 'games'], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_PLUGINS: azPlugins } });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const imported = (): string => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

    const fromNotes = games(notes);
    expect(fromNotes.code, fromNotes.stderr).toBe(0);
    expect(fromNotes.stdout).toMatch(/^tictactoe\s/m);
    expect(imported()).toBe('');
    expect(fromNotes.stdout).toContain(`no project: no package.json in the current folder, ${notes}; ${join(shared, 'package.json')} is not used, az never looks in parent folders (run az in ${shared} to use that project)`);
    const fromProject = games(mine);
    expect(fromProject.code, fromProject.stderr).toBe(0);
    expect(imported()).toBe('');
    expect(fromProject.stdout).toContain(`the project in the current folder, ${mine} (its package.json; az never looks in parent folders)`);
    expect(fromProject.stdout).toContain(`its direct dependencies, devDependencies and optionalDependencies, in ${join(mine, 'node_modules')} only`);
    // A name in AZ_PLUGINS is looked up in the current folder's node_modules and in az's own install only.
    const named = games(notes, 'az-game-evil');
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/game plugin az-game-evil \(AZ_PLUGINS\) failed to load: package not found in .*notes.node_modules nor in az's own install/);
    expect(imported()).toBe('');
    // Run in the shared folder itself, az does import it (so the checks above can fail).
    games(shared);
    expect(imported()).toContain('the parent folder package.json');
  });

  it('finds the plugins of a workspace root’s packages', async () => {
    const root = join(work, 'workspace');
    const member = join(root, 'games', 'ws-game');
    mkdirSync(member, { recursive: true });
    mkdirSync(join(root, 'node_modules', '@az'), { recursive: true });
    symlinkSync(coreDir, join(root, 'node_modules', '@az', 'core'), 'dir');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'ws-root', private: true, workspaces: ['games/*', '../outside/*'] }));
    writeFileSync(join(member, 'package.json'), JSON.stringify({ name: 'az-game-ws', version: '2.0.0', type: 'module', exports: { '.': { import: './index.js' } }, ...declared('wsPlugin') }));
    writeFileSync(join(member, 'index.js'), pluginSource('wsPlugin', 'ws'));
    const found = await discoverGamePlugins(freshRegistry(), { cwd: root, cliDir: null, azPlugins: '' });
    expect(found.loaded.map((l) => [l.packageName, l.version, l.gameId, l.source])).toEqual([['az-game-ws', '2.0.0', 'ws', 'workspace package']]);
    expect(found.problems).toEqual([]);
    expect(found.searched.join('\n')).toContain('workspace packages (games/ws-game)');
  });

  it('from this repository’s root, az finds the Connect Four example', () => {
    const repoRoot = join(here, '..', '..', '..');
    const r = spawnSync(process.execPath, [bin, 'games'], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000, env: { ...process.env, AZ_PLUGINS: '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^connect4\s/m);
    expect(r.stdout).toMatch(/from az-game-connect4@\S+ \(workspace package, .*examples.connect4\)/);
  });
});

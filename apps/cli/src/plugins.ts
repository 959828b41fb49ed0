/**
 * Finding game plugins. A package is an az game plugin when its package.json has
 * `"az": { "gamePlugin": "<export name>" }`: the named export of its main module is a GamePlugin.
 * The CLI looks at the dependencies of its own package and of the project in the current
 * directory, imports each plugin and registers it in the DI registry. Built-in games are found the
 * same way (they are dependencies of the CLI). A plugin that fails to load is reported, by name and
 * reason, and the others still work.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type GamePlugin, type GameRegistry, defaultRegistry } from '@az/core';

export interface PluginProblem {
  readonly packageName: string;
  readonly reason: string;
}

export interface DiscoveryResult {
  readonly loaded: readonly { readonly packageName: string; readonly gameId: string }[];
  readonly problems: readonly PluginProblem[];
}

interface PackageJson {
  name?: string;
  main?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  az?: { gamePlugin?: string };
}

function readPackageJson(path: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as PackageJson;
  } catch {
    return null;
  }
}

/** The directory of `name` as Node would find it from `fromDir` (walking up node_modules folders). */
function findPackageDir(name: string, fromDir: string): string | null {
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The nearest package.json at or above `dir`. */
function findOwnPackage(dir: string): { dir: string; pkg: PackageJson } | null {
  let d = resolve(dir);
  for (;;) {
    const pkg = readPackageJson(join(d, 'package.json'));
    if (pkg) return { dir: d, pkg };
    const parent = dirname(d);
    if (parent === d) return null;
    d = parent;
  }
}

function entryFile(pkgDir: string, pkg: PackageJson): string {
  const exp = pkg.exports;
  if (typeof exp === 'string') return join(pkgDir, exp);
  if (exp && typeof exp === 'object') {
    const dot = (exp as Record<string, unknown>)['.'] ?? exp;
    if (typeof dot === 'string') return join(pkgDir, dot);
    if (dot && typeof dot === 'object') {
      const d = dot as Record<string, unknown>;
      const target = d.import ?? d.default ?? d.node;
      if (typeof target === 'string') return join(pkgDir, target);
    }
  }
  return join(pkgDir, pkg.main ?? 'index.js');
}

function isGamePlugin(value: unknown): value is GamePlugin {
  if (!value || typeof value !== 'object') return false;
  const v = value as Partial<GamePlugin>;
  return typeof v.create === 'function' && typeof v.traits === 'object' && v.traits !== null && typeof v.configSchema === 'object';
}

/** Candidate plugin packages: dependencies of the CLI and of the project in `cwd`, deduplicated. */
function candidatePackages(cwd: string): { name: string; fromDir: string }[] {
  const out = new Map<string, string>();
  const cliDir = dirname(fileURLToPath(import.meta.url));
  for (const base of [findOwnPackage(cliDir), findOwnPackage(cwd)]) {
    if (!base) continue;
    const deps = { ...base.pkg.dependencies, ...base.pkg.optionalDependencies, ...base.pkg.devDependencies };
    for (const name of Object.keys(deps)) if (!out.has(name)) out.set(name, base.dir);
  }
  return [...out].map(([name, fromDir]) => ({ name, fromDir }));
}

/** Imports and registers every game plugin found; never throws for a bad plugin. */
export async function discoverGamePlugins(registry: GameRegistry = defaultRegistry, cwd = process.cwd()): Promise<DiscoveryResult> {
  const loaded: { packageName: string; gameId: string }[] = [];
  const problems: PluginProblem[] = [];
  for (const { name, fromDir } of candidatePackages(cwd)) {
    const dir = findPackageDir(name, fromDir);
    if (!dir) continue;
    const pkg = readPackageJson(join(dir, 'package.json'));
    const exportName = pkg?.az?.gamePlugin;
    if (!pkg || !exportName) continue;
    try {
      const mod = (await import(pathToFileURL(entryFile(dir, pkg)).href)) as Record<string, unknown>;
      const plugin = mod[exportName];
      if (!isGamePlugin(plugin)) throw new Error(`its export '${exportName}' is not a game plugin (needs traits, configSchema and create)`);
      if (registry.has(plugin.traits.id) && registry.resolve(plugin.traits.id) === plugin) continue;
      registry.register(plugin);
      loaded.push({ packageName: name, gameId: plugin.traits.id });
    } catch (err) {
      problems.push({ packageName: name, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return { loaded, problems };
}

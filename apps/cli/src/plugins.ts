/**
 * Finding game plugins at start-up (docs/plugin-authoring.md, "Discovery", is the user-facing
 * version of this comment).
 *
 * The declaration. A package is an az game plugin when its package.json has
 *
 *   "az": { "gamePlugin": "<export name>" }      (or a list of export names, one game each)
 *
 * and the named export of its main module (the "." entry of `exports` under the node/import/default
 * conditions, else `main`, else index.js) is a `GamePlugin`. The `az-game-plugin` keyword is for npm
 * search only: a package with the keyword but no `az.gamePlugin` is reported, not guessed at, since
 * az would have to guess which export to register.
 *
 * Where az looks, in this order (the first registration of a game id wins):
 *  1. the project in the current directory (the nearest package.json at or above it), if it declares
 *     a plugin itself: so `az train` inside a plugin's own repository trains that plugin;
 *  2. that project's direct dependencies, devDependencies and optionalDependencies;
 *  3. packages named in the AZ_PLUGINS environment variable (comma-separated package names, resolved
 *     from the current directory, or paths to package directories): for global installs and one-offs;
 *  4. the az CLI's own direct dependencies: the built-in games.
 * Only direct dependencies are looked at, not the whole tree: it is fast, and a game appears because
 * someone chose to install it, not because some package happens to depend on it. Each package is
 * imported once even when found several ways (by real path).
 *
 * A plugin that cannot be loaded (not built, throws on import, missing export, not a plugin, other
 * contract version, duplicate game id) becomes a `PluginProblem` naming the package and the reason;
 * discovery never throws, so the other games still work.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkContractVersion, defaultRegistry, type GamePlugin, type GameRegistry } from '@az/core';

/** The keyword plugin packages carry so `npm search keywords:az-game-plugin` finds them. */
export const PLUGIN_KEYWORD = 'az-game-plugin';

/** How a package was found: the cwd project itself, one of its dependencies, AZ_PLUGINS, or the CLI's dependencies. */
export type PluginSource = 'project' | 'project dependency' | 'AZ_PLUGINS' | 'az CLI dependency';

export interface LoadedPlugin {
  readonly packageName: string;
  readonly version: string;
  readonly gameId: string;
  readonly exportName: string;
  readonly source: PluginSource;
  readonly dir: string;
  /** The file: URL of the module the plugin was imported from (self-play worker processes import it again). */
  readonly moduleUrl: string;
}

export interface PluginProblem {
  readonly packageName: string;
  readonly reason: string;
  readonly source: PluginSource;
}

export interface DiscoveryResult {
  readonly loaded: readonly LoadedPlugin[];
  readonly problems: readonly PluginProblem[];
}

export interface DiscoveryOptions {
  readonly cwd?: string;
  /** The CLI's package directory (default: the one this file is in); tests point it elsewhere. */
  readonly cliDir?: string | null;
  /** Value of AZ_PLUGINS (default: the environment's). */
  readonly azPlugins?: string;
}

interface PackageJson {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  keywords?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  az?: unknown;
}

let lastResult: DiscoveryResult = { loaded: [], problems: [] };

/** What the last `discoverGamePlugins` call found (`az games` lists its problems; `az train` finds modules for worker processes). */
export function lastDiscovery(): DiscoveryResult {
  return lastResult;
}

function readPackageJson(path: string): PackageJson | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as PackageJson) : null;
  } catch {
    return null;
  }
}

/** The directory of package `name` as Node would find it from `fromDir` (walking up node_modules folders). */
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
    if (existsSync(join(d, 'package.json'))) {
      const pkg = readPackageJson(join(d, 'package.json'));
      if (pkg) return { dir: d, pkg };
    }
    const parent = dirname(d);
    if (parent === d) return null;
    d = parent;
  }
}

/** Resolves an `exports` target under the conditions an ESM import in Node uses, in the map's own order. */
function resolveExportTarget(target: unknown): string | null {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const r = resolveExportTarget(t);
      if (r) return r;
    }
    return null;
  }
  if (target && typeof target === 'object') {
    for (const [cond, value] of Object.entries(target)) {
      if (cond === 'node' || cond === 'import' || cond === 'default' || cond === 'module-sync') {
        const r = resolveExportTarget(value);
        if (r) return r;
      }
    }
  }
  return null;
}

/** The file `import('<package>')` loads, or null when the package exports no "." entry. */
function entryFile(pkgDir: string, pkg: PackageJson): string | null {
  const exp = pkg.exports;
  if (exp !== undefined && exp !== null) {
    let dot: unknown = exp;
    if (typeof exp === 'object' && !Array.isArray(exp)) {
      const keys = Object.keys(exp);
      // An exports object is either a map of subpaths ('.', './x') or the conditions of '.' itself.
      if (keys.some((k) => k.startsWith('.'))) dot = (exp as Record<string, unknown>)['.'];
    }
    const target = resolveExportTarget(dot);
    return target ? join(pkgDir, target) : null;
  }
  const main = pkg.main ?? 'index.js';
  const file = join(pkgDir, main);
  // `main` may omit the extension or name a directory, as CommonJS allows.
  for (const candidate of [file, `${file}.js`, join(file, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return file;
}

/** Export names the package declares, or a reason why the declaration is unusable; null when it declares none. */
function declaredExports(pkg: PackageJson): { names: string[] } | { invalid: string } | null {
  const az = pkg.az;
  const keyword = Array.isArray(pkg.keywords) && pkg.keywords.includes(PLUGIN_KEYWORD);
  const field = az && typeof az === 'object' ? (az as { gamePlugin?: unknown }).gamePlugin : undefined;
  if (field === undefined) {
    if (!keyword) return null;
    return {
      invalid: `it has the keyword '${PLUGIN_KEYWORD}' but no "az": { "gamePlugin": "<export name>" } in its package.json (the keyword is for npm search; the field tells az which export to register)`,
    };
  }
  const names = typeof field === 'string' ? [field] : Array.isArray(field) ? field : null;
  if (!names || names.length === 0 || !names.every((n): n is string => typeof n === 'string' && n !== '')) {
    return { invalid: `"az.gamePlugin" in its package.json must be an export name or a list of export names (got ${JSON.stringify(field)})` };
  }
  return { names };
}

/** Why `value` is not a GamePlugin, or null if it is one (the registry checks the traits themselves). */
function notAPlugin(value: unknown): string | null {
  if (!value || typeof value !== 'object') return `it is ${value === null ? 'null' : typeof value}, not a game plugin object`;
  const v = value as Partial<Record<keyof GamePlugin, unknown>>;
  const missing: string[] = [];
  if (!v.traits || typeof v.traits !== 'object') missing.push('traits');
  if (!v.configSchema || typeof v.configSchema !== 'object') missing.push('configSchema');
  if (typeof v.create !== 'function') missing.push('create()');
  return missing.length ? `it is not a game plugin: it lacks ${missing.join(', ')}` : null;
}

interface Candidate {
  readonly name: string;
  readonly dir: string;
  readonly source: PluginSource;
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** The packages to look at, in priority order (see the file comment), each once. */
function candidates(options: DiscoveryOptions, problems: PluginProblem[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (name: string, dir: string | null, source: PluginSource): void => {
    if (!dir) return;
    const key = realDir(dir);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ name, dir, source });
  };
  const depsOf = (pkg: PackageJson): string[] => [
    ...new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]),
  ];

  const cwd = resolve(options.cwd ?? process.cwd());
  const project = findOwnPackage(cwd);
  if (project) {
    add(project.pkg.name ?? project.dir, project.dir, 'project');
    for (const name of depsOf(project.pkg)) add(name, findPackageDir(name, project.dir), 'project dependency');
  }

  const env = options.azPlugins ?? process.env.AZ_PLUGINS ?? '';
  for (const raw of env.split(',').map((s) => s.trim()).filter(Boolean)) {
    const asPath = isAbsolute(raw) || raw.startsWith('.') ? resolve(cwd, raw) : null;
    const dir = asPath ?? findPackageDir(raw, cwd);
    if (!dir || !existsSync(join(dir, 'package.json'))) {
      problems.push({ packageName: raw, source: 'AZ_PLUGINS', reason: asPath ? `no package.json in ${asPath}` : `package not found from ${cwd} (is it installed?)` });
      continue;
    }
    add(readPackageJson(join(dir, 'package.json'))?.name ?? raw, dir, 'AZ_PLUGINS');
  }

  const cliDir = options.cliDir === undefined ? dirname(fileURLToPath(import.meta.url)) : options.cliDir;
  const cli = cliDir ? findOwnPackage(cliDir) : null;
  if (cli) for (const name of depsOf(cli.pkg)) add(name, findPackageDir(name, cli.dir), 'az CLI dependency');
  return out;
}

/**
 * Imports and registers every game plugin found (see the file comment for where az looks). Never
 * throws for a bad plugin: each one becomes a problem naming the package and the reason.
 */
export async function discoverGamePlugins(registry: GameRegistry = defaultRegistry, options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const loaded: LoadedPlugin[] = [];
  const problems: PluginProblem[] = [];
  /** Which package registered each game id, to name it in duplicate-id problems. */
  const owners = new Map<string, string>();

  for (const { name, dir, source } of candidates(options, problems)) {
    const pkg = readPackageJson(join(dir, 'package.json'));
    if (!pkg) continue;
    const declared = declaredExports(pkg);
    if (!declared) continue;
    const packageName = pkg.name ?? name;
    const label = `${packageName}${pkg.version ? `@${pkg.version}` : ''}`;
    const problem = (reason: string): void => {
      problems.push({ packageName, source, reason });
    };
    if ('invalid' in declared) {
      problem(declared.invalid);
      continue;
    }

    const entry = entryFile(dir, pkg);
    if (!entry) {
      problem(`its package.json "exports" has no "." entry that Node can import`);
      continue;
    }
    if (!existsSync(entry)) {
      problem(`its entry file ${entry} does not exist (is the package built?)`);
      continue;
    }
    let mod: Record<string, unknown>;
    let moduleUrl: string;
    try {
      moduleUrl = pathToFileURL(realpathSync(entry)).href;
      mod = (await import(moduleUrl)) as Record<string, unknown>;
    } catch (err) {
      problem(`importing ${entry} threw: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }

    for (const exportName of declared.names) {
      const plugin = mod[exportName];
      if (plugin === undefined) {
        const available = Object.keys(mod);
        problem(
          `it declares the export '${exportName}' (az.gamePlugin) but its module has no such export` +
            (available.length ? ` (it exports: ${available.slice(0, 12).join(', ')}${available.length > 12 ? ', ...' : ''})` : ' (it exports nothing)'),
        );
        continue;
      }
      // A stated contract version first: a plugin built for another contract may not even have today's
      // shape, and "rebuild against another core" is the useful message then. (A missing version is
      // reported by the registry, after the shape check.)
      const id = (plugin as { traits?: { id?: unknown } } | null)?.traits?.id;
      const version = (plugin as { contractVersion?: unknown } | null)?.contractVersion;
      try {
        if (version !== undefined) checkContractVersion(typeof id === 'string' ? id : exportName, version);
      } catch (err) {
        problem(err instanceof Error ? err.message : String(err));
        continue;
      }
      const why = notAPlugin(plugin);
      if (why) {
        problem(`its export '${exportName}': ${why}`);
        continue;
      }
      const gamePlugin = plugin as GamePlugin;
      const gameId = gamePlugin.traits.id;
      // Already registered, as this very object (by the package itself on import, or by an earlier
      // discovery): nothing to register, but it is still this package's game.
      const already = typeof gameId === 'string' && registry.has(gameId) && registry.resolve(gameId) === gamePlugin;
      if (already) {
        if (!owners.has(gameId)) {
          owners.set(gameId, `${label} (${source})`);
          loaded.push({ packageName, version: pkg.version ?? '', gameId, exportName, source, dir, moduleUrl });
        }
        continue;
      }
      if (typeof gameId === 'string' && registry.has(gameId)) {
        const owner = owners.get(gameId);
        problem(`game id '${gameId}' is already registered${owner ? ` by ${owner}` : ''}; this one was not loaded`);
        continue;
      }
      try {
        registry.register(gamePlugin);
      } catch (err) {
        problem(err instanceof Error ? err.message : String(err));
        continue;
      }
      owners.set(gameId, `${label} (${source})`);
      loaded.push({ packageName, version: pkg.version ?? '', gameId, exportName, source, dir, moduleUrl });
    }
  }
  lastResult = { loaded, problems };
  return lastResult;
}

/** One line per problem, as the CLI prints them. */
export function formatProblem(p: PluginProblem): string {
  return `game plugin ${p.packageName} (${p.source}) failed to load: ${p.reason}`;
}

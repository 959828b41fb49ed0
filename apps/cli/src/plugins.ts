/**
 * Finding game plugins at start-up (docs/plugin-authoring.md, "Discovery", is the user-facing
 * version of this comment).
 *
 * The declaration. A package is an az game plugin when its package.json has
 *
 *   "az": { "gamePlugin": "<export name>" }      (or a list of export names, one game each)
 *
 * and the named export of the module `import('<package>')` loads is a `GamePlugin`. The
 * `az-game-plugin` keyword is for npm search only: a package with the keyword but no `az.gamePlugin`
 * is reported, not guessed at, since az would have to guess which export to register.
 *
 * Where az looks, in this order (the first registration of a game id wins):
 *  1. the project in the current directory: the package.json in that very folder, if it declares a
 *     plugin itself: so `az train` inside a plugin's own repository trains it;
 *  2. if that project is an npm workspace root, its workspace packages (so the repository root finds
 *     examples/connect4);
 *  3. that project's direct dependencies, devDependencies and optionalDependencies, in its own
 *     node_modules folder;
 *  4. packages named in the AZ_PLUGINS environment variable (comma-separated package names, looked up
 *     in the current directory's node_modules, then in az's own install; or paths to package
 *     directories): for global installs and one-offs;
 *  5. the az CLI's own direct dependencies: the built-in games.
 * Only direct dependencies are looked at, not the whole tree: it is fast, and a game appears because
 * someone chose to install it, not because some package happens to depend on it. Each package is
 * imported once even when found several ways (by real path).
 *
 * The trust boundary: az imports code from the project the user is in and from its own install, never
 * from a parent folder. Neither a package.json above the current directory nor a node_modules above
 * the project is looked at (Node's own search would walk up to both): whoever can write to a shared
 * parent folder (/tmp, a shared drive) would otherwise run code in every az started below it.
 *
 * Entries are resolved by Node's rules: what `import()` would load (`import-meta-resolve`, which
 * applies `exports` with the node/import/default conditions, else `main`). A dependency whose name is
 * not a package name (`../../x`) and an entry that leaves its package folder (an `exports` target
 * `../x`, a `main` of `../x.js`, a symlink out) are refused: nothing outside a package is imported.
 *
 * A plugin that cannot be loaded (not built, throws on import, missing export, not a plugin, other
 * contract version, duplicate game id) becomes a `PluginProblem` naming the package and the reason;
 * discovery never throws, so the other games still work.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve as resolveImport } from 'import-meta-resolve';
import { checkContractVersion, defaultRegistry, type GamePlugin, type GameRegistry } from '@az/core';

/** The keyword plugin packages carry so `npm search keywords:az-game-plugin` finds them. */
export const PLUGIN_KEYWORD = 'az-game-plugin';

/** How a package was found: the cwd project itself, one of its dependencies, AZ_PLUGINS, or the CLI's dependencies. */
export type PluginSource = 'project' | 'workspace package' | 'project dependency' | 'AZ_PLUGINS' | 'az CLI dependency';

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
  /** Where discovery looked, one line each (for `az games`, so a missing game can be explained). */
  readonly searched: readonly string[];
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
  workspaces?: unknown;
  az?: unknown;
}

let lastResult: DiscoveryResult = { loaded: [], problems: [], searched: [] };

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

/** npm's rule for package names (scoped or not): no path separators besides the scope's, no leading dot. */
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;

export function isPackageName(name: string): boolean {
  return name.length <= 214 && PACKAGE_NAME.test(name);
}

/**
 * The directory of package `name` as Node finds it for a module in `fromDir`: the first folder on
 * Node's own node_modules search path that holds it, which walks up to the root. Only for az's own
 * install (what Node finds for the CLI's own imports). `name` must be a package name (checked by callers).
 */
function findPackageDir(name: string, fromDir: string): string | null {
  const lookup = createRequire(join(resolve(fromDir), 'package.json')).resolve.paths(name) ?? [];
  for (const dir of lookup) {
    const candidate = join(dir, name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  return null;
}

/** Package `name` in `ownerDir`'s own node_modules folder, not in any parent's. `name` must be a package name. */
function installedIn(ownerDir: string, name: string): string | null {
  const dir = join(ownerDir, 'node_modules', name);
  return existsSync(join(dir, 'package.json')) ? dir : null;
}

/** The project az looks in: the package.json in `cwd` itself, never a parent folder's (see the file comment). */
function projectAt(cwd: string): { dir: string; pkg: PackageJson } | null {
  const pkg = readPackageJson(join(cwd, 'package.json'));
  return pkg ? { dir: cwd, pkg } : null;
}

/** The nearest package.json above `dir` (not in it), only to say that az did not use it. */
function packageJsonAbove(dir: string): string | null {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return join(d, 'package.json');
    if (dirname(d) === d) return null;
  }
}

/** The nearest package.json at or above `dir`: az's own package, from one of its files. */
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

/**
 * The package folders of an npm workspace root: each pattern of `workspaces` (a path, or a path whose
 * segments may be `*`), like npm matches them. Patterns that would leave the root are ignored.
 */
function workspaceDirs(rootDir: string, pkg: PackageJson): string[] {
  const ws = pkg.workspaces;
  const patterns = Array.isArray(ws) ? ws : ws && typeof ws === 'object' && Array.isArray((ws as { packages?: unknown }).packages) ? (ws as { packages: unknown[] }).packages : [];
  const out: string[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== 'string' || pattern.startsWith('!')) continue;
    let dirs = [rootDir];
    for (const segment of pattern.split('/').filter((x) => x !== '' && x !== '.')) {
      if (segment === '..' || segment === '**') {
        dirs = [];
        break;
      }
      const matcher = segment.includes('*') ? new RegExp(`^${segment.split('*').map((t) => t.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`) : null;
      dirs = dirs.flatMap((d) => {
        if (!matcher) return existsSync(join(d, segment)) ? [join(d, segment)] : [];
        try {
          return readdirSync(d, { withFileTypes: true })
            .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules' && matcher.test(e.name))
            .map((e) => join(d, e.name));
        } catch {
          return [];
        }
      });
    }
    for (const d of dirs) if (existsSync(join(d, 'package.json'))) out.push(d);
  }
  return out;
}

function isInside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
}

/**
 * The file `import()` of the package in `dir` loads, by Node's rules: found as dependency `name` of the
 * module at `parentUrl`, or (no parent) by the package itself: its own name through `exports`, else its
 * `main`. Throws with the reason when Node would refuse it.
 */
function entryFile(dir: string, pkg: PackageJson, name: string, parentUrl: string | null): string {
  let url: string;
  if (parentUrl) url = resolveImport(name, parentUrl);
  else if (pkg.exports !== undefined && pkg.exports !== null) {
    if (!pkg.name) throw new Error('its package.json has "exports" but no "name", so it cannot be imported by name');
    url = resolveImport(pkg.name, pathToFileURL(join(dir, 'package.json')).href);
  } else {
    // No exports: `main` (else index.js), as Node loads a package without exports.
    try {
      return createRequire(join(dir, 'package.json')).resolve(dir);
    } catch {
      return join(dir, pkg.main ?? 'index.js');
    }
  }
  if (!url.startsWith('file:')) throw new Error(`it resolves to ${url}, not a file`);
  return fileURLToPath(url);
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
  /** The package.json URL of the package that depends on it (Node resolves the entry from there); null for a package taken by its folder. */
  readonly parentUrl: string | null;
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** The packages to look at, in priority order (see the file comment), each once, and where they were looked for. */
function candidates(options: DiscoveryOptions, problems: PluginProblem[]): { list: Candidate[]; searched: string[] } {
  const out: Candidate[] = [];
  const searched: string[] = [];
  const seen = new Set<string>();
  const add = (name: string, dir: string | null, source: PluginSource, parentUrl: string | null): void => {
    if (!dir) return;
    const key = realDir(dir);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ name, dir, source, parentUrl });
  };
  const addDependencies = (owner: { dir: string; pkg: PackageJson }, source: PluginSource, find: (name: string) => string | null): void => {
    const names = [...new Set([...Object.keys(owner.pkg.dependencies ?? {}), ...Object.keys(owner.pkg.devDependencies ?? {}), ...Object.keys(owner.pkg.optionalDependencies ?? {})])];
    const parentUrl = pathToFileURL(join(owner.dir, 'package.json')).href;
    for (const name of names) {
      if (!isPackageName(name)) {
        problems.push({ packageName: name, source, reason: `'${name}' in ${join(owner.dir, 'package.json')} is not a package name; az does not look outside node_modules for it` });
        continue;
      }
      add(name, find(name), source, parentUrl);
    }
  };

  const cwd = resolve(options.cwd ?? process.cwd());
  const cliDir = options.cliDir === undefined ? dirname(fileURLToPath(import.meta.url)) : options.cliDir;
  const cli = cliDir ? findOwnPackage(cliDir) : null;
  const project = projectAt(cwd);
  if (project) {
    searched.push(`the project in the current folder, ${project.dir} (its package.json; az never looks in parent folders)`);
    add(project.pkg.name ?? project.dir, project.dir, 'project', null);
    const members = workspaceDirs(project.dir, project.pkg);
    if (members.length) searched.push(`its ${members.length} workspace packages (${members.map((d) => relative(project.dir, d)).join(', ')})`);
    for (const dir of members) add(readPackageJson(join(dir, 'package.json'))?.name ?? dir, dir, 'workspace package', null);
    searched.push(`its direct dependencies, devDependencies and optionalDependencies, in ${join(project.dir, 'node_modules')} only`);
    addDependencies(project, 'project dependency', (name) => installedIn(project.dir, name));
  } else {
    const above = packageJsonAbove(cwd);
    const unused = above ? `; ${above} is not used, az never looks in parent folders (run az in ${dirname(above)} to use that project)` : '';
    searched.push(`no project: no ${existsSync(join(cwd, 'package.json')) ? 'readable ' : ''}package.json in the current folder, ${cwd}${unused}`);
  }

  const env = options.azPlugins ?? process.env.AZ_PLUGINS ?? '';
  const named = env.split(',').map((s) => s.trim()).filter(Boolean);
  searched.push(named.length ? `AZ_PLUGINS: ${named.join(', ')} (names looked up in ${join(cwd, 'node_modules')}, then in az's own install)` : 'AZ_PLUGINS (not set)');
  for (const raw of named) {
    const asPath = isAbsolute(raw) || raw.startsWith('.') ? resolve(cwd, raw) : null;
    if (!asPath && !isPackageName(raw)) {
      problems.push({ packageName: raw, source: 'AZ_PLUGINS', reason: `'${raw}' is neither a package name nor a path (start paths with ./ or /)` });
      continue;
    }
    // A name: in the current folder's node_modules, else where Node finds it for az itself (a global install's siblings).
    const local = asPath ? null : installedIn(cwd, raw);
    const owner = local ? cwd : cli?.dir;
    const dir = asPath ?? local ?? (cli ? findPackageDir(raw, cli.dir) : null);
    if (!dir || !existsSync(join(dir, 'package.json'))) {
      problems.push({
        packageName: raw,
        source: 'AZ_PLUGINS',
        reason: asPath ? `no package.json in ${asPath}` : `package not found in ${join(cwd, 'node_modules')} nor in az's own install (is it installed? a path, ./dir or /dir, names a folder anywhere)`,
      });
      continue;
    }
    const parentUrl = asPath || !owner ? null : pathToFileURL(join(owner, 'package.json')).href;
    add(readPackageJson(join(dir, 'package.json'))?.name ?? raw, dir, 'AZ_PLUGINS', parentUrl);
  }

  if (cli) {
    searched.push(`the az CLI's dependencies (${cli.dir}, az's own install)`);
    addDependencies(cli, 'az CLI dependency', (name) => findPackageDir(name, cli.dir));
  }
  return { list: out, searched };
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

  const { list, searched } = candidates(options, problems);
  for (const { name, dir, source, parentUrl } of list) {
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

    let entry: string;
    try {
      entry = entryFile(dir, pkg, name, parentUrl);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const message = err instanceof Error ? err.message : String(err);
      if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') problem(`its package.json "exports" has no "." entry that Node can import`);
      // Node found the package but none of the files its `main` (else index.js) names.
      else if (code === 'ERR_MODULE_NOT_FOUND') problem(`its entry file ${join(dir, pkg.main ?? 'index.js')} does not exist (is the package built?)`);
      else problem(`Node cannot resolve its entry: ${message}`);
      continue;
    }
    if (!existsSync(entry)) {
      problem(`its entry file ${entry} does not exist (is the package built?)`);
      continue;
    }
    if (!isInside(realpathSync(entry), realDir(dir))) {
      problem(`its entry file ${entry} is outside the package folder ${dir}; az imports nothing from outside a package`);
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
  lastResult = { loaded, problems, searched };
  return lastResult;
}

/** One line per problem, as the CLI prints them. */
export function formatProblem(p: PluginProblem): string {
  return `game plugin ${p.packageName} (${p.source}) failed to load: ${p.reason}`;
}

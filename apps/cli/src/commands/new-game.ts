/**
 * `az new-game <name>`: scaffolds a game plugin package from templates/new-game (shipped with the
 * CLI). The result is a complete, small, playable game of the kind asked for (`--template`: minimal
 * Nim, a board game, a hidden-information card game) whose tests (rules + the contract test-kit) pass
 * straight away and which `az games` lists once it is built and installed: authors replace the rules
 * rather than start from an empty file.
 *
 * templates/new-game/common holds the package files every kind shares; templates/new-game/<kind> its
 * sources and a template.json of the text its README and the command's output need. Templates are
 * files with a `.tmpl` suffix (so neither tsc nor vitest in this package picks them up) and
 * `{{placeholder}}` fields; `gitignore` and `changeset/` are renamed to `.gitignore` and `.changeset/`
 * on the way out, because npm drops `.gitignore` files from published packages. No `.npmrc`: inside a
 * workspace npm warns on every command that it ignores one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { helpText, parseFlags, UsageError } from '../args.js';
import { checkOutputDirectory } from '../output-paths.js';

export const newGameSpec = {
  name: 'new-game',
  summary: 'Create a new game plugin package: rules, encoder, masker, tests, README, changesets.',
  usage: 'az new-game <name> [--template minimal|board|cards] [--dir DIR] [--package NAME] [--id ID]',
  positionals: 1,
  flags: {
    template: {
      type: 'string',
      description:
        'what to start from: minimal (Nim, the smallest plugin), board (a two-player grid game with planes, symmetries and a pass move) or cards (a hidden-information game with a determinizer and an own-view encoder); default minimal',
      placeholder: 'KIND',
    },
    dir: { type: 'string', description: 'where to create it (default ./<package name>); must not exist or be empty', placeholder: 'DIR' },
    package: { type: 'string', description: 'npm package name (default az-game-<id>)', placeholder: 'NAME' },
    id: { type: 'string', description: "game id for --game (default from <name>: lowercase letters, digits and '-')", placeholder: 'ID' },
  },
  examples: ['az new-game pebbles', 'az new-game stones --template board', 'az new-game duel --template cards', 'az new-game "Connect Six" --dir games/connect6', 'az new-game @me/az-game-hex --id hex'],
} as const;

const ID_PATTERN = /^[a-z][a-z0-9-]*$/;
// npm's rules, in short: lowercase, URL-safe, optionally scoped, at most 214 characters.
const PACKAGE_PATTERN = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

export interface ScaffoldNames {
  readonly id: string;
  readonly title: string;
  readonly package: string;
  readonly exportName: string;
  readonly Class: string;
  readonly CONST: string;
}

/** Names for everything the templates mention, from what the user typed. Throws UsageError when they cannot be made valid. */
export function scaffoldNames(name: string, options: { id?: string; package?: string } = {}): ScaffoldNames {
  const trimmed = name.trim();
  if (!trimmed) throw new UsageError('az new-game: <name> must not be empty');
  // A package-like name ('az-game-hex', '@me/az-game-hex') gives the package; the id is what follows 'az-game-'.
  const packageLike = trimmed.startsWith('@') || trimmed.startsWith('az-game-');
  const base = (packageLike ? trimmed.slice(trimmed.lastIndexOf('/') + 1) : trimmed).replace(/^az-game-/, '');
  const id =
    options.id ??
    base
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  if (!ID_PATTERN.test(id)) {
    throw new UsageError(
      options.id !== undefined
        ? `az new-game: --id '${id}' must start with a letter and use lowercase letters, digits and '-'`
        : `az new-game: game id '${id}' (from '${name}') must start with a letter and use lowercase letters, digits and '-'; pass --id`,
    );
  }
  const pkg = options.package ?? (packageLike ? trimmed : `az-game-${id}`);
  if (!PACKAGE_PATTERN.test(pkg) || pkg.length > 214) throw new UsageError(`az new-game: '${pkg}' is not a valid npm package name (lowercase, URL-safe, optionally @scope/)`);
  const words = id.split('-').filter(Boolean);
  const cap = (w: string): string => w[0].toUpperCase() + w.slice(1);
  const title = packageLike || /^[a-z0-9-]+$/.test(trimmed) ? words.map(cap).join(' ') : trimmed;
  const Class = words.map(cap).join('');
  return {
    id,
    title,
    package: pkg,
    exportName: `${Class[0].toLowerCase()}${Class.slice(1)}Plugin`,
    Class,
    CONST: words.join('_').toUpperCase(),
  };
}

const templateRoot = fileURLToPath(new URL('../../templates/new-game/', import.meta.url));

export const TEMPLATE_KINDS = ['minimal', 'board', 'cards'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** The text a template kind gives its README and the command's closing advice (its template.json). */
interface TemplateText {
  readonly summary: string;
  readonly rulesSummary: string;
  readonly bot: string;
  readonly settingsTable: string;
  readonly configExample: string;
  readonly sourceList: string;
  readonly replaceHint: string;
}

function templateText(kind: TemplateKind): TemplateText {
  return JSON.parse(readFileSync(join(templateRoot, kind, 'template.json'), 'utf8')) as TemplateText;
}

export function parseTemplateKind(value: string | undefined): TemplateKind {
  if (value === undefined) return 'minimal';
  if ((TEMPLATE_KINDS as readonly string[]).includes(value)) return value as TemplateKind;
  throw new UsageError(`az new-game: --template '${value}' is not a template; choose ${TEMPLATE_KINDS.join(', ')}`);
}

function templateFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...templateFiles(full, `${prefix}${entry}/`));
    else if (entry.endsWith('.tmpl')) out.push(`${prefix}${entry}`);
  }
  return out;
}

function outputPath(templatePath: string): string {
  return templatePath
    .replace(/\.tmpl$/, '')
    .replace(/^gitignore$/, '.gitignore')
    .replace(/^changeset\//, '.changeset/');
}

/** `^x.y.z` for an exact version, the range itself otherwise. */
function caretRange(spec: string | undefined, fallback: string): string {
  if (!spec) return `^${fallback}`;
  return /^\d+\.\d+\.\d+$/.test(spec) ? `^${spec}` : spec;
}

/**
 * Creates `dir` and its missing parents one level at a time. Node's recursive mkdirSync spins forever
 * where a parent cannot hold directories (under /proc); one level at a time fails at once, naming it.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      throw new Error(`cannot create ${d}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Writes the package into `dir` from the shared files and those of `kind`; returns the files written, relative to it. */
export function scaffoldGame(names: ScaffoldNames, dir: string, kind: TemplateKind = 'minimal'): string[] {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new UsageError(`az new-game: ${dir} already exists and is not an empty directory; choose another --dir or name`);
  }
  makeDirectory(dir);
  const cliPackage = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
  const fields: Record<string, string> = {
    ...names,
    ...templateText(kind),
    template: kind,
    coreRange: caretRange(cliPackage.dependencies?.['@az/core'], cliPackage.version),
    cliRange: `^${cliPackage.version}`,
  };
  const written: string[] = [];
  for (const [root, file] of [...templateFiles(join(templateRoot, 'common')).map((f) => ['common', f]), ...templateFiles(join(templateRoot, kind)).map((f) => [kind, f])]) {
    const text = readFileSync(join(templateRoot, root, file), 'utf8').replace(/\{\{(\w+)\}\}/g, (whole, key: string) => {
      const value = fields[key];
      if (value === undefined) throw new Error(`template ${file} uses an unknown field ${whole}`);
      return value;
    });
    const out = join(dir, outputPath(file));
    mkdirSync(resolve(out, '..'), { recursive: true });
    writeFileSync(out, outputPath(file) === 'package.json' && workspaceRootOf(dir) ? privateManifest(text) : text);
    written.push(outputPath(file));
  }
  return written;
}

/**
 * A package scaffolded into a workspace (az's own clone: examples/NAME) is marked private: publishing
 * the workspace (changesets, as az's release path does) then passes it over instead of sending it to the
 * public registry. Taking the mark out is the one step to publish it.
 */
function privateManifest(text: string): string {
  const manifest = JSON.parse(text) as Record<string, unknown>;
  return `${JSON.stringify({ name: manifest.name, version: manifest.version, private: true, ...manifest }, null, 2)}\n`;
}

export async function newGameCommand(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parseFlags(newGameSpec, argv);
  if (flags.help) {
    console.log(helpText(newGameSpec));
    return 0;
  }
  const [name] = positionals;
  if (name === undefined) throw new UsageError('az new-game: give the game a name, e.g. az new-game pebbles');
  const names = scaffoldNames(name, { id: flags.id, package: flags.package });
  checkOutputDirectory('new-game', flags.dir ? '--dir' : 'the package directory', flags.dir ?? basename(names.package));
  const dir = resolve(flags.dir ?? basename(names.package));
  const kind = parseTemplateKind(flags.template);
  const files = scaffoldGame(names, dir, kind);
  const shown = relative(process.cwd(), dir) || '.';
  console.log(`created ${names.package} (game '${names.id}', export ${names.exportName}, template ${kind}: ${templateText(kind).summary}) in ${shown}:`);
  for (const f of files) console.log(`  ${f}`);
  const workspace = workspaceRootOf(dir);
  console.log(['', ...(workspace ? nextInWorkspace(workspace, shown, names.id) : nextAlone(shown, names.id)), '', `Then ${templateText(kind).replaceHint}; docs/plugin-authoring.md explains the contract.`].join('\n'));
  return 0;
}

/** The steps after scaffolding a package of its own. */
function nextAlone(shown: string, id: string): string[] {
  return ['Next:', `  cd ${shown}`, '  npm install', '  npm run build && npm test', `  npx @az/cli train --game ${id}      # az finds the plugin in the current project`];
}

/** The steps after scaffolding into a workspace (az's own clone: examples/NAME): install at its root, which links the package. */
function nextInWorkspace(root: string, shown: string, id: string): string[] {
  const rootShown = relative(process.cwd(), root) || '.';
  const fromRoot = rootShown === '.' ? '' : `cd ${rootShown} && `;
  return [
    `Next (${shown} is a workspace package of ${root}):`,
    `  ${fromRoot}npm install                 # at the workspace root: links the new package`,
    `  (cd ${shown} && npm run build && npm test)`,
    `  ${fromRoot}npm run az -- games         # in az's own clone: builds the CLI and every plugin under examples/, lists '${id}'`,
    `  ${fromRoot}npm run az -- train --game ${id}`,
    `(package.json says "private": true, so publishing the workspace passes it over; take it out to publish ${shown} on its own)`,
  ];
}

/**
 * The npm workspace root that lists `dir` among its workspaces (a `name` or a `folder/*` pattern), found
 * from the nearest package.json above `dir`; undefined when `dir` is a package of its own.
 */
export function workspaceRootOf(dir: string): string | undefined {
  for (let d = dirname(resolve(dir)); ; d = dirname(d)) {
    const manifest = join(d, 'package.json');
    if (existsSync(manifest)) {
      let workspaces: unknown;
      try {
        workspaces = (JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces;
      } catch {
        return undefined;
      }
      const list = Array.isArray(workspaces) ? workspaces : (workspaces as { packages?: unknown } | undefined)?.packages;
      if (!Array.isArray(list)) return undefined;
      const rel = relative(d, resolve(dir)).split(sep).join('/');
      const listed = list.some((w) => typeof w === 'string' && (w === rel || (w.endsWith('/*') && posixDirname(rel) === w.slice(0, -2))));
      return listed ? d : undefined;
    }
    if (dirname(d) === d) return undefined;
  }
}

function posixDirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

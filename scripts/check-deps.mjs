#!/usr/bin/env node
/**
 * The dependency direction, checked: core <- mcts <- imperfect-info <- trainer <- cli and core <- nn (the
 * network stack) <- trainer; games import core (Blob also mcts and imperfect-info) and only the cli
 * (and chess-uci) import games. For every workspace package it reads
 * the imports of its sources (src/ and bench/) and fails when
 * - a source imports a workspace package the layer table does not allow (tests may also import what
 *   the table allows as a test-only dependency: a trainer test plays tic-tac-toe);
 * - a source imports a package its package.json does not declare (dependencies, peer, or for tests
 *   and benches also devDependencies and the root's tooling, e.g. vitest), which works in the monorepo by hoisting and breaks when installed;
 * - a relative import leaves the package's folder.
 *
 * Usage: node scripts/check-deps.mjs [--root DIR]. Exit 1 with one line per violation.
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What each workspace package may import from the others. `runtime`: from its sources; `test`: also from
 * its tests and benches. Games are leaves of the rules side: a game never imports another game, nn or
 * the trainer. The bench helpers and the examples are outside the layering (benches span packages).
 */
export const LAYERS = {
  '@az/core': { runtime: [], test: [] },
  // This repository's integration-test harness (real components, a Redis server): private, imports no
  // workspace package, and only tests import it.
  '@az/test-harness': { runtime: [], test: [] },
  '@az/nn': { runtime: ['@az/core'], test: ['@az/bench'] },
  '@az/mcts': { runtime: ['@az/core'], test: [] },
  '@az/imperfect-info': { runtime: ['@az/core', '@az/mcts'], test: [] },
  '@az/game-tictactoe': { runtime: ['@az/core'], test: ['@az/mcts'] },
  '@az/game-chess': { runtime: ['@az/core'], test: ['@az/mcts', '@az/bench'] },
  '@az/game-blob': { runtime: ['@az/core', '@az/mcts', '@az/imperfect-info'], test: [] },
  // Chess tooling above the chess rules (UCI engines as agents, the model as an engine): the games' layer.
  '@az/chess-uci': { runtime: ['@az/core', '@az/game-chess'], test: ['@az/test-harness'] },
  '@az/trainer-multigpu': {
    runtime: ['@az/core', '@az/nn', '@az/mcts', '@az/imperfect-info'],
    test: ['@az/game-tictactoe', '@az/game-chess', '@az/game-blob', '@az/test-harness'],
  },
  '@az/cli': {
    runtime: ['@az/core', '@az/nn', '@az/mcts', '@az/imperfect-info', '@az/game-tictactoe', '@az/game-chess', '@az/game-blob', '@az/chess-uci', '@az/trainer-multigpu'],
    test: ['az-game-connect4', '@az/test-harness'],
  },
};

/**
 * A workspace package the table does not name is a game plugin (examples/connect4, or one scaffolded with
 * `az new-game --dir examples/NAME`): it may import what a built-in game may, and nothing above it.
 */
export const PLUGIN_LAYER = { runtime: ['@az/core', '@az/mcts', '@az/imperfect-info'], test: ['@az/core', '@az/mcts', '@az/imperfect-info'] };

const SOURCE = /\.(ts|mts|js|mjs)$/;
const TEST = /(\.test(-d)?\.|\/test-[^/]*$|\/bench\/)/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"]([^'"]+)['"]/gm;
const BUILTIN = new Set(builtinModules);

/** The package a bare specifier names: '@scope/name/sub' -> '@scope/name', 'name/sub' -> 'name'. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Strip comments so an import named in a comment or a doc example is not read as one. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/**
 * Every workspace package with its folder and manifest, and whether a folder pattern (`examples/*`) found it
 * rather than its own name in the root's workspaces; a folder without package.json is passed over.
 */
function workspacePackages(root, manifest) {
  const found = [];
  for (const workspace of manifest.workspaces ?? []) {
    const dirs = workspace.endsWith('/*')
      ? readdirSync(join(root, workspace.slice(0, -2))).map((d) => join(workspace.slice(0, -2), d))
      : [workspace];
    for (const dir of dirs) {
      const pkgPath = join(root, dir, 'package.json');
      if (existsSync(pkgPath)) found.push({ dir, pkg: JSON.parse(readFileSync(pkgPath, 'utf8')), byPattern: workspace.endsWith('/*') });
    }
  }
  return found;
}

/** The layer table, with every package a folder pattern found that the table does not name as a plugin. */
function layersOf(packages) {
  const layers = { ...LAYERS };
  for (const { pkg, byPattern } of packages) {
    if (byPattern && !(pkg.name in layers)) layers[pkg.name] = PLUGIN_LAYER;
  }
  return layers;
}

export function checkDependencies(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // The repository's own tooling (vitest, typescript) is a root devDependency, shared by every test.
  const rootDevDeps = new Set(Object.keys(manifest.devDependencies ?? {}));
  const violations = [];
  const packages = workspacePackages(root, manifest);
  const layers = layersOf(packages);
  for (const { dir, pkg } of packages) {
    const layer = layers[pkg.name];
    if (layer === undefined) {
      if (pkg.name !== '@az/bench') violations.push(`${dir}: workspace package ${pkg.name} has no entry in the layer table (scripts/check-deps.mjs LAYERS)`);
      continue;
    }
    const runtimeDeps = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const devDeps = new Set(Object.keys(pkg.devDependencies ?? {}));
    const pkgDir = resolve(root, dir);
    for (const file of [...walk(join(pkgDir, 'src')), ...walk(join(pkgDir, 'bench'))]) {
      const rel = relative(root, file);
      const isTest = TEST.test(file.split(sep).join('/'));
      const text = stripComments(readFileSync(file, 'utf8'));
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3];
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (target !== pkgDir && !target.startsWith(pkgDir + sep)) violations.push(`${rel}: relative import '${spec}' leaves the package ${pkg.name}`);
          continue;
        }
        if (spec.startsWith('node:') || BUILTIN.has(spec) || BUILTIN.has(packageOf(spec))) continue;
        const name = packageOf(spec);
        if (name === pkg.name) continue;
        const declared = runtimeDeps.has(name) || (isTest && (devDeps.has(name) || rootDevDeps.has(name)));
        if (!declared) violations.push(`${rel}: imports '${name}', which ${pkg.name}'s package.json does not declare${isTest ? ' (not even as a devDependency)' : runtimeDeps.has(name) || !devDeps.has(name) ? '' : ' as a runtime dependency'}`);
        if (name in layers || name === '@az/bench') {
          const allowed = layer.runtime.includes(name) || (isTest && layer.test.includes(name));
          if (!allowed) violations.push(`${rel}: ${pkg.name} may not import ${name} (dependencies point one way: core <- mcts <- imperfect-info <- trainer <- cli, core <- nn <- trainer; games import core (Blob also mcts and imperfect-info) and only the cli (and chess-uci) import games)`);
        }
      }
    }
    for (const dep of runtimeDeps) {
      if (dep in layers && !layer.runtime.includes(dep)) violations.push(`${dir}/package.json: ${pkg.name} depends on ${dep}, against the layer table`);
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--root');
  const root = i > 0 ? resolve(process.argv[i + 1]) : join(dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkDependencies(root);
  if (violations.length > 0) {
    console.error(`dependency check: ${violations.length} violation(s)\n${violations.map((v) => '  ' + v).join('\n')}`);
    process.exit(1);
  }
  console.log('dependency check: every import follows core <- mcts <- imperfect-info <- trainer <- cli, core <- nn <- trainer; games import core (Blob also mcts and imperfect-info) and only the cli (and chess-uci) import games, and every package declares what it imports');
}

#!/usr/bin/env node
/**
 * Pack smoke test: do the published packages work outside the monorepo?
 *
 * `npm pack`s @az/core, @az/mcts and @az/game-tictactoe (as built: run `npm run build` first),
 * installs the three tarballs into an empty temp project with `npm install --prefer-offline` (their
 * external dependencies, tfjs and friends, come from the npm cache the monorepo's own install filled
 * where it can; `npm ci` caches tarballs but not the registry metadata an install without a lockfile
 * asks for, so on a fresh machine that comes from the registry; no workspace links), and runs a script there that registers tic-tac-toe, checks it with
 * the contract test-kit, and runs short searches: rollout MCTS must find a winning move, and a tiny
 * tfjs network must evaluate positions through NetworkEvaluator, and so must the same network exported to
 * ONNX on onnxruntime-node (its CPU library must load from the installed package: the .npmrc skips only
 * the CUDA download).
 *
 * Usage: node scripts/pack-smoke.mjs [--offline] [--keep]
 *   --offline         never touch the registry (needs a cache that already holds the metadata)
 *   --keep            keep the temp directory and print its path
 * Exit status 0 on success; on failure the failing step and its output are printed.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packages = [
  { name: '@az/core', dir: 'packages/core' },
  { name: '@az/mcts', dir: 'packages/mcts' },
  { name: '@az/game-tictactoe', dir: 'packages/game-tictactoe' },
];
const args = new Set(process.argv.slice(2));
const network = args.has('--offline') ? '--offline' : '--prefer-offline';
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'az-pack-smoke-'));

function step(title) {
  console.log(`pack-smoke: ${title} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
}

/** A failure already reported on stderr. */
class Reported extends Error {}

function run(cmd, argv, cwd) {
  // npm's own config warnings about the project .npmrc are noise here; everything else is shown on failure.
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`pack-smoke: FAILED: ${cmd} ${argv.join(' ')} (in ${cwd}), exit ${r.status}\n${r.stdout}\n${r.stderr}`);
    throw new Reported('step failed');
  }
  return r.stdout;
}

function fail(message) {
  console.error(`pack-smoke: FAILED: ${message}`);
  throw new Reported(message);
}

const smokeScript = `
import { GameRegistry, Rng, defaultRegistry } from '@az/core';
import { initBackend, buildModel, createInferenceModel, createInferenceModelFor } from '@az/nn';
import { testGameContract } from '@az/core/testkit';
import { MctsAgent, RolloutEvaluator, NetworkEvaluator } from '@az/mcts';
import { registerTicTacToe, ticTacToePlugin } from '@az/game-tictactoe';

const registry = new GameRegistry(defaultRegistry.container.createChildContainer());
registerTicTacToe(registry);
const game = registry.create('tictactoe');

const report = await testGameContract(ticTacToePlugin, { playouts: 8 });
if (report.skipped.length) throw new Error('contract checks skipped: ' + report.skipped.join('; '));

// X has a1 and b1 (cells 0, 1); O has a2, b2 (3, 4); X to move must take c1 (cell 2).
const state = game.initialState(new Rng(0));
for (const a of [0, 3, 1, 4]) game.applyAction(state, a, new Rng(0));
const rollout = MctsAgent.create(game, new RolloutEvaluator(game, 1), { search: { simulations: 200 }, seed: 1 });
const [move] = await rollout.act([state]);
if (move !== 2) throw new Error('rollout MCTS chose ' + move + ', not the winning move 2');

const backend = await initBackend('auto');
const config = { spec: { kind: 'mlp', hidden: [16] }, inputShape: game.encoder.shape, actionSize: game.masker.actionSize, numSeats: 2 };
const net = createInferenceModel(buildModel(config, { seed: 1 }), config);
const agent = MctsAgent.create(game, new NetworkEvaluator(net), { search: { simulations: 16 }, seed: 1 });
const [netMove] = await agent.act([state, game.initialState(new Rng(0))]);
if (!(netMove >= 0 && netMove < 9)) throw new Error('network MCTS returned ' + netMove);

const onnx = await createInferenceModelFor(buildModel(config, { seed: 1 }), config, { backend: 'onnx', threads: 1, ownsModel: true });
const onnxAgent = MctsAgent.create(game, new NetworkEvaluator(onnx), { search: { simulations: 16 }, seed: 1 });
const [onnxMove] = await onnxAgent.act([state]);
if (!(onnxMove >= 0 && onnxMove < 9)) throw new Error('onnx network MCTS returned ' + onnxMove);
onnx.dispose();

console.log(JSON.stringify({ ok: true, move, netMove, backend: backend.name, inference: onnx.backendName, contractMoves: report.moves }));
`;

/**
 * Exact versions of the external packages the monorepo's lockfile resolved for `dirs` (their whole
 * dependency closure), for names resolved to a single version. The empty project pins them with npm
 * `overrides`: it then installs the tree CI tested, and offline installs cannot float to a newer
 * release the cache has metadata for but no tarball (e.g. a dependency on `@types/node: *`).
 */
function lockedVersions(dirs) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
  const resolveFrom = (from, name) => {
    for (let base = from; ; ) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock[candidate]) return candidate;
      if (!base) return null;
      const i = base.lastIndexOf('node_modules/');
      base = i <= 0 ? '' : base.slice(0, i - 1);
    }
  };
  const versions = new Map();
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    const entry = lock[path];
    const deps = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const [name, k] of Object.entries(entry.peerDependencies ?? {})) if (!entry.peerDependenciesMeta?.[name]?.optional) deps[name] = k;
    for (const name of Object.keys(deps)) {
      if (name.startsWith('@az/')) continue;
      const at = resolveFrom(path, name);
      if (!at || lock[at].link) continue;
      if (!versions.has(name)) versions.set(name, new Set());
      versions.get(name).add(lock[at].version);
      visit(at);
    }
  };
  for (const dir of dirs) visit(dir);
  return Object.fromEntries([...versions].filter(([, v]) => v.size === 1).map(([name, v]) => [name, [...v][0]]));
}

let ok = false;
try {
  for (const p of packages) {
    if (!existsSync(join(root, p.dir, 'dist', 'index.js'))) fail(`${p.name} is not built (${p.dir}/dist/index.js missing): run npm run build first`);
  }
  step('packing');
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = [];
  for (const p of packages) {
    const out = run('npm', ['pack', '--json', '--pack-destination', tarballs], join(root, p.dir));
    const [info] = JSON.parse(out.slice(out.indexOf('[')));
    const files = info.files.map((f) => f.path);
    // What publishing needs: the built entry and its types, a README, a license field, no tests, no sources.
    for (const needed of ['package.json', 'dist/index.js', 'dist/index.d.ts']) if (!files.includes(needed)) fail(`${p.name} tarball lacks ${needed}`);
    const stray = files.filter((f) => /\.test\.|^src\//.test(f));
    if (stray.length) fail(`${p.name} tarball contains tests or sources: ${stray.slice(0, 5).join(', ')}`);
    const manifest = JSON.parse(readFileSync(join(root, p.dir, 'package.json'), 'utf8'));
    if (manifest.private) fail(`${p.name} is private`);
    if (!manifest.license) fail(`${p.name} has no license field`);
    packed.push(join(tarballs, info.filename));
    console.log(`  ${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB`);
  }

  step(`installing the tarballs into an empty project (npm install ${network})`);
  const app = join(work, 'app');
  mkdirSync(app);
  const overrides = lockedVersions(packages.map((p) => p.dir));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'az-pack-smoke', version: '0.0.0', private: true, type: 'module', overrides }, null, 2));
  // The same install settings a user gets from the monorepo's .npmrc (onnxruntime-node's CUDA download skipped).
  if (existsSync(join(root, '.npmrc'))) copyFileSync(join(root, '.npmrc'), join(app, '.npmrc'));
  run('npm', ['install', network, '--no-audit', '--no-fund', '--no-package-lock', ...packed], app);

  for (const p of packages) {
    const dir = join(app, 'node_modules', p.name);
    if (!existsSync(dir)) fail(`${p.name} was not installed`);
    if (lstatSync(dir).isSymbolicLink() || !realpathSync(dir).startsWith(realpathSync(app))) fail(`${p.name} is linked, not installed from its tarball`);
  }

  step('running the smoke script');
  writeFileSync(join(app, 'smoke.mjs'), smokeScript);
  const out = run(process.execPath, ['smoke.mjs'], app);
  const result = JSON.parse(out.trim().split('\n').pop());
  if (!result.ok) fail(`smoke script said ${out}`);
  step(`ok: winning move found (${result.move}), network search on ${result.backend} and ${result.inference}, ${result.contractMoves} contract-check moves`);
  ok = true;
} catch (err) {
  if (!(err instanceof Reported)) console.error('pack-smoke: FAILED:', err);
} finally {
  if (args.has('--keep')) console.log(`pack-smoke: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exitCode = ok ? 0 : 1;

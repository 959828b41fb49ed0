#!/usr/bin/env node
/**
 * Registry end-to-end test: the release path as a user meets it, against a real npm registry.
 *
 * Checks what each public workspace package would publish (`npm pack --dry-run`: built entry and
 * types, README, no tests or sources, no dist file left over from an older build), starts Verdaccio on
 * a free loopback port (temp storage, NO uplink: it serves only what we publish), publishes every
 * public workspace package with `changeset publish`, then, in empty temp directories
 * with npm's scripts and settings cleared (nothing inherited from this monorepo's .npmrc):
 *
 *   1. a project installs @az/cli from the registry;
 *   2. `npx @az/cli new-game @e2e/az-game-pebbles` scaffolds a plugin next to it;
 *   3. the plugin installs (only published packages: @az/core from Verdaccio), builds and tests;
 *      its node_modules must hold no ML runtime (onnxruntime-node, @tensorflow/*) and no native
 *      binary (*.node);
 *   4. the plugin is packed (no sources, no tests in the tarball) and published to the same registry;
 *   5. a second fresh project installs @az/cli, onnxruntime-node and the plugin; `az games` lists it
 *      and `az train --game pebbles --iterations 2` trains it (search on onnxruntime);
 *   6. a third project installs only the plugin: its run-time dependencies (the peer @az/core) and
 *      their size.
 *
 * Only the @az and @e2e scopes are routed to Verdaccio (`@az:registry=...` in the user config the
 * installs get); everything else comes from the usual npm registry (through the npm cache when it is
 * warm). So a missing or unpublished @az package fails the install with a 404 instead of being
 * fetched from the public registry, where the scope might hold something else.
 *
 * The first install (@az/cli alone) runs with npm's defaults, as on a user's machine: it must not bring
 * onnxruntime-node (an optional peer, whose install script downloads CUDA libraries from outside the
 * registry). The second adds onnxruntime-node the documented way (npm 11 runs no dependency's install
 * script unless package.json's allowScripts approves it; the project records the denial); the test
 * fails if its CUDA libraries appear, and checks that the search ran on onnxruntime.
 *
 * Prints each step's time and the installed sizes. Needs `npm run build` first.
 *
 * Usage: node scripts/registry-e2e.mjs [--keep]
 *   --keep   keep the temp directory (registry storage, projects) and print its path
 * Exit status 0 on success; on failure the failing step and its output are printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const started = Date.now();
const PLUGIN = '@e2e/az-game-pebbles';
const GAME = 'pebbles';

/** A failure already reported on stderr. */
class Reported extends Error {}

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
const timings = [];
let stepName = 'start';
let stepStarted = Date.now();
function step(title) {
  const now = Date.now();
  if (stepName !== 'start') timings.push([stepName, now - stepStarted]);
  stepName = title;
  stepStarted = now;
  console.log(`registry-e2e: ${title} (${seconds(now - started)})`);
}

function fail(message) {
  console.error(`registry-e2e: FAILED in '${stepName}': ${message}`);
  throw new Reported(message);
}

async function loadRealComponent() {
  const harness = join(root, 'packages', 'test-harness', 'dist', 'index.js');
  if (!existsSync(harness)) fail('packages are not built (packages/test-harness/dist missing): run npm run build first');
  return (await import(pathToFileURL(harness).href)).realComponent;
}

/**
 * The environment every npm and az command here runs in: the caller's, minus whatever `npm run` put
 * there (npm_* variables carry this monorepo's config) and minus
 * onnxruntime's own switches, so installs behave as on a user's machine; npm's user config is ours.
 */
function cleanEnv(userconfig) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || /^ONNXRUNTIME_NODE_INSTALL/i.test(k) || k === 'INIT_CWD' || k === 'AZ_PLUGINS') continue;
    env[k] = v;
  }
  return { ...env, NPM_CONFIG_USERCONFIG: userconfig, npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };
}

let env = process.env;
/** Runs a command to completion; returns its stdout and stderr together (`stdoutOnly`: stdout). */
function run(cmd, argv, cwd, extraEnv = {}, { stdoutOnly = false } = {}) {
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    fail(`${cmd} ${argv.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
  }
  return stdoutOnly ? r.stdout : `${r.stdout}${r.stderr}`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * One HTTP request on a fresh connection (fetch's pooled keep-alive sockets race with Verdaccio's
 * idle timeout: 'other side closed'). Resolves to { status, body } with the body parsed as JSON.
 */
function httpJson(method, url, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { 'content-type': 'application/json', accept: 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Resolves once Verdaccio answers its ping; rejects if it exits first. */
async function waitForRegistry(url, child, output) {
  let exited = null;
  child.once('exit', (code, signal) => (exited = code ?? signal));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited !== null) fail(`verdaccio exited (${exited}) before it answered:\n${output.join('')}`);
    try {
      if ((await httpJson('GET', `${url}-/ping`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`verdaccio did not answer ${url}-/ping within 120 s:\n${output.join('')}`);
}

/** Total size of the files under `dir` (symlinks not followed), and the paths matching `flag`. */
function scan(dir, flag = () => false) {
  let bytes = 0;
  const flagged = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (!entry.isSymbolicLink()) {
        bytes += lstatSync(p).size;
        if (flag(p)) flagged.push(p);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { bytes, flagged };
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Top-level package directories under node_modules (scoped ones as @scope/name). */
function installedPackages(nodeModules) {
  if (!existsSync(nodeModules)) return [];
  const out = [];
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nodeModules, name))) out.push(`${name}/${sub}`);
    else out.push(name);
  }
  return out;
}

/** The ML runtimes and native binaries a plugin's install must not contain. */
function forbiddenIn(nodeModules) {
  const packages = installedPackages(nodeModules).filter((n) => n === 'onnxruntime-node' || n === 'onnxruntime-common' || n.startsWith('@tensorflow/'));
  const { flagged } = scan(nodeModules, (p) => p.endsWith('.node'));
  return [...packages.map((p) => `package ${p}`), ...flagged.map((p) => `native binary ${p.slice(nodeModules.length + 1)}`)];
}

/** onnxruntime's CUDA libraries: present only if its install script downloaded them. */
function cudaDownloaded(nodeModules) {
  const dir = join(nodeModules, 'onnxruntime-node', 'bin', 'napi-v6', 'linux', 'x64');
  return existsSync(join(dir, 'libonnxruntime_providers_cuda.so'));
}

/** Every @az and @e2e package in a lockfile must come from our registry. */
function checkResolvedFrom(projectDir, registryUrl) {
  const lock = JSON.parse(readFileSync(join(projectDir, 'package-lock.json'), 'utf8'));
  const ours = Object.entries(lock.packages).filter(([path]) => /node_modules\/@(az|e2e)\//.test(path));
  if (ours.length === 0) fail(`no @az packages in ${projectDir}/package-lock.json`);
  for (const [path, entry] of ours) {
    if (!entry.resolved?.startsWith(registryUrl)) fail(`${path} was resolved from ${entry.resolved}, not from ${registryUrl}`);
  }
  return ours.length;
}

function newProject(dir, name, fields = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version: '0.0.0', private: true, type: 'module', ...fields }, null, 2)}\n`);
}

const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

let verdaccio;
let work;
let ok = false;
try {
  const realComponent = await loadRealComponent();
  const component = realComponent('verdaccio', {
    executables: [join(root, 'node_modules', '.bin', 'verdaccio'), 'verdaccio'],
    install: 'npm ci (verdaccio is a devDependency of the monorepo root)',
    suite: 'the registry end-to-end test (scripts/registry-e2e.mjs)',
  });
  if (component.path === undefined) {
    ok = true;
  } else {
    for (const dir of ['packages/core', 'packages/nn', 'packages/mcts', 'packages/game-tictactoe', 'packages/trainer-multigpu', 'apps/cli']) {
      if (!existsSync(join(root, dir, 'dist'))) fail(`${dir} is not built: run npm run build first`);
    }
    work = mkdtempSync(join(tmpdir(), 'az-registry-e2e-'));

    step('starting verdaccio (no uplinks)');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const config = join(work, 'verdaccio.yaml');
    writeFileSync(
      config,
      [
        `storage: ${JSON.stringify(join(work, 'storage'))}`,
        'auth:',
        '  htpasswd:',
        `    file: ${JSON.stringify(join(work, 'htpasswd'))}`,
        '    max_users: 10',
        // No uplinks: nothing is proxied to the public registry.
        'uplinks: {}',
        'packages:',
        "  '**':",
        '    access: $all',
        '    publish: $authenticated',
        'web:',
        '  enable: false',
        'log: { type: stdout, format: pretty, level: warn }',
        '',
      ].join('\n'),
    );
    const output = [];
    verdaccio = spawn(process.execPath, [component.path, '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    verdaccio.stdout.on('data', (d) => output.push(String(d)));
    verdaccio.stderr.on('data', (d) => output.push(String(d)));
    await waitForRegistry(url, verdaccio, output);

    // A user to publish as; the token goes into the npm user config every command here reads.
    const user = await httpJson('PUT', `${url}-/user/org.couchdb.user:e2e`, { name: 'e2e', password: 'e2e-password', type: 'user', roles: [], date: new Date().toISOString() });
    const token = user.body?.token;
    if (user.status !== 201 || !token) fail(`could not create a registry user: HTTP ${user.status} ${JSON.stringify(user.body)}`);
    const userconfig = join(work, 'npmrc');
    const hostPath = url.replace(/^http:/, '');
    writeFileSync(userconfig, [`@az:registry=${url}`, `@e2e:registry=${url}`, `${hostPath}:_authToken=${token}`, ''].join('\n'));
    env = cleanEnv(userconfig);

    step('checking what each package would publish (npm pack --dry-run)');
    const workspaces = ['packages/core', 'packages/nn', 'packages/mcts', 'packages/imperfect-info', 'packages/game-tictactoe', 'packages/game-chess', 'packages/game-blob', 'packages/trainer-multigpu', 'apps/cli'];
    const dryRun = run('npm', ['pack', '--dry-run', '--json', ...workspaces.map((w) => `--workspace=${w}`)], root, {}, { stdoutOnly: true });
    for (const info of JSON.parse(dryRun.slice(dryRun.indexOf('[')))) {
      const dir = workspaces.find((w) => JSON.parse(readFileSync(join(root, w, 'package.json'), 'utf8')).name === info.name);
      const files = info.files.map((f) => f.path);
      for (const needed of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
        if (needed.startsWith('dist/index') && info.name === '@az/cli') continue;
        if (!files.includes(needed)) fail(`${info.name}'s tarball lacks ${needed}`);
      }
      const stray = files.filter((f) => !f.startsWith('templates/') && /\.test\.|^src\//.test(f)); // the CLI ships the scaffold's sources as templates
      if (stray.length) fail(`${info.name}'s tarball holds tests or sources: ${stray.slice(0, 5).join(', ')}`);
      // A dist/*.js without a source is left over from an earlier build (a moved or deleted module).
      const stale = files.filter((f) => /^dist\/.*\.js$/.test(f) && !existsSync(join(root, dir, f.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'))));
      if (stale.length) fail(`${info.name}'s dist holds files with no source (a stale build: rm -rf ${dir}/dist && npm run build): ${stale.slice(0, 5).join(', ')}`);
      console.log(`  ${info.name}@${info.version}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked`);
    }

    step('publishing every package with changeset publish');
    // changesets asks `npm info` whether each version exists (in the scope's registry, which it reads
    // from npm_config_@az:registry), then `npm publish`es the ones that do not.
    const published = run(process.execPath, [join(root, 'node_modules', '@changesets', 'cli', 'bin.js'), 'publish', '--no-git-tag'], root, { 'npm_config_@az:registry': url });
    for (const dir of workspaces) {
      const { name, version } = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      const info = await httpJson('GET', `${url}${name.replace('/', '%2f')}`);
      const doc = info.status === 200 ? info.body : undefined;
      if (!doc?.versions?.[version]) fail(`${name}@${version} is not on the registry after changeset publish:\n${published}`);
      const files = doc.versions[version];
      for (const field of ['license', 'repository', 'engines']) if (!files[field]) fail(`${name} was published without '${field}'`);
    }
    console.log(`  published ${workspaces.length} packages`);

    step('installing @az/cli from the registry into an empty project');
    const cliProject = join(work, 'cli-project');
    newProject(cliProject, 'cli-project');
    run('npm', [...NPM_INSTALL, '@az/cli'], cliProject);
    checkResolvedFrom(cliProject, url);
    // onnxruntime-node is an optional peer: a plain install has no native ML runtime, so no install
    // script that downloads from outside the registry.
    if (existsSync(join(cliProject, 'node_modules', 'onnxruntime-node'))) fail('npm install @az/cli installed onnxruntime-node (it should be an optional peer of @az/nn)');
    const cliSize = scan(join(cliProject, 'node_modules'));
    console.log(`  installed size of @az/cli with its dependencies: ${mb(cliSize.bytes)} (${installedPackages(join(cliProject, 'node_modules')).length} top-level packages)`);

    step(`scaffolding ${PLUGIN} with npx @az/cli new-game`);
    const pluginDir = join(work, 'az-game-pebbles');
    run('npx', ['--no-install', '@az/cli', 'new-game', PLUGIN, '--dir', pluginDir], cliProject);
    for (const f of ['package.json', 'src/plugin.ts', 'src/game.test.ts']) if (!existsSync(join(pluginDir, f))) fail(`the scaffold lacks ${f}`);

    step('installing the plugin project (npm install)');
    run('npm', NPM_INSTALL, pluginDir);
    checkResolvedFrom(pluginDir, url);
    const pluginModules = join(pluginDir, 'node_modules');
    const forbidden = forbiddenIn(pluginModules);
    if (forbidden.length) fail(`the plugin project's node_modules holds what a plugin must not install:\n  ${forbidden.slice(0, 20).join('\n  ')}`);
    const pluginSize = scan(pluginModules);
    console.log(`  installed size of the scaffolded plugin's node_modules: ${mb(pluginSize.bytes)} (${installedPackages(pluginModules).length} top-level packages: build and test tools included; no ML runtime, no *.node)`);

    step('building and testing the plugin');
    run('npm', ['run', 'build'], pluginDir);
    const tested = run('npm', ['test'], pluginDir);
    const passed = /^# pass (\d+)$/m.exec(tested);
    if (!passed || Number(passed[1]) === 0 || !/^# fail 0$/m.test(tested)) fail(`the plugin's tests did not all pass:\n${tested}`);
    console.log(`  ${passed[1]} tests passed`);

    step('packing and publishing the plugin');
    const packOut = run('npm', ['pack', '--json', '--pack-destination', work], pluginDir, {}, { stdoutOnly: true });
    const [packed] = JSON.parse(packOut.slice(packOut.indexOf('[')));
    const packedFiles = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) if (!packedFiles.includes(needed)) fail(`the plugin tarball lacks ${needed}`);
    const stray = packedFiles.filter((f) => /\.test\.|^src\/|^\.npmrc$/.test(f));
    if (stray.length) fail(`the plugin tarball holds sources or tests: ${stray.join(', ')}`);
    run('npm', ['publish', join(work, packed.filename)], pluginDir);
    console.log(`  ${packed.filename}: ${packedFiles.length} files, ${(packed.size / 1024).toFixed(1)} kB`);

    step('installing @az/cli, onnxruntime-node and the plugin into a second fresh project');
    // The documented fast path: onnxruntime-node added next to the CLI, its install script (the CUDA
    // download) denied in package.json's allowScripts (the CPU library ships in the npm package).
    const userProject = join(work, 'user-project');
    newProject(userProject, 'user-project', { allowScripts: { 'onnxruntime-node': false } });
    run('npm', [...NPM_INSTALL, '@az/cli', PLUGIN, 'onnxruntime-node'], userProject);
    checkResolvedFrom(userProject, url);
    if (cudaDownloaded(join(userProject, 'node_modules'))) fail("onnxruntime-node's install script downloaded its CUDA libraries despite its denial in allowScripts");
    console.log(`  installed size with onnxruntime-node: ${mb(scan(join(userProject, 'node_modules')).bytes)}`);

    step('az games');
    const games = run('npx', ['--no-install', 'az', 'games'], userProject);
    if (!new RegExp(`^${GAME}\\s+Pebbles: 2 players`, 'm').test(games)) fail(`az games does not list '${GAME}':\n${games}`);
    if (!games.includes(`from ${PLUGIN}@0.1.0`)) fail(`az games does not say that '${GAME}' came from ${PLUGIN}@0.1.0:\n${games}`);
    if (/not loaded/.test(games)) fail(`az games reports plugins that did not load:\n${games}`);
    if (!/^tictactoe\s/m.test(games)) fail(`az games lost the built-in games:\n${games}`);

    step(`az train --game ${GAME} --iterations 2`);
    const out = join(userProject, 'runs', GAME);
    const trained = run('npx', ['--no-install', 'az', 'train', '--game', GAME, '--iterations', '2', '--games-per-iter', '8', '--train-steps', '8', '--eval-games', '2', '--seed', '1', '--quiet', '--out', out], userProject);
    const metrics = join(out, 'metrics.jsonl');
    if (!existsSync(metrics)) fail(`az train wrote no ${metrics}:\n${trained}`);
    const iterations = readFileSync(metrics, 'utf8').trim().split('\n').filter(Boolean).length;
    if (iterations !== 2) fail(`metrics.jsonl has ${iterations} iterations, not 2:\n${trained}`);
    if (!/inference: onnx/.test(trained)) fail(`az train did not run the search on onnxruntime:\n${trained}`);
    console.log(`  ${trained.trim().split('\n').join('\n  ')}`);

    step('installing only the plugin: its run-time dependencies');
    const consumer = join(work, 'plugin-only');
    newProject(consumer, 'plugin-only');
    run('npm', [...NPM_INSTALL, PLUGIN], consumer);
    const consumerModules = join(consumer, 'node_modules');
    const consumerForbidden = forbiddenIn(consumerModules);
    if (consumerForbidden.length) fail(`installing the plugin brought in: ${consumerForbidden.join(', ')}`);
    if (!existsSync(join(consumerModules, '@az', 'core'))) fail('the peer @az/core was not installed with the plugin');
    const runtime = installedPackages(consumerModules);
    console.log(`  ${PLUGIN} installs ${runtime.length} packages (${runtime.join(', ')}), ${mb(scan(consumerModules).bytes)}`);

    step('done');
    console.log('registry-e2e: times');
    for (const [name, ms] of timings) console.log(`  ${seconds(ms).padStart(7)}  ${name}`);
    console.log(`registry-e2e: ok in ${seconds(Date.now() - started)}`);
    ok = true;
  }
} catch (err) {
  if (!(err instanceof Reported)) console.error('registry-e2e: FAILED:', err);
} finally {
  verdaccio?.kill('SIGTERM');
  if (work) {
    if (args.has('--keep')) console.log(`registry-e2e: kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}
process.exitCode = ok ? 0 : 1;

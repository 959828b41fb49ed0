// az serve's memory under load, for docs/serve.md. Run: npm run bench -- serve-memory
// (it restarts itself with --expose-gc).
//
// 1. The real server (`az serve --game chess --model DIR`, on 127.0.0.1, a free port, its default
//    searches at once) and 64 clients at once, each starting a chess game against the model at the most
//    simulations allowed, the computer opening (one search), then playing a move (another). The
//    server's RSS is sampled from /proc while they run; the answers are counted by status (503: refused
//    as busy, with Retry-After; the clients do not retry).
// 2. What a kept game holds: 32 games, each after one computer move at the most simulations, kept by a
//    server in this process; heap and array buffers after a forced GC, before and after.
// 3. What one search holds at the most simulations, per game, the search built as az serve builds it:
//    when built, and after searching the start position (chess with the model; connect4 and Blob with
//    the rollouts of the `mcts` opponent).
//
// The model is a toy (one iteration, resnet 4x1, trained here in a temporary folder): the tree a search
// holds is sized by its simulations, not by the network. Bounded: 64 + 64 requests, then 32; every
// request and the training have a time limit; the server is stopped at the end whatever happened.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultRegistry, resolveGame, resolveGameConfig, Rng } from '@az/core';
import { createSearchEngine } from '@az/imperfect-info';
import { RolloutEvaluator } from '@az/mcts';
import { loadAverage, writeResult } from '@az/bench';

if (typeof globalThis.gc !== 'function') {
  const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
const gc = globalThis.gc;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliDist = join(root, 'apps', 'cli', 'dist');
const AZ = join(cliDist, 'main.js');
const { MAX_SESSION_SIMULATIONS, createServeApp } = await import(join(cliDist, 'serve', 'server.js'));
const { agentSearchSettings, loadModel } = await import(join(cliDist, 'agents.js'));
const { discoverGamePlugins } = await import(join(cliDist, 'plugins.js'));

const CLIENTS = 64;
const KEPT_GAMES = 32;
const REQUEST_LIMIT_MS = 300_000;
const START_LIMIT_MS = 60_000;
const RSS_SAMPLE_MS = 20;

/** A process's resident set (bytes), from /proc (Linux). */
function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const mb = (bytes) => +(bytes / 2 ** 20).toFixed(1);

function trainToyModel(work) {
  const args = ['train', '--game', 'chess', '--iterations', '1', '--games-per-iter', '2', '--parallel-games', '2', '--sims', '4', '--config', 'maxPlies=8', '--network', 'resnet:4x1', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0', '--out', 'toy', '--quiet'];
  const r = spawnSync(process.execPath, [AZ, ...args], { cwd: work, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`az train for the toy model failed (${r.status}): ${r.stderr}`);
  return join(work, 'toy');
}

/** Starts `az serve` and resolves with its process and URL once it prints the URL (killed if it has not within a minute). */
function startServe(work, model) {
  const child = spawn(process.execPath, [AZ, 'serve', '--game', 'chess', '--model', model, '--port', '0'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`az serve printed no URL within ${START_LIMIT_MS / 1000} s:\n${out}`));
    }, START_LIMIT_MS);
    const take = (d) => {
      out += d.toString();
      const m = /az serve: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (!m) return;
      clearTimeout(limit);
      resolve({ child, url: m[1] });
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('exit', (code) => {
      clearTimeout(limit);
      reject(new Error(`az serve exited (${code}) before printing its URL:\n${out}`));
    });
  });
}

async function post(url, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

/** One client: a new game where the computer opens at the most simulations, then a move it answers. */
async function client(url, seed, statuses) {
  const count = (kind, status) => (statuses[`${kind} ${status}`] = (statuses[`${kind} ${status}`] ?? 0) + 1);
  const start = await post(`${url}/api/games/chess/sessions`, { seat: 1, opponent: 'model', sims: MAX_SESSION_SIMULATIONS, seed });
  count('new game', start.status);
  if (start.status !== 200) return start.retryAfter;
  const move = await post(`${url}/api/sessions/${start.json.id}/move`, { action: start.json.legal[0].action });
  count('move', move.status);
  return move.retryAfter;
}

async function burst(work, model) {
  const { child, url } = await startServe(work, model);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const idle = rssOf(child.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid))), RSS_SAMPLE_MS);
    const statuses = {};
    const loadBefore = loadAverage();
    const t0 = performance.now();
    const hints = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(url, i + 1, statuses)));
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(child.pid));
    const after = rssOf(child.pid);
    const refused = Object.entries(statuses).filter(([k]) => k.endsWith(' 503')).reduce((n, [, v]) => n + v, 0);
    return {
      clients: CLIENTS,
      statuses,
      refused503: refused,
      retryAfter: [...new Set(hints.filter((h) => h !== null))],
      seconds: +seconds.toFixed(1),
      rssIdleMiB: mb(idle),
      rssPeakMiB: mb(peak),
      rssAfterMiB: mb(after),
      loadAverage: { before: loadBefore, after: loadAverage() },
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function used() {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

async function keptGames(loaded) {
  const { app, sessions, close } = createServeApp({ game: 'chess', model: loaded, maxSessions: KEPT_GAMES });
  try {
    const before = used();
    for (let i = 0; i < KEPT_GAMES; i++) {
      const res = await app.request('/api/games/chess/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seat: 1, opponent: 'model', sims: MAX_SESSION_SIMULATIONS, seed: i + 1 }) });
      if (res.status !== 200) throw new Error(`kept game ${i}: ${res.status} ${await res.text()}`);
    }
    const after = used();
    const treesHeld = [...sessions.values()].reduce((n, s) => n + s.treesHeld, 0);
    return { games: sessions.size, treesHeld, heldMiB: mb(after - before), perGameKiB: +((after - before) / KEPT_GAMES / 1024).toFixed(1) };
  } finally {
    close();
  }
}

/** One search at the most simulations of `id`'s start, with the settings az serve gives it (`evaluator`: rollouts when none). */
async function searchTree(id, evaluator) {
  const plugin = resolveGame(id);
  const game = plugin.create(resolveGameConfig(plugin, {}));
  const search = agentSearchSettings(plugin, { simulations: MAX_SESSION_SIMULATIONS, seed: 1 });
  const leaves = evaluator ? { evaluator, network: evaluator } : { evaluator: new RolloutEvaluator(game, 1) };
  const before = used();
  const engine = createSearchEngine(game, leaves, 1, search);
  const built = used() - before;
  engine.setRoot(0, game.initialState(new Rng(1)));
  await engine.search();
  const searched = used() - before;
  return { builtMiB: mb(built), afterSearchMiB: mb(searched), simulations: engine.stats.simulations };
}

const work = mkdtempSync(join(tmpdir(), 'az-bench-serve-'));
try {
  const model = trainToyModel(work);
  const concurrent = await burst(work, model);
  await discoverGamePlugins(defaultRegistry);
  const loaded = await loadModel(resolveGame('chess'), model);
  try {
    const kept = await keptGames(loaded);
    const oneSearch = { chess: await searchTree('chess', loaded.evaluator), connect4: await searchTree('connect4'), blob: await searchTree('blob') };
    writeResult('serve-memory', { game: 'chess', model: 'toy resnet:4x1 (1 iteration)', simulations: MAX_SESSION_SIMULATIONS, clients: CLIENTS, keptGames: KEPT_GAMES, maxSearches: 'default (one per core)' }, { concurrent, kept, oneSearch });
  } finally {
    loaded.dispose();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

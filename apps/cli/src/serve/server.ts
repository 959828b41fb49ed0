/**
 * The `az serve` web server (hono on node:http): play pages for every installed game, a training
 * dashboard for a run directory, and their JSON API. Static files come from a fixed table of names
 * (the pages in web/ and the browser builds of chessground and uPlot from node_modules), so no URL can
 * reach any other file. Every error in a request is answered with a JSON message, never a crash.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { ConfigError, listGames, resolveGame, resolveGameConfig, type ConfigSchema, type GamePlugin } from '@az/core';
import { defaultPlaySimulations } from '@az/mcts';
import { agentNames, gameFor, type AgentSettings, type LoadedModel } from '../agents.js';
import { UsageError } from '../args.js';
import { MetricsFollower, readRun, readRunInfo, RunDirError, runInfoStamp } from './run-data.js';
import { defaultMaxSearches, SearchSlots, ServerBusyError } from './search-slots.js';
import { PlayError, PlaySession } from './sessions.js';

/**
 * The most simulations a computer move may search. A search runs in slices that let other requests in
 * (see sessions.ts), so a long one delays only its own game; this bounds how long that game waits and
 * how much its search holds: the tree is sized for its simulations (for chess, 640,000 nodes at this
 * bound) and lives only while the move is searched.
 */
export const MAX_SESSION_SIMULATIONS = 10_000;

export interface ServeOptions {
  /** The game the model (if any) plays and the index page leads to; every installed game is playable. */
  readonly game?: string;
  readonly model?: LoadedModel;
  /** Game settings for `game` (`--config`). */
  readonly gameConfig?: Readonly<Record<string, unknown>>;
  /** A run directory for the dashboard. */
  readonly run?: string;
  readonly simulations?: number;
  /** Every game's seed (its deals and the computer's choices); without one, each game draws a fresh seed. */
  readonly seed?: number;
  /** How often the dashboard's event stream looks for new metrics lines (ms). */
  readonly pollMs?: number;
  /** Most games kept at once; the least recently used is dropped beyond it. */
  readonly maxSessions?: number;
  /** Told once of each metrics.jsonl line of the run the dashboard skips (the message names file and line). */
  readonly warn?: (message: string) => void;
  /** Most computer moves searched at once, over all games (default: one per core); beyond it requests get 503. */
  readonly maxSearches?: number;
}

const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  // Resolve the main entry, then walk up to the folder holding the package's package.json.
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The only files the server sends: URL name -> file on disk. */
export function staticFiles(): ReadonlyMap<string, string> {
  const chessground = packageDir('chessground');
  const uplot = packageDir('uplot');
  const files = new Map<string, string>([
    ['chessground.js', join(chessground, 'dist', 'chessground.min.js')],
    ['chessground.base.css', join(chessground, 'assets', 'chessground.base.css')],
    ['chessground.brown.css', join(chessground, 'assets', 'chessground.brown.css')],
    ['chessground.cburnett.css', join(chessground, 'assets', 'chessground.cburnett.css')],
    ['uPlot.js', join(uplot, 'dist', 'uPlot.iife.min.js')],
    ['uPlot.css', join(uplot, 'dist', 'uPlot.min.css')],
  ]);
  for (const name of ['index.html', 'play.html', 'dashboard.html', 'style.css', 'play.js', 'chess.js', 'cards.js', 'grid.js', 'dashboard.js', 'charts.js']) {
    files.set(name, join(WEB_DIR, name));
  }
  return files;
}

function contentType(name: string): string {
  const dot = name.lastIndexOf('.');
  return CONTENT_TYPES[dot >= 0 ? name.slice(dot) : ''] ?? 'application/octet-stream';
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** What a browser gets for an address that is no page: a short page with the way back, not raw JSON. */
function notFoundPage(c: Context, message: string): Response {
  return c.html(
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>az: not found</title><link rel="stylesheet" href="/static/style.css"></head>
<body><header><a href="/">az</a><h1>Not found</h1></header>
<main><div class="panel"><p id="not-found">${escapeHtml(message)}</p><p><a href="/">All games</a></p></div></main></body>
</html>
`,
    404,
  );
}

function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof ServerBusyError) return c.json({ error: err.message }, 503, { 'retry-after': String(err.retryAfterSeconds) });
  if (err instanceof PlayError) return c.json({ error: err.message }, err.status);
  if (err instanceof UsageError || err instanceof ConfigError || err instanceof RunDirError) return c.json({ error: err.message }, 400);
  const message = err instanceof Error ? err.message : String(err);
  return c.json({ error: `internal error: ${message}` }, 500);
}

/** The JSON object a request carries, refusing fields the endpoint does not know (a typo would otherwise be ignored). */
async function readBody(c: Context, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const body = await readJsonObject(c);
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new PlayError(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}: use ${allowed.join(', ')}`);
  return body;
}

async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PlayError('the request body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new PlayError('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

export interface GameSummary {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly minPlayers: number;
  readonly maxPlayers: number;
  readonly information: string;
  readonly opponents: readonly string[];
  readonly defaultOpponent: string;
  readonly hasView: boolean;
  /** The game's settings (its config schema), for the page's setup form. */
  readonly settings: ConfigSchema;
}

/** Builds the app (without listening): tests call `app.request(...)` on it directly. */
export function createServeApp(options: ServeOptions = {}): { app: Hono; sessions: Map<string, PlaySession>; searches: SearchSlots; close(): void } {
  const app = new Hono();
  const files = staticFiles();
  const sessions = new Map<string, PlaySession>();
  const maxSessions = options.maxSessions ?? 32;
  const searches = new SearchSlots(options.maxSearches ?? defaultMaxSearches());
  const timers = new Set<ReturnType<typeof setInterval>>();
  const modelGame = options.model ? options.game : undefined;

  const defaultOpponent = (plugin: GamePlugin): string => {
    if (modelGame === plugin.traits.id) return 'model';
    return plugin.traits.information === 'imperfect' ? (Object.keys(plugin.bots ?? {})[0] ?? 'random') : 'mcts';
  };
  const summary = (plugin: GamePlugin): GameSummary => {
    const game = plugin.create(resolveGameConfig(plugin, {}));
    return {
      id: plugin.traits.id,
      name: plugin.traits.name,
      description: plugin.traits.description,
      minPlayers: plugin.traits.minPlayers,
      maxPlayers: plugin.traits.maxPlayers,
      information: plugin.traits.information,
      opponents: [...(modelGame === plugin.traits.id ? ['model'] : []), ...agentNames(plugin)],
      defaultOpponent: defaultOpponent(plugin),
      hasView: typeof game.view === 'function',
      settings: plugin.configSchema,
    };
  };

  app.onError((err, c) => errorResponse(c, err));
  // Requests are a few hundred bytes; anything far larger is refused before it is read.
  app.use('/api/*', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.json({ error: 'the request body is too large (64 KB at most)' }, 413) }));
  app.notFound((c) => (c.req.path.startsWith('/api/') || c.req.path.startsWith('/static/') ? c.json({ error: `not found: ${c.req.path}` }, 404) : notFoundPage(c, `There is no page at ${c.req.path}.`)));

  const page = (name: string) => (c: Context) => c.body(readFileSync(files.get(name) as string), 200, { 'content-type': contentType(name), 'cache-control': 'no-store' });
  app.get('/', page('index.html'));
  app.get('/play/:game', (c) => {
    const id = c.req.param('game');
    const installed = listGames().map((g) => g.traits.id);
    if (!installed.includes(id)) return notFoundPage(c, `No game '${id}' is installed here (installed: ${installed.join(', ')}).`);
    return page('play.html')(c);
  });
  app.get('/dashboard', (c) => (options.run ? page('dashboard.html')(c) : notFoundPage(c, 'No training run is shown here: start az serve with --run DIR (the --out directory of az train) for its dashboard.')));
  app.get('/static/:name', (c) => {
    const name = c.req.param('name');
    const path = files.get(name);
    if (path === undefined) return c.json({ error: `not found: ${c.req.path}` }, 404);
    return c.body(readFileSync(path), 200, { 'content-type': contentType(name) });
  });

  app.get('/api/info', (c) => c.json({ game: options.game ?? null, model: options.model ? { dir: options.model.dir, iteration: options.model.manifest.iteration } : null, run: options.run ?? null }));
  app.get('/api/games', (c) => c.json(listGames().map(summary)));

  app.post('/api/games/:id/sessions', async (c) => {
    const id = c.req.param('id');
    let plugin: GamePlugin;
    try {
      plugin = resolveGame(id);
    } catch (err) {
      throw new PlayError(err instanceof Error ? err.message : String(err), 404);
    }
    const body = await readBody(c, ['seat', 'opponent', 'sims', 'seed', 'config']);
    if (body.config !== undefined && (body.config === null || typeof body.config !== 'object' || Array.isArray(body.config))) throw new PlayError("'config' must be an object of game settings");
    // Spread, not Object.assign: a `__proto__` key of the request stays a key (refused as an unknown
    // setting) instead of replacing the object's prototype, whose fields would then be read as settings.
    const rawConfig: Record<string, unknown> = { ...(id === options.game ? options.gameConfig : {}), ...(body.config as Record<string, unknown> | undefined) };
    const opponent = body.opponent === undefined ? defaultOpponent(plugin) : body.opponent;
    if (typeof opponent !== 'string') throw new PlayError("'opponent' must be a name");
    if (opponent === 'model' && options.model && modelGame !== id) {
      throw new PlayError(`the model az serve was given plays ${modelGame}, not ${id}`);
    }
    const model = opponent === 'model' && modelGame === id ? options.model : undefined;
    const game = gameFor(plugin, rawConfig, model);
    const seat = body.seat === undefined ? 0 : body.seat;
    if (typeof seat !== 'number') throw new PlayError("'seat' must be a number");
    const sims = body.sims === undefined ? (options.simulations ?? defaultPlaySimulations(plugin)) : body.sims;
    if (typeof sims !== 'number' || !Number.isInteger(sims) || sims < 1 || sims > MAX_SESSION_SIMULATIONS) {
      throw new PlayError(`'sims' must be an integer from 1 to ${MAX_SESSION_SIMULATIONS} (the most a computer move searches in az serve), got ${JSON.stringify(sims)}`);
    }
    // Without a seed (in the request or from --seed), each game gets its own: a fixed default would deal
    // every Blob game the same hands and have the computer answer every game the same way.
    const seed = body.seed === undefined ? (options.seed ?? randomInt(2 ** 31)) : body.seed;
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0) throw new PlayError("'seed' must be a non-negative integer");
    const settings: AgentSettings = { simulations: sims, seed };
    const sessionId = randomBytes(9).toString('base64url');
    const session = new PlaySession(sessionId, { plugin, game, humanSeat: seat, opponent, model, settings, slots: searches });
    // Kept only once started: a start refused for a busy server (503) or failed leaves no game, and drops none.
    const snapshot = await session.start();
    sessions.set(sessionId, session);
    if (sessions.size > maxSessions) {
      const oldest = [...sessions.values()].sort((a, b) => a.lastUsed - b.lastUsed)[0];
      sessions.delete(oldest.id);
    }
    return c.json(snapshot);
  });

  const sessionOf = (c: Context): PlaySession => {
    const session = sessions.get(c.req.param('id') ?? '');
    if (!session) throw new PlayError(`no such game: the server no longer has it (az serve was restarted, or it dropped the game for newer ones: it keeps the ${maxSessions} most recently used); start a new one`, 404);
    return session;
  };
  app.get('/api/sessions/:id', async (c) => c.json(await sessionOf(c).current()));
  app.post('/api/sessions/:id/move', async (c) => {
    const session = sessionOf(c);
    const body = await readBody(c, ['action', 'move']);
    return c.json(await session.play(body));
  });

  const warned = new Set<string>();
  const warnOnce = (message: string): void => {
    if (warned.has(message)) return;
    warned.add(message);
    options.warn?.(message);
  };
  app.get('/api/run', (c) => {
    if (!options.run) throw new PlayError('no run directory was given to az serve (--run DIR)', 404);
    const run = readRun(options.run);
    for (const w of run.warnings) warnOnce(w);
    return c.json(run);
  });
  // New metrics lines as server-sent events ('metrics', one row each), starting with every row so far;
  // and 'run' ({options, summary}) first and whenever options.json or summary.json changes (a resumed
  // run asks for more iterations, and ends with a new assessment).
  app.get('/api/run/events', (c) => {
    const dir = options.run;
    if (!dir) throw new PlayError('no run directory was given to az serve (--run DIR)', 404);
    return streamSSE(c, async (stream) => {
      const follower = new MetricsFollower(dir, warnOnce);
      let infoStamp: string | undefined;
      let timer: ReturnType<typeof setInterval> | undefined;
      const done = new Promise<void>((resolveDone) => {
        const send = async (): Promise<void> => {
          for (const row of follower.poll()) await stream.writeSSE({ event: 'metrics', data: JSON.stringify(row) });
          const stamp = runInfoStamp(dir);
          if (stamp !== infoStamp) {
            infoStamp = stamp;
            const { options: runOptions, summary } = readRunInfo(dir);
            await stream.writeSSE({ event: 'run', data: JSON.stringify({ options: runOptions ?? null, summary: summary ?? null }) });
          }
        };
        const stop = (): void => {
          if (timer) {
            clearInterval(timer);
            timers.delete(timer);
          }
          resolveDone();
        };
        stream.onAbort(stop);
        void send().then(() => {
          if (stream.aborted || stream.closed) return stop();
          timer = setInterval(() => void send().catch(stop), options.pollMs ?? 1000);
          timers.add(timer);
        }, stop);
      });
      await done;
    });
  });

  return {
    app,
    sessions,
    searches,
    close: () => {
      for (const t of timers) clearInterval(t);
      timers.clear();
    },
  };
}

export interface RunningServer {
  readonly url: string;
  readonly server: ServerType;
  readonly sessions: Map<string, PlaySession>;
  /** The searches running now, and the most at once. */
  readonly searches: SearchSlots;
  close(): Promise<void>;
}

/** Starts listening (port 0: any free port) and resolves with the URL once it does. */
export function startServer(options: ServeOptions & { readonly port?: number; readonly host?: string }): Promise<RunningServer> {
  const { app, sessions, searches, close } = createServeApp(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolveStart, rejectStart) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, (info: AddressInfo) => {
      const shown = host.includes(':') ? `[${host}]` : host;
      resolveStart({
        url: `http://${shown}:${info.port}`,
        server,
        sessions,
        searches,
        close: () =>
          new Promise<void>((resolveClose) => {
            close();
            if ('closeAllConnections' in server) server.closeAllConnections();
            server.close(() => resolveClose());
          }),
      });
    });
    server.once('error', rejectStart);
  });
}

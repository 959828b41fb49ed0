// The az serve API without a browser: static files cannot leave their table, bad requests get a JSON
// error and leave the game playable, and a Blob seat never receives another seat's cards.
import { request as httpRequest } from 'node:http';
import { Rng, defaultRegistry, resolveGame, resolveGameConfig, type Game, type GamePlugin } from '@az/core';
import { testGameContract } from '@az/core/testkit';
import { RolloutEvaluator, type LeafBatch } from '@az/mcts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { discoverGamePlugins } from '../plugins.js';
import { MAX_SESSION_SIMULATIONS, createServeApp, startServer, type RunningServer } from './server.js';
import type { PlaySnapshot } from './sessions.js';
import { cardsNamedIn } from './test-cards.js';
import { PASS, claimPlugin } from './test-pass-game.js';
import { holdFirstRollout } from './test-searches.js';
import { join } from 'node:path';
import { loadModel } from '../agents.js';
import { azInTempDir } from '../test-cli.js';

beforeAll(async () => {
  await discoverGamePlugins(defaultRegistry);
  // A plugin game with a pass and a view kind of its own, as a third party would write one.
  if (!defaultRegistry.has('claim')) defaultRegistry.register(claimPlugin as unknown as GamePlugin);
});

const { app, close } = createServeApp({ simulations: 8 });
afterAll(close);

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('static files', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0 });
  });
  afterAll(() => server.close());

  /** A raw request, so the path reaches the server exactly as written (fetch would normalise '..'). */
  function rawGet(path: string): Promise<{ status: number; body: string; type: string }> {
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('serves the pages and the board and chart libraries from node_modules', async () => {
    for (const path of ['/', '/play/tictactoe', '/static/play.js', '/static/chessground.js', '/static/uPlot.js']) {
      const r = await rawGet(path);
      expect(r.status, `${path}: ${r.body.slice(0, 200)}`).toBe(200);
    }
  });

  it('answers a browser address that is no page with a page leading back, and the API with JSON', async () => {
    const nowhere = await rawGet('/play/tictactoe/extra');
    expect(nowhere.status).toBe(404);
    expect(nowhere.type).toMatch(/^text\/html/);
    expect(nowhere.body).toContain('There is no page at /play/tictactoe/extra.');
    expect(nowhere.body).toContain('<a href="/">All games</a>');
    const game = await rawGet('/play/nosuchgame');
    expect(game.status).toBe(404);
    expect(game.body).toMatch(/No game &#39;nosuchgame&#39; is installed here \(installed: [a-z0-9, ]*tictactoe/);
    const script = await rawGet('/play/%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect(script.status).toBe(404);
    expect(script.body).not.toContain('<script>');
    expect(script.body).toContain('&lt;script&gt;');
    // No --run: the dashboard says how to get one, instead of a page stuck 'connecting…'.
    const dashboard = await rawGet('/dashboard');
    expect(dashboard.status).toBe(404);
    expect(dashboard.body).toContain('No training run is shown here: start az serve with --run DIR');
    for (const path of ['/api/nothing', '/static/nothing.js']) {
      const api = await rawGet(path);
      expect(api.status, path).toBe(404);
      expect(JSON.parse(api.body), path).toEqual({ error: `not found: ${path}` });
    }
  });

  it('refuses every path outside its table, however it is spelled', async () => {
    for (const path of [
      '/static/../package.json',
      '/static/..%2Fpackage.json',
      '/static/..%2F..%2Fpackage.json',
      '/static/%2e%2e%2f%2e%2e%2fpackage.json',
      '/static/..%5C..%5Cpackage.json',
      '/static/....//....//package.json',
      '/static/%252e%252e%252fpackage.json',
      '/static/../../../../etc/passwd',
      '/static/',
      '/static/play.js%00.html',
      '/../../package.json',
    ]) {
      const r = await rawGet(path);
      expect(r.status, path).not.toBe(200);
      expect(r.body, path).not.toContain('"dependencies"');
      expect(r.body, path).not.toContain('root:');
    }
  });
});

describe('bad moves over the wire', () => {
  it('answers malformed and illegal moves with a message, and the game goes on', async () => {
    const start = await post('/api/games/tictactoe/sessions', { seat: 0, opponent: 'random' });
    expect(start.status).toBe(200);
    const id = start.json.id as string;
    const cases: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      ['[1,2]', /must be a JSON object/],
      [{}, /needs 'action'/],
      [{ action: 'b2' }, /must be an integer/],
      [{ action: 4.5 }, /must be an integer/],
      [{ action: -1 }, /illegal move/],
      [{ action: 9 }, /illegal move/],
      [{ action: 1e300 }, /illegal move|must be an integer/],
      [{ move: 'z9' }, /illegal move 'z9'/],
      [{ move: 42 }, /needs 'action'/],
      [{ acton: 4 }, /unknown field 'acton': use action, move/],
      [JSON.stringify({ move: 'x'.repeat(100_000) }), /too large/],
    ];
    for (const [body, message] of cases) {
      const r = await post(`/api/sessions/${id}/move`, body);
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(/too large/.test(message.source) ? 413 : 400);
      expect(String(r.json.error), JSON.stringify(body).slice(0, 40)).toMatch(message);
    }
    const ok = await post(`/api/sessions/${id}/move`, { action: 4 });
    expect(ok.status).toBe(200);
    const snapshot = ok.json as unknown as PlaySnapshot;
    expect(snapshot.moves[0]).toMatchObject({ seat: 0, action: 4, text: 'b2' });
    // The cell just taken is no longer legal.
    const again = await post(`/api/sessions/${id}/move`, { action: 4 });
    expect(again.status).toBe(400);
    expect(String(again.json.error)).toMatch(/illegal move/);
  });

  it('names unknown games, sessions, opponents and bad settings', async () => {
    expect((await post('/api/games/nosuchgame/sessions', {})).status).toBe(404);
    expect((await post('/api/sessions/nope/move', { action: 0 })).status).toBe(404);
    const opp = await post('/api/games/tictactoe/sessions', { opponent: 'deep-blue' });
    expect(opp.status).toBe(400);
    expect(String(opp.json.error)).toMatch(/unknown opponent 'deep-blue'/);
    const seat = await post('/api/games/tictactoe/sessions', { seat: 2 });
    expect(seat.status).toBe(400);
    expect(String(seat.json.error)).toMatch(/seat must be 0\.\.1/);
    const config = await post('/api/games/blob/sessions', { config: { players: 99 } });
    expect(config.status).toBe(400);
    expect(String(config.json.error)).toMatch(/players/);
    const sims = await post('/api/games/tictactoe/sessions', { sims: MAX_SESSION_SIMULATIONS + 1 });
    expect(sims.status).toBe(400);
    expect(String(sims.json.error)).toBe(`'sims' must be an integer from 1 to 10000 (the most a computer move searches in az serve), got 10001`);
  });

  it('refuses moves after the end of the game', async () => {
    const start = await post('/api/games/tictactoe/sessions', { seat: 0, opponent: 'random' });
    let snapshot = start.json as unknown as PlaySnapshot;
    while (!snapshot.over) snapshot = (await post(`/api/sessions/${snapshot.id}/move`, { action: snapshot.legal[0].action })).json as unknown as PlaySnapshot;
    expect(snapshot.result?.verdict).toMatch(/you win|you lose|a draw/);
    const late = await post(`/api/sessions/${snapshot.id}/move`, { action: 0 });
    expect(late.status).toBe(409);
    expect(String(late.json.error)).toMatch(/game is over/);
  });
});

describe('deals', () => {
  it('deals each new game afresh unless a seed is given (in the request or to the server)', async () => {
    const deal = async (served: { app: typeof app }, body: Record<string, unknown>): Promise<string> => {
      const res = await served.app.request('/api/games/blob/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seat: 0, opponent: 'random', config: { players: 4, rounds: 'one', roundCards: 8 }, ...body }) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { view: { hand: string[] } }).view.hand.join(',');
    };
    // Two 8-card hands from a fresh deck are the same once in 7.5e8 deals.
    expect(await deal({ app }, {})).not.toBe(await deal({ app }, {}));
    expect(await deal({ app }, { seed: 5 })).toBe(await deal({ app }, { seed: 5 }));
    const seeded = createServeApp({ seed: 5 });
    try {
      expect(await deal(seeded, {})).toBe(await deal(seeded, {}));
      expect(await deal(seeded, {})).toBe(await deal({ app }, { seed: 5 }));
    } finally {
      seeded.close();
    }
  });
});

describe('views a plugin fills in', () => {
  it('the test game with a pass meets the contract kit in each of its view shapes', async () => {
    for (const view of ['grid', 'custom-grid', 'custom-text']) {
      const report = await testGameContract(claimPlugin, { config: { view }, playouts: 8 });
      expect(report.checks.view, view).toBeGreaterThan(0);
    }
  });

  it('sends the named actions and seat names of the view, and takes a pass like any move, by number or in notation', async () => {
    const start = await post('/api/games/claim/sessions', { seat: 0, opponent: 'random', seed: 1 });
    expect(start.status, JSON.stringify(start.json)).toBe(200);
    let snapshot = start.json as unknown as PlaySnapshot;
    expect(snapshot.view).toMatchObject({ kind: 'grid', actions: [{ action: PASS, label: 'Pass' }], seatNames: ['Black', 'White'], columnLabels: ['a', 'b', 'c'], rowLabels: ['2', '1'] });
    expect(snapshot.legal.map((m) => m.text)).toContain('pass');
    snapshot = (await post(`/api/sessions/${snapshot.id}/move`, { action: PASS })).json as unknown as PlaySnapshot;
    expect(snapshot.moves[0]).toEqual({ seat: 0, action: PASS, text: 'pass' });
    if (!snapshot.over) {
      snapshot = (await post(`/api/sessions/${snapshot.id}/move`, { move: 'pass' })).json as unknown as PlaySnapshot;
      expect(snapshot.moves[2]).toEqual({ seat: 0, action: PASS, text: 'pass' });
    }
    // A view of the plugin's own kind reaches the page as the plugin wrote it.
    const custom = (await post('/api/games/claim/sessions', { seat: 0, opponent: 'random', seed: 1, config: { view: 'custom-text' } })).json as unknown as PlaySnapshot;
    expect(custom.view).toEqual({ kind: 'custom:claim', lines: ['claimed: 0 of 6', 'passes in a row: 0'], actions: [{ action: PASS, label: 'Pass' }], seatNames: ['Black', 'White'] });
  });
});

describe('hidden information', () => {
  it("a Blob seat's snapshots never name a card another seat still holds", async () => {
    const config = { players: 4, rounds: 'one', roundCards: 5 };
    const seed = 7;
    // The same deal the server makes (same config, same seed): the other seats' hands at the start.
    const plugin = resolveGame('blob');
    const game = plugin.create(resolveGameConfig(plugin, config)) as Game<unknown>;
    const dealt = game.initialState(new Rng(seed));
    const info = (seat: number): { hand: Int16Array } => game.informationState?.(dealt, seat) as { hand: Int16Array };
    const cardText = (c: number): string => ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'][c % 13] + 'SHCD'[Math.floor(c / 13)];
    const othersHands = new Set<string>();
    for (let seat = 1; seat < 4; seat++) for (const c of info(seat).hand) othersHands.add(cardText(c));
    expect(othersHands.size).toBe(15);
    // The detector finds a hand where it is shown (seat 1's own view).
    expect([...cardsNamedIn(JSON.stringify(game.view?.(dealt, 1)))].filter((c) => othersHands.has(c))).toHaveLength(5);

    let snapshot = (await post('/api/games/blob/sessions', { seat: 0, opponent: 'heuristic', config, seed })).json as unknown as PlaySnapshot;
    let checked = 0;
    for (;;) {
      const played = new Set(snapshot.moves.map((m) => m.text));
      const leaked = [...cardsNamedIn(JSON.stringify(snapshot))].filter((c) => othersHands.has(c) && !played.has(c));
      expect(leaked, `after ${snapshot.moves.length} moves`).toEqual([]);
      expect(snapshot.position).toBeUndefined();
      expect(snapshot.analysis).toBeUndefined();
      checked++;
      if (snapshot.over) break;
      snapshot = (await post(`/api/sessions/${snapshot.id}/move`, { action: snapshot.legal[0].action })).json as unknown as PlaySnapshot;
    }
    expect(checked).toBeGreaterThan(5);
    expect(snapshot.view?.kind).toBe('cards');
  });
});

describe('a model of single rounds at the table', () => {
  it('plays a whole Blob game round by round', async () => {
    const { work, az } = azInTempDir('az-serve-rounds-');
    const trained = az(['train', '--game', 'blob', '--config', 'players=3,rounds=sampled', '--out', 'runs/r', '--iterations', '1', '--games-per-iter', '4', '--parallel-games', '4', '--sims', '2', '--train-steps', '1', '--batch-size', '8', '--eval-games', '0', '--quiet']);
    expect(trained.code, trained.stderr).toBe(0);
    const model = await loadModel(resolveGame('blob'), join(work, 'runs', 'r'));
    const served = createServeApp({ game: 'blob', model, gameConfig: { players: 3 }, simulations: 4 });
    try {
      const start = await served.app.request('/api/games/blob/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seat: 0, opponent: 'model', seed: 3 }) });
      expect(start.status).toBe(200);
      let snapshot = (await start.json()) as PlaySnapshot;
      while (!snapshot.over) {
        const res = await served.app.request(`/api/sessions/${snapshot.id}/move`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: snapshot.legal[0].action }) });
        expect(res.status).toBe(200);
        snapshot = (await res.json()) as PlaySnapshot;
      }
      expect(snapshot.moves.length).toBe(3 * (16 + 58)); // all 16 rounds of a 3-player game
      // Asked to play another game, the model is named as this game's, not as missing.
      const other = await served.app.request('/api/games/tictactoe/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ opponent: 'model' }) });
      expect(other.status).toBe(400);
      expect(((await other.json()) as { error: string }).error).toBe('the model az serve was given plays blob, not tictactoe');
    } finally {
      served.close();
      model.dispose();
    }
  }, 120_000);
});


describe('a long search', () => {
  it("lets other games' requests in while a computer move searches (over HTTP, on 127.0.0.1)", async () => {
    const server = await startServer({ port: 0 });
    // The mcts opponent's rollouts never leave the event loop: only slicing the search lets a request in.
    // The first rollout call says the search has begun; once the test is done, the next one ends it.
    const rollouts = RolloutEvaluator.prototype.evaluate;
    let calls = 0;
    let done = false;
    let begun = (): void => undefined;
    const searching = new Promise<void>((resolve) => (begun = resolve));
    const spy = vi.spyOn(RolloutEvaluator.prototype, 'evaluate').mockImplementation(function (this: RolloutEvaluator<unknown>, batch: LeafBatch<unknown>) {
      if (++calls === 1) begun();
      if (done) throw new Error('the test is over');
      // Bounds the test when the search never lets anything in (it would run all its simulations first).
      if (calls > 1000) throw new Error('1000 rollout calls and the search is still on');
      rollouts.call(this, batch);
    });
    try {
      const post = (path: string, body: unknown): Promise<Response> => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      let longAnswered = false;
      // Chess against mcts from the black seat: the computer's first move is a search of the most simulations allowed.
      const long = post('/api/games/chess/sessions', { opponent: 'mcts', seat: 1, sims: MAX_SESSION_SIMULATIONS, config: { maxPlies: 60 } }).then(async (res) => {
        longAnswered = true;
        return { status: res.status, json: (await res.json()) as { error?: string } };
      });
      await searching;
      const other = await post('/api/games/tictactoe/sessions', { opponent: 'random' });
      expect(other.status).toBe(200);
      expect(((await other.json()) as PlaySnapshot).legal).toHaveLength(9);
      const answeredFirst = !longAnswered;
      done = true;
      const ended = await long;
      expect(answeredFirst, `the other request was answered only after the search (${calls} rollout calls): ${JSON.stringify(ended.json)}`).toBe(true);
      expect(ended).toEqual({ status: 500, json: { error: 'internal error: the test is over' } });
    } finally {
      spy.mockRestore();
      await server.close();
    }
  });
});

describe('searches at once', () => {
  it('answers 503 with Retry-After beyond the cap, playing nothing, and takes the request once a search is free', async () => {
    const server = await startServer({ port: 0, maxSearches: 1 });
    const held = holdFirstRollout();
    const post = async (path: string, body: unknown): Promise<{ status: number; retryAfter: string | null; json: Record<string, unknown> }> => {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as Record<string, unknown> };
    };
    // The computer (white) opens: its search takes the one slot and is held there.
    const first = post('/api/games/tictactoe/sessions', { opponent: 'mcts', seat: 1, sims: 50, seed: 1 });
    try {
      await held.begun;
      // A game whose computer opens needs a search: refused, and no game is kept for it.
      const busyStart = await post('/api/games/tictactoe/sessions', { opponent: 'mcts', seat: 1, sims: 50 });
      expect(busyStart.status).toBe(503);
      expect(Number(busyStart.retryAfter)).toBeGreaterThan(0);
      expect(String(busyStart.json.error)).toMatch(/^the server is busy: 1 computer move is already being searched .*--max-searches.*try again in \d+ s$/);
      expect(server.sessions.size).toBe(0);
      expect(server.searches.running).toBe(1);
      // A game where the human opens starts (no search yet); its move, which the computer answers, is refused and not played.
      const mine = await post('/api/games/tictactoe/sessions', { opponent: 'mcts', seat: 0, sims: 50, seed: 2 });
      expect(mine.status).toBe(200);
      const id = mine.json.id as string;
      const busyMove = await post(`/api/sessions/${id}/move`, { action: 4 });
      expect(busyMove.status).toBe(503);
      expect(busyMove.retryAfter).toBe(String(Number(busyMove.retryAfter)));
      expect(((await (await fetch(`${server.url}/api/sessions/${id}`)).json()) as PlaySnapshot).moves).toEqual([]);
      // An opponent that does not search needs no slot.
      expect((await post('/api/games/tictactoe/sessions', { opponent: 'random', seat: 1 })).status).toBe(200);

      held.release();
      expect((await first).status).toBe(200);
      expect(server.searches.running).toBe(0);
      const retried = await post(`/api/sessions/${id}/move`, { action: 4 });
      expect(retried.status).toBe(200);
      expect((retried.json as unknown as PlaySnapshot).moves.map((m) => m.seat)).toEqual([0, 1]);
    } finally {
      held.release();
      await first.catch(() => undefined);
      held.restore();
      await server.close();
    }
  });

  it('gives the slot back when a search fails', async () => {
    const server = await startServer({ port: 0, maxSearches: 1 });
    const spy = vi.spyOn(RolloutEvaluator.prototype, 'evaluate').mockImplementation(() => {
      throw new Error('the evaluator broke');
    });
    try {
      const post = (body: unknown): Promise<Response> => fetch(`${server.url}/api/games/tictactoe/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post({ opponent: 'mcts', seat: 1, sims: 10 })).status).toBe(500);
      expect(server.searches.running).toBe(0);
      expect(server.sessions.size).toBe(0);
      spy.mockRestore();
      expect((await post({ opponent: 'mcts', seat: 1, sims: 10 })).status).toBe(200);
    } finally {
      spy.mockRestore();
      await server.close();
    }
  });
});

describe('a kept game between moves', () => {
  it('holds no search tree: the tree lives only while a computer move is searched', async () => {
    const server = await startServer({ port: 0 });
    const held = holdFirstRollout();
    try {
      const post = (path: string, body: unknown): Promise<Response> => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const start = await post('/api/games/chess/sessions', { opponent: 'mcts', seat: 0, sims: 32, seed: 4, config: { maxPlies: 20 } });
      expect(start.status).toBe(200);
      const id = ((await start.json()) as PlaySnapshot).id;
      const session = server.sessions.get(id);
      expect(session?.treesHeld).toBe(0);
      // The computer's reply is searched (held at its first rollout): its tree exists then.
      const reply = post(`/api/sessions/${id}/move`, { move: 'e4' });
      await held.begun;
      expect(session?.treesHeld).toBe(1);
      held.release();
      const answered = (await (await reply).json()) as PlaySnapshot;
      expect(answered.moves).toHaveLength(2);
      expect(answered.analysis?.simulations).toBe(32);
      expect(session?.treesHeld).toBe(0);
      // And after each later move too.
      const next = (await (await post(`/api/sessions/${id}/move`, { action: answered.legal[0].action })).json()) as PlaySnapshot;
      expect(next.moves).toHaveLength(4);
      expect(session?.treesHeld).toBe(0);
    } finally {
      held.release();
      held.restore();
      await server.close();
    }
  });
});

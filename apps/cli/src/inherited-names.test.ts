// Names a user types that every JavaScript object inherits (`constructor`, `toString`, `__proto__`...):
// a setting or an agent by such a name is unknown like any other, refused the same way (exit 2 in the
// CLI, 400 in az serve), never looked up on Object.prototype.
import { defaultRegistry } from '@az/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverGamePlugins } from './plugins.js';
import { createServeApp } from './serve/server.js';
import type { PlaySnapshot } from './serve/sessions.js';
import { azInTempDir } from './test-cli.js';

const INHERITED = ['constructor', 'toString', 'hasOwnProperty', '__proto__'];

const { az } = azInTempDir('az-inherited-');

describe('az with inherited names', () => {
  it('refuses a command named constructor or __proto__ as an unknown command (exit 2)', () => {
    for (const name of ['constructor', '__proto__']) {
      const r = az([name]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`az: unknown command '${name}'`);
    }
  });

  it('refuses --config constructor=1 and the like as unknown settings (exit 2)', () => {
    for (const key of INHERITED) {
      const r = az(['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'random', '--games', '2', '--config', `${key}=1`]);
      expect(r.code, `${key}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`unknown field '${key}' (it takes no fields)`);
    }
  });

  it('refuses agents named __proto__ or constructor as unknown agents in eval, play and rate (exit 2)', () => {
    for (const name of ['__proto__', 'constructor']) {
      const evaluation = az(['eval', '--game', 'tictactoe', '--a', 'random', '--b', name, '--games', '2']);
      expect(evaluation.code, `eval ${name}: ${evaluation.stderr}`).toBe(2);
      expect(evaluation.stderr).toContain(`unknown agent '${name}': use random, mcts, minimax`);
      const play = az(['play', '--game', 'tictactoe', '--opponent', name], 'quit\n');
      expect(play.code, `play ${name}: ${play.stderr}`).toBe(2);
      expect(play.stderr).toContain(`az play: unknown opponent '${name}': use random, mcts, minimax, or --model DIR`);
      const rate = az(['rate', '--game', 'tictactoe', 'random', name, '--games', '2']);
      expect(rate.code, `rate ${name}: ${rate.stderr}`).toBe(2);
      expect(rate.stderr).toContain(`az rate: '${name}' is not a player`);
    }
  });
});

describe('az serve with inherited names', () => {
  beforeAll(async () => {
    await discoverGamePlugins(defaultRegistry);
  });
  const { app, close } = createServeApp({ simulations: 8 });
  afterAll(close);

  async function post(path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('answers an opponent named __proto__ or constructor with 400 naming the opponents, like any unknown one', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const r = await post('/api/games/tictactoe/sessions', JSON.stringify({ seat: 0, opponent: name }));
      expect(r.status, `${name}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(String(r.json.error)).toBe(`unknown opponent '${name}': use random, mcts, minimax`);
    }
    // A known bot still plays its moves.
    const start = await post('/api/games/tictactoe/sessions', JSON.stringify({ seat: 0, opponent: 'minimax' }));
    expect(start.status).toBe(200);
    const moved = await post(`/api/sessions/${(start.json as unknown as PlaySnapshot).id}/move`, JSON.stringify({ action: 4 }));
    expect(moved.status).toBe(200);
    expect((moved.json as unknown as PlaySnapshot).moves).toHaveLength(2);
  });

  it('answers settings named constructor or __proto__ with 400, and never reads settings from a __proto__ object', async () => {
    for (const key of INHERITED) {
      const r = await post('/api/games/blob/sessions', `{"seat": 0, "opponent": "random", "config": {"${key}": 1}}`);
      expect(r.status, `${key}: ${JSON.stringify(r.json)}`).toBe(400);
      expect(String(r.json.error)).toContain(`unknown field '${key}'`);
    }
    const smuggled = await post('/api/games/blob/sessions', '{"seat": 0, "opponent": "random", "config": {"__proto__": {"players": 99}}}');
    expect(smuggled.status).toBe(400);
    expect(String(smuggled.json.error)).toContain("unknown field '__proto__'");
  });
});

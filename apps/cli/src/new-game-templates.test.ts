// `az new-game --template board|cards` end to end, as a plugin author meets them: the scaffold builds
// and its own tests pass, then az trains it two iterations, evaluates it against its bot, plays it in
// the terminal and serves it over HTTP. Made in a temp dir outside the monorepo whose node_modules
// links @az/core and the build tools from the workspace (no npm install: offline and fast).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startAz } from './test-cli.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'main.js');
const repo = join(here, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'az-templates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[], cwd: string, input?: string): { code: number; out: string } {
  const r = spawnSync(process.execPath, args, { cwd, input, encoding: 'utf8', timeout: 600_000, env: { ...process.env, AZ_PLUGINS: '', CI: '1', NO_COLOR: '1' } });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

function link(projectDir: string, name: string, target: string): void {
  const at = join(projectDir, 'node_modules', name);
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at, 'dir');
}

/** Scaffolds, links, compiles (tests included) and runs the scaffold's own tests; returns its folder. */
function scaffold(kind: string, name: string): string {
  const dir = join(work, name);
  const made = run([bin, 'new-game', name, '--template', kind, '--dir', dir], work);
  expect(made.code, made.out).toBe(0);
  expect(made.out).toContain(`template ${kind}`);
  link(dir, '@az/core', join(repo, 'packages', 'core'));
  for (const tool of ['typescript', '@types/node']) link(dir, tool, join(repo, 'node_modules', tool));
  const compiled = run([join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], dir);
  expect(compiled.code, compiled.out).toBe(0);
  const tests = run(['--test'], dir);
  expect(tests.code, tests.out).toBe(0);
  expect(tests.out).toMatch(/^# fail 0$/m);
  return dir;
}

const TEMPLATES = [
  { kind: 'board', name: 'stones', bot: 'greedy', moves: ['pass', ...'abcde'.split('').flatMap((c) => [1, 2, 3, 4, 5].map((r) => `${c}${r}`))] },
  { kind: 'cards', name: 'duel', bot: 'thrifty', moves: Array.from({ length: 11 }, (_, i) => String(i + 1)) },
];

describe('az new-game templates, scaffold to a served model', () => {
  for (const t of TEMPLATES) {
    it(`${t.kind}: builds, passes its tests, trains two iterations, evaluates, plays and serves`, async () => {
      const dir = scaffold(t.kind, t.name);
      const model = join(dir, 'runs', t.name);
      const trained = run([bin, 'train', '--game', t.name, '--iterations', '2', '--games-per-iter', '16', '--sims', '8', '--eval-games', '4', '--out', model, '--quiet', '--seed', '1'], dir);
      expect(trained.code, trained.out).toBe(0);
      expect(trained.out).toMatch(new RegExp(`az train: ${t.name}, 2 iterations`));

      const evaluated = run([bin, 'eval', '--game', t.name, '--a', model, '--b', t.bot, '--games', '4', '--sims', '8', '--seed', '1'], dir);
      expect(evaluated.code, evaluated.out).toBe(0);
      expect(evaluated.out).toMatch(/^4 games of /m);

      // Every legal move name, repeated: an illegal one is refused and asked again, so the game runs to its end.
      const typed = Array.from({ length: 12 }, () => t.moves).flat().join('\n') + '\n';
      const played = run([bin, 'play', '--game', t.name, '--model', model, '--seat', '0', '--sims', '8', '--seed', '1'], dir, typed);
      expect(played.code, played.out).toBe(0);
      expect(played.out).toMatch(/game over: /);

      const server = startAz(dir, ['serve', '--port', '0', '--game', t.name, '--model', model]);
      const url = /az serve: (http:\/\/127\.0\.0\.1:\d+)\//.exec(await server.until(/az serve: http:\/\/127\.0\.0\.1:\d+\//))![1];
      try {
        const games = (await (await fetch(`${url}/api/games`)).json()) as { id: string }[];
        expect(games.map((g) => g.id)).toContain(t.name);
        const created = await fetch(`${url}/api/games/${t.name}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ opponent: 'model', seat: 0 }) });
        expect(created.status, await created.clone().text()).toBe(200);
        const session = (await created.json()) as { id: string; legal: { action: number; text: string }[]; moves: unknown[]; view: { kind: string; actions?: { label: string }[] } | null };
        expect(session.legal.length).toBeGreaterThan(0);
        // The board template draws a grid with the pass as a button; the card template has no view (its text is shown).
        if (t.kind === 'board') expect(session.view).toMatchObject({ kind: 'grid', actions: [{ label: 'Pass' }] });
        // The human plays a move; the model answers it.
        const moved = await fetch(`${url}/api/sessions/${session.id}/move`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ move: session.legal[0].text }) });
        expect(moved.status, await moved.clone().text()).toBe(200);
        const after = (await moved.json()) as { moves: { seat: number }[]; over: boolean };
        expect(after.moves.length >= 2 || after.over).toBe(true);
        expect(after.moves[1]?.seat ?? 1).toBe(1);
      } finally {
        server.child.kill('SIGTERM');
        await server.exit;
      }
    });
  }
});

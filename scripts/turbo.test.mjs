// turbo's anonymous telemetry stays off in the project's own scripts: every root script runs turbo
// through scripts/turbo.mjs, and the build script, run as a fresh machine's first turbo command (an
// empty home and config folder), prints no telemetry notice and leaves no telemetry id behind.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;

/** The commands of an npm script (`a && b`), each as its words. */
const commandsOf = (script) => script.split(/&&|\|\||;/).map((c) => c.trim().split(/\s+/));

/** Every file under `dir`, recursively. */
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));

let home;
afterEach(() => home && rmSync(home, { recursive: true, force: true }));

describe('turbo telemetry', () => {
  it('every root script runs turbo through scripts/turbo.mjs, which turns telemetry off', () => {
    const turboCalls = Object.entries(scripts).flatMap(([name, script]) => commandsOf(script).map((words) => [name, words]).filter(([, w]) => w.includes('turbo') || w.includes('scripts/turbo.mjs')));
    expect(turboCalls.map(([name]) => name)).toEqual(expect.arrayContaining(['build', 'test', 'az']));
    for (const [name, words] of turboCalls) expect(words.slice(0, 2), `script '${name}': ${words.join(' ')}`).toEqual(['node', 'scripts/turbo.mjs']);
  });

  it("the build script on a fresh machine prints no telemetry notice and writes no telemetry id", () => {
    home = mkdtempSync(join(tmpdir(), 'az-turbo-home-'));
    const [words] = commandsOf(scripts.build);
    // The script's own command (`node scripts/turbo.mjs ...`, or a bare `turbo ...` as npm would find
    // it in node_modules/.bin), planned only (--dry): the notice comes before any task runs.
    const argv = words[0] === 'node' ? words.slice(1) : [join(root, 'node_modules', 'turbo', 'bin', 'turbo'), ...words.slice(1)];
    const env = { ...process.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, 'config'), APPDATA: join(home, 'appdata') };
    delete env.TURBO_TELEMETRY_DISABLED;
    delete env.DO_NOT_TRACK;
    delete env.TURBO_TELEMETRY_MESSAGE_DISABLED;
    const r = spawnSync(process.execPath, [...argv, '--dry=json'], { cwd: root, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // The notice ("Turborepo now collects completely anonymous telemetry ... /docs/telemetry"); the plan
    // itself names files such as onnx-telemetry.test.ts.
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/anonymous telemetry|docs\/telemetry/i);
    expect(filesUnder(home)).toEqual([]);
  });
});

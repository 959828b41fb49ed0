// `npm run az` builds what the command will load before running it: the CLI with the packages it uses,
// and every game plugin in the workspace's examples/ (a scaffolded game is no dependency of the CLI, so
// after an edit it would otherwise run from its old build without a word).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const azScript = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.az;

/** The words of the script's turbo command (the one before `&&`), quotes removed as the shell would. */
function turboWords(script) {
  const first = script.split('&&')[0].trim();
  return first.split(/\s+/).map((w) => w.replace(/['"]/g, ''));
}

/** The package names of the workspace folders under examples/. */
function examplePackages() {
  const dir = join(root, 'examples');
  return readdirSync(dir)
    .filter((d) => existsSync(join(dir, d, 'package.json')))
    .map((d) => JSON.parse(readFileSync(join(dir, d, 'package.json'), 'utf8')).name);
}

describe('npm run az', () => {
  it('builds every game plugin under examples/ as well as the CLI, before running it', () => {
    const words = turboWords(azScript);
    expect(words.slice(0, 4)).toEqual(['node', 'scripts/turbo.mjs', 'run', 'build']);
    const dry = spawnSync(process.execPath, [...words.slice(1).filter((w) => !w.startsWith('--output-logs')), '--dry=json'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(dry.status, dry.stderr).toBe(0);
    const tasks = new Set(JSON.parse(dry.stdout).tasks.map((t) => t.taskId));
    expect(tasks.has('@az/cli#build')).toBe(true);
    const plugins = examplePackages();
    expect(plugins.length).toBeGreaterThan(1);
    for (const name of plugins) expect(tasks.has(`${name}#build`), `${name} is built by npm run az`).toBe(true);
  });
});

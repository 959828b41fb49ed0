// `az play` and `az eval` run without the trainer: the modules Node actually loads for them, recorded
// by a resolve hook in the child process, include nothing from @az/trainer-multigpu.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'az-layering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const hooks = join(work, 'hooks.mjs');
const register = join(work, 'register.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.AZ_TEST_MODULE_LOG, result.url + '\\n');
  return result;
}
`,
);
writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);

/** Runs az with the hook and returns the URLs of every module resolved, with the exit code and output. */
function loadedModules(args: string[], input: string): { code: number; urls: string[]; stderr: string } {
  const log = join(work, `modules-${args[0]}.log`);
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, bin, ...args], {
    input,
    encoding: 'utf8',
    cwd: work,
    timeout: 240_000,
    env: { ...process.env, AZ_TEST_MODULE_LOG: log },
  });
  const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { code: r.status ?? -1, urls, stderr: r.stderr };
}

describe('az play and az eval without the trainer', () => {
  it.each([
    ['play', ['play', '--game', 'tictactoe', '--sims', '2'], 'quit\n'],
    ['eval', ['eval', '--game', 'tictactoe', '--a', 'random', '--b', 'mcts', '--sims', '2', '--games', '2'], ''],
  ])('az %s loads no module of @az/trainer-multigpu', (_name, args, input) => {
    const r = loadedModules(args, input);
    expect(r.code, r.stderr).toBe(0);
    // The hook saw the command run (the games and search were loaded), so an empty list cannot pass.
    expect(r.urls.some((u) => u.includes('/mcts/dist/'))).toBe(true);
    expect(r.urls.filter((u) => u.includes('trainer-multigpu'))).toEqual([]);
  });

  it('az train does load the trainer (the hook sees it)', () => {
    const r = loadedModules(['train', '--help'], '');
    expect(r.code, r.stderr).toBe(0);
    expect(r.urls.some((u) => u.includes('trainer-multigpu'))).toBe(true);
  });
});

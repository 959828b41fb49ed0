// The repository's npm settings: npm reads .npmrc on every command, so it must hold nothing npm warns
// about; and onnxruntime-node's install script (its CUDA download) stays denied in package.json.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('npm settings', () => {
  it('an npm command in the repository prints no warning about its configuration', () => {
    // As from a user's shell: none of this test run's npm_* variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const r = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: root, encoding: 'utf8', timeout: 60_000, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('az-monorepo');
    expect(r.stderr).not.toMatch(/npm warn/i);
  });

  it("denies onnxruntime-node's install script, which would download CUDA libraries from outside the registry", () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(manifest.allowScripts?.['onnxruntime-node']).toBe(false);
  });
});

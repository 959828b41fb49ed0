// The dependency check itself, against small fixture monorepos: a clean one passes, and each kind of
// wrong import is named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDependencies } from './check-deps.mjs';

let root;
afterEach(() => root && rmSync(root, { recursive: true, force: true }));

function fixture(files) {
  root = mkdtempSync(join(tmpdir(), 'az-check-deps-'));
  const write = (path, text) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', JSON.stringify({ workspaces: ['packages/core', 'packages/mcts', 'packages/nn'], devDependencies: { vitest: '*' } }));
  write('packages/core/package.json', JSON.stringify({ name: '@az/core', dependencies: { tsyringe: '*' } }));
  write('packages/mcts/package.json', JSON.stringify({ name: '@az/mcts', dependencies: { '@az/core': '*' } }));
  write('packages/nn/package.json', JSON.stringify({ name: '@az/nn', dependencies: { '@az/core': '*' } }));
  write('packages/core/src/index.ts', "import { container } from 'tsyringe';\nimport { join } from 'node:path';\n");
  write('packages/mcts/src/index.ts', "import type { Game } from '@az/core';\nimport { x } from './x.js';\n");
  write('packages/mcts/src/a.test.ts', "import { it } from 'vitest';\n");
  for (const [path, text] of Object.entries(files)) write(path, text);
  return checkDependencies(root);
}

describe('checkDependencies', () => {
  it('passes a tree whose imports follow the layers and are declared', () => {
    expect(fixture({})).toEqual([]);
  });

  it('names an import against the direction (search importing the network stack)', () => {
    const violations = fixture({
      'packages/mcts/package.json': JSON.stringify({ name: '@az/mcts', dependencies: { '@az/core': '*', '@az/nn': '*' } }),
      'packages/mcts/src/bad.ts': "import { NetworkTrainer } from '@az/nn';\n",
    });
    expect(violations.some((v) => v.includes('packages/mcts/src/bad.ts') && v.includes('may not import @az/nn'))).toBe(true);
    expect(violations.some((v) => v.includes('packages/mcts/package.json') && v.includes('against the layer table'))).toBe(true);
  });

  it('names an undeclared dependency, and a relative import that leaves its package', () => {
    const violations = fixture({
      'packages/core/src/leak.ts': "import { Chess } from 'chess.js';\nimport { lib } from '../../../bench/lib.mjs';\n",
    });
    expect(violations).toHaveLength(2);
    expect(violations[0]).toMatch(/leak\.ts: imports 'chess\.js', which @az\/core's package\.json does not declare/);
    expect(violations[1]).toMatch(/leak\.ts: relative import '..\/..\/..\/bench\/lib\.mjs' leaves the package @az\/core/);
  });

  it('reads dynamic imports and ignores imports named in comments', () => {
    const violations = fixture({
      'packages/core/src/lazy.ts': "// import { x } from 'left-pad';\nconst m = await import('onnxruntime-node');\n",
    });
    expect(violations).toEqual([expect.stringMatching(/lazy\.ts: imports 'onnxruntime-node'/)]);
  });

  it('takes a game scaffolded into examples/ as a plugin: it may import what a built-in game may, nothing above', () => {
    const plugin = (imports) => ({
      'package.json': JSON.stringify({ workspaces: ['packages/core', 'packages/mcts', 'packages/nn', 'examples/*'], devDependencies: { vitest: '*' } }),
      'examples/pebbles/package.json': JSON.stringify({ name: 'az-game-pebbles', dependencies: { '@az/core': '*', '@az/mcts': '*', '@az/nn': '*' } }),
      'examples/pebbles/src/index.ts': imports,
    });
    expect(fixture(plugin("import type { Game } from '@az/core';\nimport { BatchedMcts } from '@az/mcts';\n"))).toEqual([
      'examples/pebbles/package.json: az-game-pebbles depends on @az/nn, against the layer table',
    ]);
    const violations = fixture(plugin("import { NetworkTrainer } from '@az/nn';\n"));
    expect(violations).toContain('examples/pebbles/src/index.ts: az-game-pebbles may not import @az/nn (dependencies point one way: core <- mcts <- imperfect-info <- trainer <- cli, core <- nn <- trainer; games import core (Blob also mcts and imperfect-info) and only the cli (and chess-uci) import games)');
  });

  it('still names a package of az itself (listed by name in the workspaces) that the table forgot', () => {
    const violations = fixture({
      'package.json': JSON.stringify({ workspaces: ['packages/core', 'packages/mcts', 'packages/nn', 'packages/extra'], devDependencies: { vitest: '*' } }),
      'packages/extra/package.json': JSON.stringify({ name: '@az/extra', dependencies: {} }),
    });
    expect(violations).toEqual(['packages/extra: workspace package @az/extra has no entry in the layer table (scripts/check-deps.mjs LAYERS)']);
  });
});

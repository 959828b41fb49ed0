// `npm run bench`: runs every benchmark script (bench/suites/*.bench.mjs, packages/*/bench/*.bench.mjs, apps/*/bench/*.bench.mjs)
// one after another, or only those whose path contains one of the arguments.
import { readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);
const scripts = [];
// Benchmarks that span packages (search + game + network + trainer) live in bench/suites.
for (const f of readdirSync(join(root, 'bench', 'suites')).sort()) if (f.endsWith('.bench.mjs')) scripts.push(join(root, 'bench', 'suites', f));
for (const group of ['packages', 'apps']) {
  for (const pkg of readdirSync(join(root, group))) {
    const dir = join(root, group, pkg, 'bench');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.bench.mjs')) scripts.push(join(dir, f));
  }
}
const selected = filters.length ? scripts.filter((s) => filters.some((f) => s.includes(f))) : scripts;
if (selected.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; available:\n${scripts.map((s) => '  ' + s.slice(root.length + 1)).join('\n')}`);
  process.exit(1);
}
let failed = 0;
for (const script of selected) {
  console.log(`\n=== ${script.slice(root.length + 1)}`);
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

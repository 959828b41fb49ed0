#!/usr/bin/env node
/**
 * The API reference check: runs TypeDoc as `npm run docs:api` does (typedoc.json: every exported symbol of
 * @az/core, @az/mcts and @az/nn documented, every link resolved) without writing the HTML, and fails
 * listing each warning, except those in the files and packages of `NOT_YET_DOCUMENTED` below. That list
 * only shrinks: a file listed there that has no warning left fails the check too, so it is struck off as
 * soon as it is documented. A package listed there is not converted at all (it saves TypeDoc's time on a
 * package with nothing to check yet).
 *
 * Run by `npm test` as the root turbo task `check:api-docs` (after @az/core's build: the other packages
 * import its types from dist/). `node scripts/api-docs.mjs` runs it alone.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Not documented yet: packages (as in typedoc.json's entryPoints) and source files (as TypeDoc names them). */
export const NOT_YET_DOCUMENTED = {
  packages: [],
  files: [],
};

// Colour codes, in case TypeDoc was not told NO_COLOR.
const ANSI = /\x1b\[[0-9;]*m/g;
const SUMMARY = /^\[(?:warning|error|info)\] Found (\d+) errors? and (\d+) warnings?/;

/**
 * TypeDoc's output, read: its warnings and errors (one line each, without the level tag; TypeScript's
 * own diagnostics, which carry no tag, are not counted here but make `summary.errors` non-zero) and its
 * closing count (null when it printed none: it stopped early).
 */
export function parseTypedocOutput(output) {
  const warnings = [];
  const errors = [];
  let summary = null;
  for (const line of output.replace(ANSI, '').split('\n')) {
    const found = SUMMARY.exec(line);
    if (found) summary = { errors: Number(found[1]), warnings: Number(found[2]) };
    else if (line.startsWith('[warning] ')) warnings.push(line.slice('[warning] '.length));
    else if (line.startsWith('[error] ')) errors.push(line.slice('[error] '.length));
  }
  return { warnings, errors, summary };
}

/** The file a warning is about ("..., defined in @az/core/src/rng.ts, ..."), or null when it names none. */
export function warningFile(warning) {
  return /, defined in (\S+?),/.exec(warning)?.[1] ?? null;
}

/**
 * What the check says about one TypeDoc run: `problems` (each a line to print; none means it passes),
 * per file on the list the warnings it still has (`pending`, for the closing line), and whether TypeDoc's
 * own output is needed to tell what went wrong (`showOutput`: it failed, not just warned).
 */
export function judge(output, exitCode, notYet = NOT_YET_DOCUMENTED) {
  const parsed = parseTypedocOutput(output);
  const { warnings, errors } = parsed;
  // TypeDoc prints its closing count only when there is something to count: a run that exits 0 having
  // reported nothing is a clean one (it exits 0 only after converting everything).
  const clean = parsed.summary === null && exitCode === 0 && warnings.length === 0 && errors.length === 0;
  const summary = clean ? { errors: 0, warnings: 0 } : parsed.summary;
  const problems = [];
  const failed = summary === null || summary.errors > 0 || errors.length > 0 || summary.warnings !== warnings.length;
  if (summary === null) problems.push(`TypeDoc stopped before its closing count (exit code ${exitCode}); its output is above`);
  else {
    if (summary.errors > 0 || errors.length > 0) problems.push(`TypeDoc reported ${summary.errors} error(s)${errors.length ? `: ${errors.join('; ')}` : ''}; its output is above`);
    // The count guards the parsing: a warning in a form this script does not read must not pass unseen.
    if (summary.warnings !== warnings.length) problems.push(`TypeDoc counted ${summary.warnings} warning(s) but this check read ${warnings.length}; its output is above`);
  }
  if (summary && summary.errors === 0 && summary.warnings === 0 && exitCode !== 0) problems.push(`TypeDoc exited with code ${exitCode} without a warning or an error`);
  const pending = new Map(notYet.files.map((file) => [file, 0]));
  for (const warning of warnings) {
    const file = warningFile(warning);
    if (file !== null && pending.has(file)) pending.set(file, pending.get(file) + 1);
    else problems.push(warning);
  }
  for (const [file, count] of pending) {
    if (count === 0 && summary !== null && summary.errors === 0) problems.push(`${file} has no warning left: strike it off NOT_YET_DOCUMENTED in scripts/api-docs.mjs`);
  }
  return { problems, pending, showOutput: failed };
}

/** The packages TypeDoc converts: typedoc.json's entry points less those not documented yet. */
export function checkedPackages(config, notYet = NOT_YET_DOCUMENTED) {
  return config.entryPoints.filter((entry) => !notYet.packages.includes(entry));
}

/** Refuses a typedoc.json that no longer asks for what this check relies on (so it cannot pass vacuously). */
export function checkConfig(config) {
  const validation = config.packageOptions?.validation ?? {};
  const missing = ['notDocumented', 'notExported', 'invalidLink'].filter((option) => validation[option] !== true);
  return missing.map((option) => `typedoc.json: packageOptions.validation.${option} must be true (this check relies on it)`);
}

function main() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const config = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8'));
  const configProblems = checkConfig(config);
  if (configProblems.length > 0) {
    for (const problem of configProblems) console.error(problem);
    process.exit(1);
  }
  const packages = checkedPackages(config);
  const bin = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
  const args = [bin, '--emit', 'none', ...packages.flatMap((p) => ['--entryPoints', p])];
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `\n${run.error.message}` : ''}`;
  const { problems, pending, showOutput } = judge(output, run.status ?? 1);
  const later = [...NOT_YET_DOCUMENTED.packages, ...[...pending].map(([file, n]) => `${file} (${n})`)].join(', ');
  if (problems.length > 0) {
    if (showOutput) process.stdout.write(output);
    console.error(`\nAPI reference check: ${problems.length} problem(s) in ${packages.join(', ')}:`);
    for (const problem of problems) console.error(`  ${problem}`);
    console.error('Document each exported symbol where it is declared (a /** ... */ comment: what it is, and briefly why).');
    process.exit(1);
  }
  console.log(`API reference check passed (${packages.join(', ')}); ${later ? `not yet documented: ${later}` : 'every exported symbol is documented'}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();

#!/usr/bin/env node
// `turbo` with its anonymous telemetry off, for the root package.json scripts (`npm run build`, `npm
// test`, `npm run az`...): turbo collects telemetry unless told not to, and az says it writes nothing
// outside the folders it is given. TURBO_TELEMETRY_DISABLED=1 is turbo's documented switch
// (node_modules/turbo/docs/telemetry.mdx). It is set here rather than as `VAR=1 turbo` in the scripts,
// which Windows' cmd.exe (npm's script shell there) cannot run; `turbo telemetry disable` would change
// the user's machine-wide setting instead of this project's.
import { createRequire } from 'node:module';

process.env.TURBO_TELEMETRY_DISABLED = '1';
// turbo's own launcher (its package's main), run in this process: it reads the arguments after the
// script's path from process.argv, starts the platform binary and handles Ctrl-C and the exit code.
createRequire(import.meta.url)('turbo');

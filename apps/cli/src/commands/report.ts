import { join } from 'node:path';
import { writeFileAtomic } from '@az/nn';
import { helpText, parseFlags, UsageError } from '../args.js';
import { checkOutputFile } from '../output-paths.js';
import { buildReport } from '../serve/report.js';

export const reportSpec = {
  name: 'report',
  summary: 'Write one self-contained HTML file with a training run\'s charts and final assessment.',
  usage: 'az report RUN_DIR [--out FILE]',
  positionals: 1,
  flags: {
    out: { type: 'string', description: 'where to write the report (default: RUN_DIR/report.html)', placeholder: 'FILE' },
  },
  examples: ['az report runs/tictactoe', 'az report runs/chess --out chess-run.html'],
} as const;

export async function reportCommand(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parseFlags(reportSpec, argv);
  if (flags.help) {
    console.log(helpText(reportSpec));
    return 0;
  }
  const dir = positionals[0];
  if (!dir) throw new UsageError('az report: give the run directory (e.g. az report runs/tictactoe)');
  if (flags.out) checkOutputFile('report', '--out', flags.out);
  const { html, run } = buildReport(dir);
  for (const warning of run.warnings) console.error(`az report: warning: ${warning}`);
  if (run.rows.length === 0) console.error(`az report: warning: ${run.dir} has no metrics yet (no iteration has finished)`);
  const out = flags.out ?? join(run.dir, 'report.html');
  try {
    // Whole or not at all: a full disk must not leave an empty or truncated report behind.
    await writeFileAtomic(out, html);
  } catch (err) {
    console.error(`az report: cannot write ${out} (${err instanceof Error ? err.message : String(err)}); no report was written (an earlier ${out}, if any, is as it was): free some disk space or choose another --out`);
    return 1;
  }
  console.log(`az report: ${out} (${run.rows.length} iterations, ${(html.length / 1024).toFixed(0)} KB)`);
  return 0;
}

/**
 * `az report RUN`: one self-contained HTML file for sharing a run: the dashboard's charts (uPlot and the
 * chart code inlined, the metrics embedded as JSON), the run's settings and its final assessment. It
 * loads nothing from the network or the disk.
 */
import { readFileSync } from 'node:fs';
import { readRun, type RunData } from './run-data.js';
import { escapeHtml, staticFiles } from './server.js';

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function reportHtml(run: RunData): string {
  const files = staticFiles();
  const read = (name: string): string => readFileSync(files.get(name) as string, 'utf8').replace(/<\/script/gi, '<\\/script');
  const game = typeof run.options?.game === 'string' ? run.options.game : 'run';
  const settings = run.options ? Object.entries(run.options).filter(([, v]) => typeof v !== 'object') : [];
  // A run bounded only by --time-limit records Number.MAX_SAFE_INTEGER as its iteration count.
  const shown = (k: string, v: unknown): string => (k === 'iterations' && v === Number.MAX_SAFE_INTEGER ? 'until the time limit' : String(v));
  const rows = settings.map(([k, v]) => `<strong>${escapeHtml(k)}</strong><span>${escapeHtml(shown(k, v))}</span>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>az report: ${escapeHtml(game)}</title>
<style>${read('style.css')}</style>
<style>${read('uPlot.css')}</style>
</head>
<body>
<header><h1>az training report: ${escapeHtml(game)}</h1><span>${escapeHtml(run.dir)}</span></header>
<main>
  <div class="panel"><h2>Final assessment</h2><ul id="assessment"></ul></div>
  <div class="charts" id="charts"></div>
  <details class="panel"><summary>Settings</summary><div class="kv">${rows}</div></details>
</main>
<script>${read('uPlot.js')}</script>
<script>${read('charts.js')}</script>
<script id="run-data" type="application/json">${scriptJson({ rows: run.rows, summary: run.summary ?? null })}</script>
<script>
  const data = JSON.parse(document.getElementById('run-data').textContent);
  window.azCharts.create(document.getElementById('charts'), data.rows);
  const lines = window.azCharts.assessment(data.rows, data.summary);
  for (const line of lines.length ? lines : ['no iteration finished']) {
    const li = document.createElement('li');
    li.textContent = line;
    document.getElementById('assessment').append(li);
  }
</script>
</body>
</html>
`;
}

export function buildReport(dir: string): { html: string; run: RunData } {
  const run = readRun(dir);
  return { html: reportHtml(run), run };
}

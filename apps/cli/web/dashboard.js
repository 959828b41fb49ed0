// The live dashboard: the run's metrics so far, then each new metrics.jsonl line as a server-sent event.
const $ = (id) => document.getElementById(id);
const rows = new Map();
let charts = null;

function info(run) {
  const o = run.options ?? {};
  const last = [...rows.values()].sort((a, b) => a.iteration - b.iteration).at(-1);
  const items = [
    ['run', run.dir],
    ['game', o.game ?? '?'],
    // A run bounded only by --time-limit records Number.MAX_SAFE_INTEGER as its count.
    ['iterations', `${last ? last.iteration : 0}${o.iterations && o.iterations < Number.MAX_SAFE_INTEGER ? ` of ${o.iterations}` : o.timeLimitSeconds ? ` (until the ${o.timeLimitSeconds} s time limit)` : ''}`],
    ['self-play', o.gamesPerIteration ? `${o.gamesPerIteration} games per iteration, ${o.simulations} simulations` : ''],
    ['replay', last ? `${last.replay?.size} positions` : ''],
    ['assessment', window.azCharts.assessment([...rows.values()], run.summary).join('; ')],
  ];
  $('run-info').replaceChildren(Object.assign(document.createElement('div'), { className: 'kv' }));
  const kv = $('run-info').firstChild;
  for (const [k, v] of items) {
    if (!v) continue;
    kv.append(Object.assign(document.createElement('strong'), { textContent: k }), Object.assign(document.createElement('span'), { textContent: v, id: `info-${k}` }));
  }
}

async function main() {
  const res = await fetch('/api/run');
  const run = await res.json();
  if (!res.ok) throw new Error(run.error);
  for (const r of run.rows) rows.set(r.iteration, r);
  charts = window.azCharts.create($('charts'), [...rows.values()]);
  info(run);
  window.azDashboard = { rows, updates: 0, charts };
  const events = new EventSource('/api/run/events');
  events.addEventListener('open', () => {
    $('live').classList.add('on');
    $('live-text').textContent = 'live';
  });
  events.addEventListener('error', () => {
    $('live').classList.remove('on');
    $('live-text').textContent = 'reconnecting…';
  });
  // The run's settings and summary as they change: a resumed run's new iteration count, its new assessment.
  events.addEventListener('run', (e) => {
    const { options, summary } = JSON.parse(e.data);
    run.options = options ?? undefined;
    run.summary = summary ?? undefined;
    info(run);
  });
  events.addEventListener('metrics', (e) => {
    const row = JSON.parse(e.data);
    const known = rows.has(row.iteration);
    rows.set(row.iteration, row);
    if (!known) {
      charts.update([...rows.values()]);
      info(run);
      window.azDashboard.updates++;
    }
  });
}

main().catch((err) => ($('error').textContent = err.message));

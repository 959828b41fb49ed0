// The training charts (uPlot), shared by the live dashboard and the self-contained `az report` page.
// A classic script: it defines window.azCharts and needs window.uPlot.
(function () {
  const COLORS = ['#c0392b', '#2c5aa0', '#27ae60', '#d68910', '#6c3483', '#117a65', '#7b7d7d', '#a04000'];
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const at = (row, path) => path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), row);
  const score = (r) => (r && r.games > 0 ? (r.wins + r.draws / 2) / r.games : null);
  // Elo difference implied by a score, clipped where a perfect score would make it infinite.
  const eloOf = (s) => (s === null ? null : -400 * Math.log10(1 / Math.min(0.99, Math.max(0.01, s)) - 1));
  const evalNames = (rows) => [...new Set(rows.flatMap((r) => Object.keys(r.eval ?? {})))];
  const seats = (rows) => Math.max(0, ...rows.map((r) => r.selfPlay?.outcomes?.winShareBySeat?.length ?? 0));

  /** Each chart: a title, and the series it has for these rows (labels, how to read a row, which axis). */
  const CHARTS = [
    { id: 'losses', title: 'Training loss', series: () => [
      { label: 'policy', get: (r) => num(at(r, 'train.policyLoss')) },
      { label: 'value', get: (r) => num(at(r, 'train.valueLoss')) },
      { label: 'total', get: (r) => num(at(r, 'train.total')) },
    ] },
    { id: 'speed', title: 'Self-play speed and average batch', series: () => [
      { label: 'evaluations/s', get: (r) => num(at(r, 'selfPlay.evalsPerSecond')) },
      { label: 'average batch', get: (r) => num(at(r, 'selfPlay.averageBatch')), scale: 'y2' },
    ] },
    { id: 'outcomes', title: 'Self-play outcomes (shares of games)', series: (rows) => [
      { label: 'decisive', get: (r) => num(at(r, 'selfPlay.outcomes.decisiveShare')) },
      ...Array.from({ length: seats(rows) }, (_, s) => ({ label: `seat ${s} wins`, get: (r) => num(at(r, 'selfPlay.outcomes.winShareBySeat')?.[s]) })),
    ] },
    { id: 'arena', title: 'Arena score vs each opponent', series: (rows) => evalNames(rows).map((name) => ({ label: name, get: (r) => score(r.eval?.[name]) })) },
    { id: 'elo', title: 'Elo vs each opponent (from the arena score)', series: (rows) => [
      ...(rows.some((r) => num(r.elo) !== null) ? [{ label: 'Elo', get: (r) => num(r.elo) }] : []),
      ...evalNames(rows).map((name) => ({ label: name, get: (r) => eloOf(score(r.eval?.[name])) })),
    ] },
    { id: 'workers', title: 'Self-play workers', series: (rows) => (rows.some((r) => r.workers) ? [
      { label: 'live', get: (r) => num(at(r, 'workers.live')) },
      { label: 'restarts', get: (r) => num(at(r, 'workers.restarts')) },
      { label: 'stale games dropped', get: (r) => num(at(r, 'workers.staleGamesDropped')) },
      { label: 'mean game age', get: (r) => num(at(r, 'workers.meanGameAge')) },
    ] : []) },
    { id: 'time', title: 'Seconds per iteration', series: () => [
      { label: 'self-play', get: (r) => num(at(r, 'seconds.selfPlay')) },
      { label: 'train', get: (r) => num(at(r, 'seconds.train')) },
      { label: 'eval', get: (r) => num(at(r, 'seconds.eval')) },
    ] },
  ];

  // A y axis as wide as its longest tick label: uPlot's fixed 50 px cut '250,000' evaluations/s to '0,000'.
  function axisSize(self, values, axisIdx, cycleNum) {
    const axis = self.axes[axisIdx];
    if (cycleNum > 1) return axis._size;
    const longest = (values ?? []).reduce((a, v) => (String(v).length > a.length ? String(v) : a), '');
    let size = axis.ticks.size + axis.gap;
    if (longest !== '') {
      self.ctx.font = axis.font[0];
      size += self.ctx.measureText(longest).width / devicePixelRatio;
    }
    return Math.ceil(size);
  }

  function options(chart, series, width) {
    const twoAxes = series.some((s) => s.scale === 'y2');
    return {
      title: chart.title,
      width,
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: 'iteration', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] }, { size: axisSize }, ...(twoAxes ? [{ scale: 'y2', side: 1, grid: { show: false }, size: axisSize }] : [])],
      series: [{ label: 'iteration' }, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, scale: s.scale ?? 'y', points: { show: true, size: 5 } }))],
    };
  }

  /** Draws every chart that has data into `container`; `update(rows)` redraws with more rows. */
  function create(container, rows) {
    const built = new Map();
    function update(allRows) {
      const sorted = [...allRows].sort((a, b) => a.iteration - b.iteration);
      const wanted = [];
      for (const chart of CHARTS) {
        const series = chart.series(sorted);
        if (series.length === 0 || sorted.length === 0) continue;
        const existing = built.get(chart.id);
        // Every box is placed before any chart is sized, so each takes its column's width.
        if (!existing) {
          const box = document.createElement('div');
          box.className = 'chart panel';
          box.id = `chart-${chart.id}`;
          container.append(box);
          built.set(chart.id, { key: null, box, plot: null });
        }
        wanted.push({ chart, series });
      }
      for (const { chart, series } of wanted) {
        const data = [sorted.map((r) => r.iteration), ...series.map((s) => sorted.map(s.get))];
        const key = series.map((s) => s.label).join('|');
        const entry = built.get(chart.id);
        if (entry.plot && entry.key === key) {
          entry.plot.setData(data);
          continue;
        }
        entry.plot?.destroy();
        const width = Math.max(240, (entry.box.clientWidth || 560) - 34);
        entry.key = key;
        entry.plot = new window.uPlot(options(chart, series, width), data, entry.box);
      }
    }
    update(rows);
    return { update, plots: () => [...built.values()].map((e) => e.plot) };
  }

  /** One line on how the run ended, from its last metrics row and the game's own assessment. */
  function assessment(rows, summary) {
    const parts = [];
    const last = [...rows].sort((a, b) => a.iteration - b.iteration).at(-1);
    if (summary?.assessment?.summary) parts.push(`${summary.assessment.summary}${summary.assessment.passed === true ? ' (passed)' : summary.assessment.passed === false ? ' (not passed)' : ''}`);
    if (last) {
      parts.push(`after iteration ${last.iteration}: ` + Object.entries(last.eval ?? {}).map(([n, r]) => `vs ${n} ${r.wins}W/${r.draws}D/${r.losses}L (score ${(100 * score(r)).toFixed(0)}%)`).join(', '));
      if (last.train) parts.push(`losses policy ${last.train.policyLoss.toFixed(3)}, value ${last.train.valueLoss.toFixed(3)}`);
    }
    return parts;
  }

  window.azCharts = { create, assessment };
})();

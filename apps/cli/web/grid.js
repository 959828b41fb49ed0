// Grid games (the GridView contract, or a plugin's own view kind carrying its fields): one button per
// cell, clickable where it is a legal target; the board's coordinates around it when the view gives
// them; a button for each named action that is not a cell (a pass).

/** Where cell `i` is, for screen readers: its name in the game's notation when both labels are given (b2). */
function placeOf(view, i) {
  const r = Math.floor(i / view.cols);
  const c = i % view.cols;
  const col = view.columnLabels?.[c];
  const row = view.rowLabels?.[r];
  if (col !== undefined && row !== undefined) return `${col}${row}`;
  return `row ${row ?? r + 1}, column ${col ?? c + 1}`;
}

/** The board with its coordinates: column labels above, row labels to the left (only those the view gives). */
function framed(view, grid, el) {
  if (!view.columnLabels && !view.rowLabels) return grid;
  // Screen readers have each cell's place in its name: the labels are for the eye.
  const cols = view.columnLabels ? el('div', { class: 'coords coord-cols', 'aria-hidden': 'true' }, ...view.columnLabels.map((t) => el('span', {}, t))) : el('span');
  const rows = view.rowLabels ? el('div', { class: 'coords coord-rows', 'aria-hidden': 'true' }, ...view.rowLabels.map((t) => el('span', {}, t))) : el('span');
  return el('div', { class: `board-frame${view.rowLabels ? ' has-rows' : ''}`, id: 'board-frame', style: `--cols: ${view.cols}; --rows: ${view.rows}` }, el('span'), cols, rows, grid);
}

export function renderGrid(s, { board, side, sendMove, el, moveList, analysisPanel, seatName, actionButtons }) {
  const view = s.view;
  const mine = s.toAct === s.humanSeat;
  const targetOf = new Map(view.targets.map((t) => [t.cell, t.action]));
  const highlight = new Set(view.highlight ?? []);
  const grid = el('div', { class: 'grid', id: 'grid', role: 'group', 'aria-label': 'board', tabindex: -1, style: `--cols: ${view.cols}` });
  view.cells.forEach((piece, i) => {
    const action = mine ? targetOf.get(i) : undefined;
    const cls = ['cell', action !== undefined ? 'target' : '', highlight.has(i) ? 'hl' : ''].join(' ');
    const content = piece === null ? '' : piece.label !== '' ? el('span', { class: `seat${piece.seat}` }, piece.label) : el('span', { class: `disc bg-seat${piece.seat}` });
    // A name for screen readers and the keyboard: what is there, and where (a disc or an empty cell has no text).
    const label = `${piece === null ? 'empty' : seatName(piece.seat)}, ${placeOf(view, i)}`;
    grid.append(el('button', { class: cls, 'data-cell': i, 'aria-label': label, disabled: action === undefined, onclick: () => sendMove({ action }) }, content));
  });
  // A move made from the keyboard keeps the focus on the board: the cell, or the nearest one still open.
  const active = document.activeElement;
  const focused = board.contains(active) && active.dataset.cell !== undefined ? Number(active.dataset.cell) : null;
  board.replaceChildren(framed(view, grid, el), actionButtons(s) ?? '');
  if (focused !== null) {
    const open = [...grid.querySelectorAll('.cell.target')].map((c) => Number(c.dataset.cell));
    const nearest = open.sort((a, b) => Math.abs(a - focused) - Math.abs(b - focused))[0];
    (nearest === undefined ? grid : grid.querySelector(`[data-cell="${nearest}"]`)).focus();
  }
  side.append(analysisPanel(s) ?? '', moveList(s));
}

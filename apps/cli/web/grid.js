// Grid games (the GridView contract): one button per cell; cells that are legal targets are clickable.
export function renderGrid(s, { board, side, sendMove, el, moveList, analysisPanel, seatName }) {
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
    const label = `${piece === null ? 'empty' : seatName(piece.seat)}, row ${Math.floor(i / view.cols) + 1}, column ${(i % view.cols) + 1}`;
    grid.append(el('button', { class: cls, 'data-cell': i, 'aria-label': label, disabled: action === undefined, onclick: () => sendMove({ action }) }, content));
  });
  // A move made from the keyboard keeps the focus on the board: the cell, or the nearest one still open.
  const active = document.activeElement;
  const focused = board.contains(active) && active.dataset.cell !== undefined ? Number(active.dataset.cell) : null;
  board.replaceChildren(grid);
  if (focused !== null) {
    const open = [...grid.querySelectorAll('.cell.target')].map((c) => Number(c.dataset.cell));
    const nearest = open.sort((a, b) => Math.abs(a - focused) - Math.abs(b - focused))[0];
    (nearest === undefined ? grid : grid.querySelector(`[data-cell="${nearest}"]`)).focus();
  }
  side.append(analysisPanel(s) ?? '', moveList(s));
}

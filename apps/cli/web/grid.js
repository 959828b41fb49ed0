// Grid games (the GridView contract): one button per cell; cells that are legal targets are clickable.
export function renderGrid(s, { board, side, sendMove, el, moveList, analysisPanel }) {
  const view = s.view;
  const mine = s.toAct === s.humanSeat;
  const targetOf = new Map(view.targets.map((t) => [t.cell, t.action]));
  const highlight = new Set(view.highlight ?? []);
  const grid = el('div', { class: 'grid', id: 'grid', style: `grid-template-columns: repeat(${view.cols}, 64px)` });
  view.cells.forEach((piece, i) => {
    const action = mine ? targetOf.get(i) : undefined;
    const cls = ['cell', action !== undefined ? 'target' : '', highlight.has(i) ? 'hl' : ''].join(' ');
    const content = piece === null ? '' : piece.label !== '' ? el('span', { class: `seat${piece.seat}` }, piece.label) : el('span', { class: `disc bg-seat${piece.seat}` });
    grid.append(el('button', { class: cls, 'data-cell': i, disabled: action === undefined, onclick: () => sendMove({ action }) }, content));
  });
  board.replaceChildren(grid);
  side.append(analysisPanel(s) ?? '', moveList(s));
}

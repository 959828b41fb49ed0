// Chess on chessground (lichess's board): drag or click a piece, legal targets shown as dots, a choice
// of piece on promotion, or type the move; flip, the move list in SAN, FEN and PGN to copy, and what
// the engine thought.
import { Chessground } from '/static/chessground.js';

let cg = null;
let orientation = null;
let lastId = null;
let showThinking = true;
// A move typed in the box: refocus the box after the answer, and keep the text if it was refused.
let typed = null;
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

function pgnOf(s, startFen) {
  const parts = [];
  if (startFen !== START_FEN) parts.push(`[SetUp "1"]\n[FEN "${startFen}"]\n`);
  const blackFirst = startFen.split(' ')[1] === 'b';
  let number = Number(startFen.split(' ')[5] ?? 1);
  const tokens = [];
  s.moves.forEach((m, i) => {
    const whiteMove = blackFirst ? i % 2 === 1 : i % 2 === 0;
    if (whiteMove) tokens.push(`${number}.`);
    else if (i === 0) tokens.push(`${number}...`);
    tokens.push(m.text);
    if (!whiteMove) number++;
  });
  const result = !s.over ? '*' : s.result.returns[0] > s.result.returns[1] ? '1-0' : s.result.returns[0] < s.result.returns[1] ? '0-1' : '1/2-1/2';
  tokens.push(result);
  return parts.join('') + tokens.join(' ');
}

export function renderChess(s, { board, side, sendMove, el }) {
  const view = s.view;
  const color = s.humanSeat === 0 ? 'white' : 'black';
  const turn = view.fen.split(' ')[1] === 'w' ? 'white' : 'black';
  const mine = s.toAct === s.humanSeat;
  // The position the game started from (a FEN setting, or the standard one), as the server tells it:
  // when the computer moves first, the page never sees it on the board.
  const startFen = s.start ?? START_FEN;
  if (lastId !== s.id) {
    lastId = s.id;
    orientation = color;
  }
  const dests = new Map();
  if (mine) for (const m of view.moves) dests.set(m.from, [...(dests.get(m.from) ?? []), m.to]);
  const promo = el('div', { class: 'promotion', id: 'promotion' });
  const config = {
    fen: view.fen,
    orientation,
    turnColor: turn,
    check: view.check ? turn : false,
    lastMove: view.lastMove ? [...view.lastMove] : undefined,
    movable: { free: false, color: mine ? color : undefined, dests, showDests: true, events: { after: onMove } },
    premovable: { enabled: false },
    animation: { enabled: true, duration: 150 },
  };
  function onMove(from, to) {
    const candidates = view.moves.filter((m) => m.from === from && m.to === to);
    if (candidates.length === 1) return void sendMove({ action: candidates[0].action });
    // A promotion: one legal move per piece; ask which.
    promo.replaceChildren(el('span', {}, 'Promote to: '), ...candidates.map((m) => el('button', { 'data-piece': m.promotion, onclick: () => sendMove({ action: m.action }) }, { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight' }[m.promotion] ?? m.san)));
  }
  if (!cg || !board.contains(cg.state.dom.elements.wrap)) {
    const holder = el('div', { class: 'cg-holder', id: 'chessboard' });
    board.replaceChildren(holder, promo);
    cg = Chessground(holder, config);
  } else {
    board.querySelector('#promotion')?.replaceWith(promo);
    cg.set(config);
  }
  const controls = el('div', { class: 'panel controls' },
    el('button', { id: 'flip', onclick: () => { orientation = orientation === 'white' ? 'black' : 'white'; cg.set({ orientation }); } }, 'Flip board'),
    el('button', { id: 'copy-fen', onclick: () => copy(view.fen) }, 'Copy FEN'),
    el('button', { id: 'copy-pgn', onclick: () => copy(pgnOf(s, startFen)) }, 'Copy PGN'),
    el('label', {}, el('input', { type: 'checkbox', id: 'show-thinking', checked: showThinking, onchange: (e) => { showThinking = e.target.checked; thinking.hidden = !showThinking; } }), 'show thinking'));
  const moveForm = mine ? typedMove(s, sendMove, el) : null;
  const thinking = thinkingPanel(s, el);
  thinking.hidden = !showThinking;
  side.append(...(moveForm ? [moveForm] : []), controls, thinking, sanList(s, startFen, el), el('div', { class: 'panel' }, el('strong', {}, 'FEN '), el('code', { id: 'fen' }, view.fen)));
}

/** The keyboard's way to move (the board takes only the mouse or touch): a move in SAN or UCI. */
function typedMove(s, sendMove, el) {
  const input = el('input', { id: 'move-text', autocomplete: 'off', spellcheck: 'false', placeholder: 'e4, Nf3, e7e8q', style: 'width:8rem' });
  const form = el('form', { class: 'panel controls', id: 'move-form', onsubmit: (e) => {
    e.preventDefault();
    typed = { text: input.value, moves: s.moves.length, id: s.id };
    void sendMove({ move: input.value });
  } }, el('label', {}, 'Your move', input), el('button', { type: 'submit' }, 'Play'));
  if (typed && typed.id === s.id) {
    if (typed.moves === s.moves.length) input.value = typed.text;
    typed = null;
    queueMicrotask(() => input.focus());
  }
  return form;
}

function copy(text) {
  navigator.clipboard?.writeText(text).catch(() => undefined);
  window.azCopied = text;
}

function sanList(s, startFen, el) {
  const rows = [];
  const blackFirst = startFen.split(' ')[1] === 'b';
  const moves = blackFirst ? [null, ...s.moves] : s.moves;
  for (let i = 0; i < moves.length; i += 2) {
    rows.push(el('tr', {}, el('td', {}, `${i / 2 + 1}.`), el('td', {}, moves[i]?.text ?? '…'), el('td', {}, moves[i + 1]?.text ?? '')));
  }
  const box = el('div', { class: 'panel moves', id: 'moves' }, el('strong', {}, 'Moves'), el('table', {}, ...rows));
  queueMicrotask(() => (box.scrollTop = box.scrollHeight));
  return box;
}

function thinkingPanel(s, el) {
  const a = s.analysis;
  if (!a) return el('div', { class: 'panel thinking', id: 'thinking' }, el('strong', {}, 'Engine'), el('div', {}, s.opponent));
  // The value is the mover's; shown from White's side as lichess does, as an expected score.
  const whiteValue = a.seat === 0 ? a.value : -a.value;
  const rows = a.top.map((t) => el('tr', {}, el('td', {}, t.move), el('td', {}, `${(t.share * 100).toFixed(1)}%`), el('td', { style: 'width:120px' }, el('div', { class: 'bar', style: `width:${Math.round(t.share * 120)}px` }))));
  return el('div', { class: 'panel thinking', id: 'thinking' },
    el('strong', {}, `${s.opponent}: ${a.simulations} simulations`),
    el('div', { class: 'eval', id: 'eval' }, `${whiteValue >= 0 ? '+' : ''}${whiteValue.toFixed(2)}`),
    el('div', {}, `value for White (−1 loss … +1 win); White scores ${(50 + 50 * whiteValue).toFixed(0)}% by its estimate`),
    el('table', { id: 'top-moves' }, ...rows));
}

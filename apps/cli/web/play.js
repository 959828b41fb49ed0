// The play page: a setup form from the game's settings, then one renderer per view kind (grid, chess,
// cards). A kind the page does not know (a plugin's own) is drawn as a grid when it carries one, else as
// its lines of text (or the game's text) with a move list: never a blank page. Seats are named as the
// view names them. The server holds the game; the page sends moves and draws the snapshot it gets back,
// which holds only what the human's seat may see.
import { renderGrid } from '/static/grid.js';
import { renderChess } from '/static/chess.js';
import { renderCards } from '/static/cards.js';

const gameId = decodeURIComponent(location.pathname.split('/').pop() ?? '');
const $ = (id) => document.getElementById(id);
const statusEl = $('status');
const errorEl = $('error');
let snapshot = null;
let busy = false;
/** The server no longer has the game shown (it answered 404 for it): moves wait for a new game. */
let gone = false;

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** An answer the server gave with an error (`status` 400, 404...), or none at all (`status` 0). */
class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** Times a request refused because the server is busy (503) is sent again, each after the wait it names. */
const BUSY_RETRIES = 5;

/** The seconds a 503 asks to wait (its Retry-After), kept within 1..30. */
function retryAfterSeconds(res) {
  const seconds = Number(res.headers.get('retry-after'));
  return Number.isFinite(seconds) ? Math.min(30, Math.max(1, Math.round(seconds))) : 2;
}

async function api(path, body) {
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await fetch(path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    } catch {
      // fetch says only 'Failed to fetch': the server is gone (stopped, or the network between).
      throw new ApiError(`Could not reach az serve at ${location.host}: is it still running? Start it again, then retry.`, 0);
    }
    const data = await res.json().catch(() => ({}));
    // Busy with other games' searches: the server played nothing, so the same request is sent again.
    if (res.status === 503 && attempt <= BUSY_RETRIES) {
      const seconds = retryAfterSeconds(res);
      statusEl.textContent = `The server is busy with other games' moves: trying again in ${seconds} s (${attempt} of ${BUSY_RETRIES})...`;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      continue;
    }
    if (!res.ok) throw new ApiError(data.error ?? `the server answered ${res.status} ${res.statusText}`, res.status);
    return data;
  }
}

/** A seat as the game's view names it (Black, White), else by number. */
export function seatName(seat) {
  return snapshot?.view?.seatNames?.[seat] ?? `Seat ${seat}`;
}

function settingInput(key, field) {
  const id = `cfg-${key}`;
  let input;
  if (field.type === 'enum') input = el('select', { id }, ...field.values.map((v) => el('option', { value: v, selected: v === field.default }, field.valueLabels?.[v] ?? v)));
  else if (field.type === 'boolean') input = el('input', { id, type: 'checkbox', checked: field.default });
  else input = el('input', { id, type: field.type === 'string' ? 'text' : 'number', value: field.default, min: field.min, max: field.max, style: field.type === 'string' ? 'width:18rem' : 'width:5rem' });
  // A game may give a setting a label for people; its key stays what --config takes.
  return el('label', { title: field.description }, field.label ?? key, input);
}

function readSettings(settings) {
  const config = {};
  for (const [key, field] of Object.entries(settings)) {
    const input = $(`cfg-${key}`);
    const value = field.type === 'boolean' ? input.checked : field.type === 'int' || field.type === 'number' ? Number(input.value) : input.value;
    if (value !== field.default) config[key] = value;
  }
  return config;
}

/** Seats at the table the settings ask for: the `players` setting when the game has one, else its most. */
function seatsAsked(game) {
  const players = Number($('cfg-players')?.value);
  return Number.isInteger(players) && players >= 1 && players <= game.maxPlayers ? players : game.maxPlayers;
}

/** The seat menu for a table of `count` seats, keeping the seat chosen when the table still has it. */
function fillSeats(count) {
  const menu = $('seat');
  const chosen = Number(menu.value) || 0;
  menu.replaceChildren(...Array.from({ length: count }, (_, s) => el('option', { value: s }, seatName(s))));
  menu.value = String(Math.min(chosen, count - 1));
}

async function setup() {
  const [games, info] = await Promise.all([api('/api/games'), api('/api/info')]);
  const game = games.find((g) => g.id === gameId);
  if (!game) {
    statusEl.textContent = `No game '${gameId}' is installed.`;
    return;
  }
  document.title = `az: ${game.name}`;
  $('title').textContent = game.name;
  for (const o of game.opponents) $('opponent').append(el('option', { value: o, selected: o === game.defaultOpponent }, o === 'model' && info.model ? `model (iteration ${info.model.iteration})` : o));
  const extra = $('extra-config');
  const keys = Object.entries(game.settings);
  if (keys.length > 0) extra.append(el('details', {}, el('summary', {}, 'settings'), el('div', { class: 'controls' }, ...keys.map(([k, f]) => settingInput(k, f)))));
  // The seats follow the table size being set (Blob's players), so no seat the table lacks is offered.
  fillSeats(seatsAsked(game));
  $('cfg-players')?.addEventListener('input', () => fillSeats(seatsAsked(game)));
  $('new-game').addEventListener('click', () => newGame(game));
  // The game in progress is named in the URL (#<game id>): a reload, or the link, shows it again.
  const saved = location.hash.slice(1);
  const missed = saved ? await resume(saved) : null;
  if (missed === '') return;
  await newGame(game);
  if (missed && !errorEl.textContent) errorEl.textContent = missed;
}

/** Shows the game `id` again (after a reload): '' when it does, else why not. */
async function resume(id) {
  let s;
  try {
    s = await api(`/api/sessions/${encodeURIComponent(id)}`);
  } catch {
    return 'The game in this link is no longer on the server (az serve was restarted, or the game was dropped for newer ones): this is a new game.';
  }
  if (s.game.id !== gameId) return `The game in this link is a ${s.game.name} game: this is a new game here.`;
  snapshot = s;
  window.azSnapshot = s;
  fillSeats(s.game.numPlayers);
  $('seat').value = String(s.humanSeat);
  const opponent = [...$('opponent').options].find((o) => o.value === s.opponent || (o.value === 'model' && s.opponent.startsWith('model')));
  if (opponent) $('opponent').value = opponent.value;
  draw(s);
  document.body.dataset.busy = 'false';
  return '';
}

async function newGame(game) {
  const body = { seat: Number($('seat').value), opponent: $('opponent').value, config: readSettings(game.settings) };
  const sims = $('sims').value.trim();
  if (sims !== '') body.sims = Number(sims);
  await act(() => api(`/api/games/${encodeURIComponent(gameId)}/sessions`, body), 'starting...');
}

/** Sends a move; the snapshot that comes back already holds the computer's replies. */
export function sendMove(move) {
  if (!snapshot || busy || gone) return Promise.resolve();
  const id = snapshot.id;
  const request = () => api(`/api/sessions/${id}/move`, move).catch(async (err) => {
    if (err.status === 404) gone = true;
    else if (err.status === 400 || err.status === 409) {
      // Refused: the game may have moved on in another tab (the link names the game). Show it as the
      // server has it, with the reason.
      const current = await api(`/api/sessions/${id}`).catch(() => null);
      if (current) {
        snapshot = current;
        window.azSnapshot = current;
      }
    }
    throw err;
  });
  return act(request, 'thinking...');
}

async function act(request, waitText) {
  busy = true;
  errorEl.textContent = '';
  statusEl.textContent = waitText;
  document.body.dataset.busy = 'true';
  try {
    snapshot = await request();
    gone = false;
    window.azSnapshot = snapshot;
    history.replaceState(null, '', `#${snapshot.id}`);
  } catch (err) {
    errorEl.textContent = err.message;
  } finally {
    busy = false;
    document.body.dataset.busy = 'false';
    if (snapshot) draw(snapshot);
  }
}

function describeStatus(s) {
  if (gone) return 'This game is no longer on the server: start a new game.';
  if (s.over) return `Game over: ${s.result.verdict}.`;
  if (s.toAct === s.humanSeat) return `Your move (${seatName(s.humanSeat)}).`;
  return `${seatName(s.toAct)} to move.`;
}

/** The moves so far; `show` writes a move's text as the board does (Blob's '3S' as 3♠). */
function moveList(s, show = (text) => text) {
  const items = s.moves.map((m) => el('li', {}, el('span', { class: `seat${m.seat}` }, `${seatName(m.seat)}: `), show(m.text)));
  const list = el('ol', {}, ...items);
  const box = el('div', { class: 'panel moves', id: 'moves' }, el('strong', {}, 'Moves'), list);
  queueMicrotask(() => (box.scrollTop = box.scrollHeight));
  return box;
}

/** Every legal move as a button, and a box for one typed in the game's notation; `skip` leaves some out (those with a named button). */
function legalButtons(s, skip = new Set()) {
  if (s.legal.length === 0) return null;
  const input = el('input', { id: 'move-text', placeholder: 'type a move', 'aria-label': 'Your move', style: 'width:8rem' });
  const form = el('form', { onsubmit: (e) => { e.preventDefault(); void sendMove({ move: input.value }); } }, input, el('button', { type: 'submit' }, 'Play'));
  const moves = s.legal.filter((m) => !skip.has(m.action));
  return el('div', { class: 'panel legal' }, el('strong', {}, 'Legal moves '), ...moves.map((m) => el('button', { class: 'move', 'data-action': m.action, onclick: () => sendMove({ action: m.action }) }, m.text)), form);
}

/**
 * The view's named actions that no square offers (pass, resign, draw offer), one button each; usable
 * when it is the human's move. A button pressed from the keyboard keeps the focus after the answer.
 */
export function actionButtons(s) {
  const actions = s.view?.actions ?? [];
  if (actions.length === 0) return null;
  const mine = s.toAct === s.humanSeat && !s.over;
  return el('div', { class: 'actions', id: 'actions', role: 'group', 'aria-label': 'other moves' },
    ...actions.map((a) => el('button', { class: 'action', 'data-action': a.action, disabled: !mine, onclick: () => sendMove({ action: a.action }) }, a.label)));
}

/** A view the page has no renderer for and no grid in: its lines (else the game's text), its named actions, every legal move. */
function renderText(s) {
  const lines = s.view?.lines;
  $('board').replaceChildren(el('pre', { class: 'render', id: 'view-text' }, Array.isArray(lines) ? lines.join('\n') : s.text), actionButtons(s) ?? '');
  const named = new Set((s.view?.actions ?? []).map((a) => a.action));
  $('side').append(legalButtons(s, named) ?? '', analysisPanel(s) ?? '', moveList(s));
}

/** Whether a view carries a board the grid renderer can draw (a grid, or a plugin's own kind with the grid fields). */
function hasGrid(view) {
  return Array.isArray(view?.cells) && Number.isInteger(view.rows) && Number.isInteger(view.cols) && Array.isArray(view.targets);
}

/** The focus on a named action button before a redraw, to put back on the same action after it. */
function focusedAction() {
  const active = document.activeElement;
  return active?.closest?.('#actions') ? active.dataset.action : null;
}

/** What the search behind the computer's last move found (perfect-information games only). */
export function analysisPanel(s) {
  const a = s.analysis;
  if (!a) return null;
  const rows = a.top.map((t) => el('tr', {}, el('td', {}, t.move), el('td', {}, `${(t.share * 100).toFixed(1)}%`), el('td', { style: 'width:120px' }, el('div', { class: 'bar', style: `width:${Math.round(t.share * 120)}px` }))));
  return el('div', { class: 'panel thinking', id: 'thinking' },
    el('strong', {}, `${s.opponent} (${seatName(a.seat)}): ${a.simulations} simulations`),
    el('div', {}, `value for ${seatName(a.seat)}: `, el('span', { class: 'eval' }, `${a.value >= 0 ? '+' : ''}${a.value.toFixed(2)}`), ' (−1 loss … +1 win)'),
    el('table', { id: 'top-moves' }, ...rows));
}

function draw(s) {
  statusEl.textContent = describeStatus(s);
  statusEl.className = s.over || gone ? 'over' : '';
  document.body.dataset.gone = String(gone);
  const board = $('board');
  const side = $('side');
  side.replaceChildren();
  const ctx = { board, side, sendMove, seatName, el, moveList, legalButtons, analysisPanel, actionButtons };
  const kind = s.view?.kind;
  const refocus = focusedAction();
  if (kind === 'chess') renderChess(s, ctx);
  else if (kind === 'cards') renderCards(s, ctx);
  else if (kind === 'grid' || hasGrid(s.view)) renderGrid(s, ctx);
  else renderText(s);
  // The chess and card renderers have no place of their own for named actions: they go under the board.
  if ((kind === 'chess' || kind === 'cards') && s.view.actions?.length) board.append(actionButtons(s));
  if (refocus !== null) ($('actions')?.querySelector(`[data-action="${refocus}"]:not(:disabled)`) ?? board.querySelector('button:not(:disabled)'))?.focus();
  // The seat menu says the seats as the game names them, once a view has named them.
  for (const option of $('seat').options) option.textContent = seatName(Number(option.value));
  if (s.over) side.prepend(el('div', { class: 'panel', id: 'result' }, el('strong', {}, `Result: ${s.result.verdict}`), el('div', {}, `returns by seat: ${s.result.returns.map((r) => r.toFixed(2)).join(', ')}`)));
}

setup().catch((err) => (errorEl.textContent = err.message));

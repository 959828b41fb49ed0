// Blob (and other trick-taking games with a CardTableView): the seat's own hand, the others' card
// backs, bids (a bid the rules refuse shown disabled, with why), trump, the trick in progress and the
// last one (the round before's, until the new round's first trick is done), tricks won, scores per
// round, and the moves with the table's suit symbols.
const SUITS = { S: '♠', H: '♥', C: '♣', D: '♦' };
const SUIT_NAMES = { S: 'spades', H: 'hearts', C: 'clubs', D: 'diamonds' };
const RANK_NAMES = { J: 'jack', Q: 'queen', K: 'king', A: 'ace' };
let roundLog = [];
let logId = null;

function card(el, text, attrs = {}, tag = 'span') {
  const suit = text.slice(-1);
  const rank = text.slice(0, -1);
  const { class: extra = '', ...rest } = attrs;
  const red = suit === 'H' || suit === 'D';
  // Named in words for screen readers ('10 of spades'); a span needs a role for its name to count.
  const name = `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit] ?? suit}`;
  return el(tag, { class: `card${red ? ' red' : ''} ${extra}`, 'data-card': text, 'aria-label': name, ...(tag === 'span' ? { role: 'img' } : {}), ...rest }, el('span', {}, rank), el('span', { class: 'suit' }, SUITS[suit] ?? suit));
}

/** A move as the table shows it: a card's suit letter as its symbol ('3S' -> '3♠'), anything else as is. */
export function withSuitSymbols(text) {
  const m = /^(10|[2-9JQKA])([SHCD])$/.exec(text);
  return m ? `${m[1]}${SUITS[m[2]]}` : text;
}

function loadRounds(id) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`az-rounds-${id}`) ?? '[]');
    return Array.isArray(saved) ? saved : [];
  } catch {
    return [];
  }
}

function saveRounds(id, rounds) {
  try {
    sessionStorage.setItem(`az-rounds-${id}`, JSON.stringify(rounds));
  } catch {
    // No storage (a private window may refuse it): the rows last until a reload.
  }
}

export function renderCards(s, { board, side, sendMove, seatName, el, moveList }) {
  const v = s.view;
  if (logId !== s.id) {
    logId = s.id;
    roundLog = loadRounds(s.id);
  }
  // Per-round points: the view carries the last finished round's; keep one row per round seen (in the
  // tab's session storage too, so a reload keeps the rows of the rounds before it).
  if (v.round > 0 && !roundLog.some((r) => r.round === v.round - 1)) {
    roundLog.push({ round: v.round - 1, points: v.lastRoundScores });
    saveRounds(s.id, roundLog);
  }
  const legalByLabel = new Map(v.legal.map((m) => [m.label, m.action]));
  const seats = [];
  for (let p = 0; p < v.numPlayers; p++) {
    const me = p === v.seat;
    seats.push(el('div', { class: `seat${me ? ' me' : ''}${!s.over && v.toAct === p ? ' acting' : ''}`, 'data-seat': p },
      el('div', { class: 'name' }, `${me ? 'You' : seatName(p)}${v.dealer === p ? ' (dealer)' : ''}`),
      el('div', {}, `bid ${v.bids[p] ?? '–'} · won ${v.tricksWon[p]} · score ${v.scores[p]}`),
      me ? null : el('div', { class: 'backs', role: 'img', 'aria-label': `${v.handSizes[p]} cards` }, '🂠'.repeat(v.handSizes[p]))));
  }
  const who = (seat) => (seat === v.seat ? 'you' : seatName(seat));
  const played = (cards) => cards.map((t) => el('div', { class: 'played' }, card(el, t.card), el('div', {}, who(t.seat))));
  // Until a trick of this round is done, the table keeps the last trick of the round before: the deal
  // came with the last card, so this is the only place a player sees how that round ended.
  const earlier = v.lastTrickRound !== undefined && v.lastTrick.length > 0;
  const trick = v.trick.length
    ? el('div', { class: 'trick', id: 'trick' }, ...played(v.trick))
    : earlier
      ? el('div', { class: 'trick earlier', id: 'trick' }, el('div', { class: 'caption', id: 'previous-trick' }, `Last trick of round ${v.lastTrickRound + 1}, taken by ${who(v.lastTrickWinner)}`), ...played(v.lastTrick))
      : el('div', { class: 'trick', id: 'trick' }, el('span', {}, v.phase === 'bid' ? 'Bidding' : 'Trick empty'));
  const info = el('div', { class: 'info' },
    el('span', { id: 'trump' }, `Trump: ${v.trump ? SUITS[v.trump] : 'none'}`),
    v.turnedUp ? el('span', {}, 'turned up ', card(el, v.turnedUp)) : null,
    // At the end the view's round counts the rounds played (there is no next one to show).
    el('span', { id: 'round' }, v.phase === 'over' ? `${v.round} round${v.round === 1 ? '' : 's'} played` : `Round ${v.round + 1}, ${v.cardsDealt} card${v.cardsDealt === 1 ? '' : 's'}`),
    v.lastTrick.length && !earlier ? el('span', { id: 'last-trick' }, `last trick (${who(v.lastTrickWinner)}): `, ...v.lastTrick.map((t) => card(el, t.card))) : null);
  const playing = v.phase === 'play' && v.toAct === v.seat && !s.over;
  const hand = el('div', { class: 'hand', id: 'hand' }, el('div', {}, 'Your hand'), ...v.hand.map((c) => {
    const action = playing ? legalByLabel.get(c) : undefined;
    return card(el, c, { class: action !== undefined ? 'playable' : '', disabled: action === undefined, onclick: () => sendMove({ action }) }, 'button');
  }));
  const bids = v.phase === 'bid' && v.toAct === v.seat && !s.over ? bidRow(v, el, sendMove) : null;
  // A bid or card played from the keyboard keeps the focus at the table: on the next bid or playable card.
  const hadFocus = board.contains(document.activeElement) && document.activeElement.tagName === 'BUTTON';
  board.replaceChildren(el('div', { class: 'table', id: 'card-table', tabindex: -1 }, el('div', { class: 'seats' }, ...seats), info, trick, bids, hand));
  if (hadFocus) (board.querySelector('#bids button:not(:disabled), #hand button.playable') ?? board.querySelector('#card-table')).focus();
  const head = el('tr', {}, el('th', {}, 'round'), ...Array.from({ length: v.numPlayers }, (_, p) => el('th', {}, p === v.seat ? 'you' : seatName(p))));
  const rows = roundLog.map((r) => el('tr', {}, el('td', {}, String(r.round + 1)), ...r.points.map((x) => el('td', {}, String(x)))));
  const total = el('tr', {}, el('th', {}, 'total'), ...v.scores.map((x) => el('th', {}, String(x))));
  side.append(el('div', { class: 'panel' }, el('strong', {}, 'Scores'), el('table', { class: 'scores', id: 'scores' }, head, ...rows, total)), moveList(s, withSuitSymbols));
}

/** The bids in order: the legal ones to press, a refused one (the dealer's hook) disabled with the reason beside it. */
function bidRow(v, el, sendMove) {
  const number = (label) => Number(label.replace('bid ', ''));
  const offered = [
    ...v.legal.map((m) => ({ bid: number(m.label), label: m.label, action: m.action })),
    ...(v.refused ?? []).map((r) => ({ bid: number(r.label), label: r.label, reason: r.reason })),
  ].sort((a, b) => a.bid - b.bid);
  const buttons = offered.map((b) => b.reason === undefined
    ? el('button', { 'data-bid': b.bid, 'aria-label': b.label, onclick: () => sendMove({ action: b.action }) }, String(b.bid))
    : el('button', { 'data-bid': b.bid, class: 'refused', 'aria-label': `${b.label}, not allowed`, 'aria-describedby': 'bid-refused', title: b.reason, disabled: true }, String(b.bid)));
  const reasons = (v.refused ?? []).map((r) => r.reason);
  return el('div', { class: 'bids', id: 'bids' }, 'Your bid: ', ...buttons, reasons.length ? el('div', { class: 'refusal', id: 'bid-refused' }, `${reasons.map((r) => r[0].toUpperCase() + r.slice(1)).join('. ')}.`) : null);
}

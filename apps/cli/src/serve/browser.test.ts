// az serve in a real browser (Chromium through playwright-core): a whole tic-tac-toe game by clicks, a
// chess move by drag with the search's reply, a Blob round bid and played with no hidden card ever
// reaching the page, a plugin's grid game with a pass button and views of its own kind, and the
// dashboard of a finished run drawing its charts and following new lines.
// Set AZ_SCREENSHOT_DIR (e.g. docs/images) to save the screenshots the README shows.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Rng, defaultRegistry, resolveGame, resolveGameConfig, type CardTableView, type Game, type GamePlugin } from '@az/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverGamePlugins } from '../plugins.js';
import { startServer, type RunningServer } from './server.js';
import { cardsNamedIn } from './test-cards.js';
import { holdFirstRollout } from './test-searches.js';
import type { PlaySnapshot } from './sessions.js';
import { chromium, launchChromium } from './test-browser.js';
import { claimPlugin } from './test-pass-game.js';

const screenshotDir = process.env.AZ_SCREENSHOT_DIR ? resolve(process.env.AZ_SCREENSHOT_DIR) : undefined;

async function screenshot(page: Page, name: string): Promise<void> {
  if (screenshotDir) await page.screenshot({ path: join(screenshotDir, name), fullPage: true });
}

/** Clicks and waits for the move's answer to be drawn. */
async function clickAndWait(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForResponse((r) => r.url().includes('/move') && r.request().method() === 'POST'), page.click(selector)]);
  await page.waitForFunction("document.body.dataset.busy === 'false'");
}

describe.skipIf(chromium.path === undefined)('az serve in Chromium', () => {
  let browser: Browser;
  let server: RunningServer;

  beforeAll(async () => {
    await discoverGamePlugins(defaultRegistry);
    // A plugin game with a pass and a view kind of its own, as a third party would write one.
    if (!defaultRegistry.has('claim')) defaultRegistry.register(claimPlugin as unknown as GamePlugin);
    server = await startServer({ port: 0, simulations: 16, seed: 3 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function openPage(path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    page.on('pageerror', (err) => {
      throw err;
    });
    await page.goto(server.url + path);
    return page;
  }

  it('plays a whole tic-tac-toe game by clicking cells and shows the result', async () => {
    const page = await openPage('/play/tictactoe');
    await page.waitForSelector('#grid .cell');
    let clicks = 0;
    while (!(await page.textContent('#status'))?.startsWith('Game over')) {
      await clickAndWait(page, '#grid .cell.target');
      clicks++;
      expect(clicks).toBeLessThanOrEqual(5);
    }
    expect(await page.textContent('#status')).toMatch(/^Game over: (you win|you lose|a draw)\.$/);
    // X moved first and both seats' marks are on the board.
    const marks = await page.$$eval('#grid .cell span', (spans) => spans.map((s) => s.textContent));
    expect(marks.filter((m) => m === 'X')).toHaveLength(clicks);
    expect(marks.filter((m) => m === 'O').length).toBeGreaterThanOrEqual(clicks - 1);
    expect(await page.$$('#grid .cell.target')).toHaveLength(0);
    await page.close();
  });

  it('loads each page without a failed request or a console error', async () => {
    for (const path of ['/', '/play/tictactoe', '/play/chess', '/play/blob', '/play/claim']) {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)));
      page.on('response', (r) => void (r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`)));
      page.on('requestfailed', (r) => problems.push(`failed ${r.url()}`));
      // 'load' waits for the icon too: Chromium asks for /favicon.ico unless the page names an icon.
      await page.goto(server.url + path, { waitUntil: 'load' });
      await page.waitForFunction(path === '/' ? "document.querySelectorAll('#games li').length > 0" : "document.body.dataset.busy === 'false'");
      expect(problems, path).toEqual([]);
      await page.close();
    }
  });

  it('names each grid cell for the keyboard and screen readers, and announces the status', async () => {
    const page = await openPage('/play/tictactoe');
    await page.waitForSelector('#grid .cell.target');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const names = (): Promise<(string | null)[]> => page.$$eval('#grid .cell', (cells) => cells.map((c) => c.getAttribute('aria-label')));
    // Each cell is named as the game's notation names it (a1 top-left), and the board shows those coordinates.
    expect(await names()).toEqual(['1', '2', '3'].flatMap((r) => ['a', 'b', 'c'].map((c) => `empty, ${c}${r}`)));
    expect(await page.$$eval('#board-frame .coord-cols span', (s) => s.map((x) => x.textContent))).toEqual(['a', 'b', 'c']);
    expect(await page.$$eval('#board-frame .coord-rows span', (s) => s.map((x) => x.textContent))).toEqual(['1', '2', '3']);
    await page.getByRole('button', { name: 'empty, b2' }).focus();
    await Promise.all([page.waitForResponse((r) => r.url().includes('/move')), page.keyboard.press('Enter')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.getByRole('button', { name: 'X, b2' }).isDisabled()).toBe(true);
    expect(await page.$$eval('#moves li', (items) => items.map((i) => i.textContent)[0])).toBe('X: b2');
    expect((await names()).filter((n) => n?.startsWith('O,'))).toHaveLength(1);
    // The focus stays on the board, on an open cell, for the next move.
    expect(await page.evaluate("document.activeElement.matches('#grid .cell.target')")).toBe(true);
    expect(await page.getByRole('status').textContent()).toBe('Your move (X).');
    expect(await page.locator('#error').getAttribute('role')).toBe('alert');
    await page.close();
  });

  it("a plugin's grid game: coordinates around the board, seats by name, and a Pass button that plays by click and from the keyboard", async () => {
    const page = await openPage('/play/claim');
    await page.waitForSelector('#grid .cell.target');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.$$eval('#board-frame .coord-cols span', (s) => s.map((x) => x.textContent))).toEqual(['a', 'b', 'c']);
    expect(await page.$$eval('#board-frame .coord-rows span', (s) => s.map((x) => x.textContent))).toEqual(['2', '1']);
    expect(await page.$$eval('#grid .cell', (cells) => cells.map((c) => c.getAttribute('aria-label')))).toEqual(['a2', 'b2', 'c2', 'a1', 'b1', 'c1'].map((c) => `empty, ${c}`));
    // The seats are called what the game calls them: in the status, the seat menu and the move list.
    expect(await page.textContent('#status')).toBe('Your move (Black).');
    expect(await page.$$eval('#seat option', (options) => options.map((o) => o.textContent))).toEqual(['Black', 'White']);
    const pass = page.getByRole('button', { name: 'Pass' });
    expect(await pass.isEnabled()).toBe(true);
    await Promise.all([page.waitForResponse((r) => r.url().includes('/move')), pass.click()]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const moves = (): Promise<string[]> => page.$$eval('#moves li', (items) => items.map((i) => i.textContent ?? ''));
    expect((await moves())[0]).toBe('Black: pass');
    expect((await moves())[1]).toMatch(/^White: ([abc][12]|pass)$/);
    await screenshot(page, 'serve-grid-pass.png');
    // From the keyboard: Enter on the focused Pass button passes, and the focus stays on it for the next move.
    if (!(await page.textContent('#status'))?.startsWith('Game over')) {
      await pass.focus();
      await Promise.all([page.waitForResponse((r) => r.url().includes('/move')), page.keyboard.press('Enter')]);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
      expect((await moves())[2]).toBe('Black: pass');
      if (!(await page.textContent('#status'))?.startsWith('Game over')) expect(await page.evaluate("document.activeElement.textContent")).toBe('Pass');
    }
    await page.close();
  });

  it("a plugin's own view kind: drawn as a grid when it carries one, else as its text with the Pass button and the legal moves", async () => {
    const page = await openPage('/play/claim');
    await page.waitForSelector('#grid .cell');
    await page.click('#extra-config summary');
    const start = async (view: string): Promise<void> => {
      await page.selectOption('#cfg-view', view);
      await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
    };
    await start('custom-grid');
    expect(((await page.evaluate('window.azSnapshot')) as PlaySnapshot).view?.kind).toBe('custom:claim');
    expect(await page.locator('#grid .cell.target').count()).toBe(6);
    expect(await page.locator('#actions button').allTextContents()).toEqual(['Pass']);
    await clickAndWait(page, '#grid .cell[data-cell="0"]');
    expect((await page.$$eval('#moves li', (items) => items.map((i) => i.textContent)))[0]).toBe('Black: a2');

    await start('custom-text');
    expect(await page.textContent('#view-text')).toBe('claimed: 0 of 6\npasses in a row: 0');
    expect(await page.locator('#actions button').allTextContents()).toEqual(['Pass']);
    // Every other legal move is a button of its own (the pass has its named one), and a box takes notation.
    expect(await page.locator('.legal button.move').allTextContents()).toEqual(['a2', 'b2', 'c2', 'a1', 'b1', 'c1']);
    await clickAndWait(page, '.legal button.move[data-action="4"]');
    expect((await page.$$eval('#moves li', (items) => items.map((i) => i.textContent)))[0]).toBe('Black: b1');
    expect(await page.textContent('#view-text')).toMatch(/^claimed: 2 of 6/);
    await page.close();
  });

  it('plays a Blob round from the keyboard alone, every card named in words', async () => {
    const page = await openPage('/play/blob');
    await page.waitForSelector('#card-table');
    const seats = async (): Promise<string[]> => page.$$eval('#seat option', (options) => options.map((o) => o.textContent ?? ''));
    // The seat menu offers the seats of the table being set: Blob's default 4, then 5, then 3 (a seat the
    // smaller table lacks falls back to its last).
    expect(await seats()).toEqual(['Seat 0', 'Seat 1', 'Seat 2', 'Seat 3']);
    await page.click('#extra-config summary');
    await page.fill('#cfg-players', '5');
    expect(await seats()).toHaveLength(5);
    await page.selectOption('#seat', '4');
    await page.fill('#cfg-players', '3');
    expect(await seats()).toEqual(['Seat 0', 'Seat 1', 'Seat 2']);
    expect(await page.inputValue('#seat')).toBe('2');
    await page.selectOption('#seat', '0');
    await page.selectOption('#cfg-rounds', 'one');
    await page.fill('#cfg-roundCards', '3');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const hand = await page.$$eval('#hand .card', (cards) => cards.map((c) => [c.getAttribute('data-card'), c.getAttribute('aria-label')]));
    expect(hand).toHaveLength(3);
    const words: Record<string, string> = { J: 'jack', Q: 'queen', K: 'king', A: 'ace', S: 'spades', H: 'hearts', C: 'clubs', D: 'diamonds' };
    for (const [text, name] of hand) expect(name).toBe(`${words[text!.slice(0, -1)] ?? text!.slice(0, -1)} of ${words[text!.slice(-1)]}`);
    expect(await page.getByRole('button', { name: 'bid 0' }).count()).toBe(1);
    // Tab to the first bid, then Enter after Enter: the focus moves on to the next card to play.
    await page.focus('#new-game');
    let focused = '';
    for (let i = 0; i < 20 && focused !== 'bid'; i++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate("document.activeElement.closest('#bids') ? 'bid' : ''")) as string;
    }
    expect(focused).toBe('bid');
    for (let turn = 0; turn < 4; turn++) {
      await Promise.all([page.waitForResponse((r) => r.url().includes('/move')), page.keyboard.press('Enter')]);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
      if (turn < 3) expect(await page.evaluate("document.activeElement.matches('#hand button.card.playable')"), `turn ${turn}`).toBe(true);
    }
    expect(await page.textContent('#status')).toMatch(/^Game over/);
    await page.close();
  });

  it("Blob: the round's last trick stays on the table after the deal, the dealer's forbidden bid is shown with why, settings and moves read as the table does", async () => {
    const page = await openPage('/play/blob');
    await page.waitForSelector('#card-table');
    await page.click('#extra-config summary');
    // Settings named for people, not by their keys.
    expect(await page.textContent('label:has(#cfg-maxHand)')).toBe('Largest hand (0: auto)');
    expect(await page.$$eval('#cfg-trump option', (o) => o.map((x) => x.textContent))).toEqual(['in turn: ♠ ♥ ♣ ♦ none', 'the turned-up card']);
    // Three players, one card a round; seat 2 deals first, so this seat (0) bids first, then deals round 2.
    await page.fill('#cfg-players', '3');
    await page.fill('#cfg-maxHand', '1');
    await page.fill('#cfg-firstDealer', '2');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.locator('#bids button.refused').count()).toBe(0);
    await clickAndWait(page, '#bids button:not(:disabled)');
    await clickAndWait(page, '#hand button.card.playable');
    const s = (await page.evaluate('window.azSnapshot')) as PlaySnapshot;
    const view = s.view as CardTableView;
    expect(view.round).toBe(1);
    expect(view.dealer).toBe(0);
    // Round 1's three cards, from the move list, are on the table, with who took them.
    const cards = s.moves.filter((m) => /^(10|[2-9JQKA])[SHCD]$/.test(m.text));
    expect(cards).toHaveLength(3);
    expect(await page.textContent('#previous-trick')).toMatch(/^Last trick of round 1, taken by (you|Seat 1|Seat 2)$/);
    expect((await page.$$eval('#trick .card', (c) => c.map((x) => x.getAttribute('data-card')))).sort()).toEqual(cards.map((m) => m.text).sort());
    // The move list writes cards as the table does, with suit symbols.
    const listed = await page.$$eval('#moves li', (items) => items.map((i) => i.textContent ?? ''));
    expect(listed.filter((t) => /[♠♥♣♦]$/.test(t))).toHaveLength(3);
    expect(listed.filter((t) => /: (10|[2-9JQKA])[SHCD]$/.test(t))).toEqual([]);
    // This seat deals and bids last: the bid that would make the bids add up to the one card is there, disabled, with why.
    // (With this seed the others bid at most the one card between them, so one bid is forbidden.)
    const others = view.bids.reduce<number>((sum, b, seat) => sum + (seat === 0 ? 0 : (b ?? 0)), 0);
    expect(others).toBeLessThanOrEqual(1);
    const refused = page.locator('#bids button.refused');
    expect(await refused.count()).toBe(1);
    expect(await refused.isDisabled()).toBe(true);
    expect(await refused.textContent()).toBe(String(1 - others));
    expect(await page.textContent('#bid-refused')).toBe(`The dealer may not bid ${1 - others}: the bids would add up to the 1 card dealt.`);
    expect(await page.getByRole('button', { name: `bid ${1 - others}, not allowed` }).getAttribute('aria-describedby')).toBe('bid-refused');
    expect(await page.locator('#bids button:not(:disabled)').allTextContents()).toEqual([String(others)]);
    await screenshot(page, 'serve-blob-round-end.png');
    await page.close();
  });

  it('fits a phone screen: each play page lays out at 375 px wide, with nothing to scroll sideways', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const installed = ((await (await fetch(`${server.url}/api/games`)).json()) as { id: string }[]).map((g) => g.id);
      const boards: Record<string, string> = { tictactoe: '#grid .cell', connect4: '#grid .cell', chess: '#chessboard cg-board piece', blob: '#hand .card' };
      for (const [game, selector] of Object.entries(boards).filter(([id]) => installed.includes(id))) {
        const page = await context.newPage();
        await page.goto(`${server.url}/play/${game}`);
        await page.waitForSelector(selector);
        await page.waitForFunction("document.body.dataset.busy === 'false'");
        // Without a viewport meta tag a phone lays the page out 980 px wide and shrinks it to fit.
        expect(await page.evaluate('[window.innerWidth, document.documentElement.scrollWidth]'), game).toEqual([375, 375]);
        const board = await page.locator('#board > *').first().boundingBox();
        expect(board && board.x + board.width, game).toBeLessThanOrEqual(375);
        await page.close();
      }
    } finally {
      await context.close();
    }
  });

  it('two tabs of one game: a move refused in the tab left behind shows the game as it now is', async () => {
    const first = await openPage('/play/tictactoe');
    await first.waitForSelector('#grid .cell.target');
    await first.waitForFunction("document.body.dataset.busy === 'false'");
    const second = await openPage(`/play/tictactoe${new URL(first.url()).hash}`);
    await second.waitForSelector('#grid .cell.target');
    await second.waitForFunction("document.body.dataset.busy === 'false'");
    await clickAndWait(first, '#grid .cell[data-cell="4"]');
    const now = (await first.evaluate('window.azSnapshot')) as PlaySnapshot;
    expect(now.moves).toHaveLength(2);
    // The second tab still shows the empty board: its click on the centre is refused, and it catches up.
    await Promise.all([second.waitForResponse((r) => r.request().method() === 'GET' && r.url().includes('/api/sessions/')), second.click('#grid .cell[data-cell="4"]')]);
    await second.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await second.textContent('#error')).toMatch(/illegal move/);
    expect(((await second.evaluate('window.azSnapshot')) as PlaySnapshot).moves).toEqual(now.moves);
    expect(await second.$$eval('#grid .cell span', (spans) => spans.length)).toBe(2);
    expect(await second.textContent('#status')).toBe('Your move (X).');
    await first.close();
    await second.close();
  });

  it('says so when the server has stopped mid-game, or no longer has the game', async () => {
    // A server of its own, to stop.
    const own = await startServer({ port: 0, simulations: 8 });
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    try {
      await page.goto(`${own.url}/play/tictactoe`);
      await page.waitForSelector('#grid .cell.target');
      await clickAndWait(page, '#grid .cell.target');
      await own.close();
      await Promise.all([page.waitForEvent('requestfailed'), page.click('#grid .cell.target')]);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
      expect(await page.textContent('#error')).toMatch(/^Could not reach az serve at 127\.0\.0\.1:\d+: is it still running\? Start it again, then retry\.$/);
      expect(await page.textContent('#status')).toBe('Your move (X).');
    } finally {
      await page.close();
      await own.close().catch(() => undefined);
    }

    // The shared server forgets this page's game: the page says the game is gone and sends no more moves.
    const other = await openPage('/play/tictactoe');
    await other.waitForSelector('#grid .cell.target');
    await other.waitForFunction("document.body.dataset.busy === 'false'");
    server.sessions.delete(((await other.evaluate('window.azSnapshot')) as PlaySnapshot).id);
    await clickAndWait(other, '#grid .cell.target');
    expect(await other.textContent('#error')).toMatch(/^no such game: the server no longer has it \(az serve was restarted, or it dropped the game for newer ones: it keeps the 32 most recently used\); start a new one$/);
    expect(await other.textContent('#status')).toBe('This game is no longer on the server: start a new game.');
    let sent = 0;
    other.on('request', (r) => void (r.url().includes('/move') && sent++));
    await other.click('#grid .cell.target');
    await Promise.all([other.waitForResponse((r) => r.url().includes('/sessions')), other.click('#new-game')]);
    await other.waitForFunction("document.body.dataset.busy === 'false'");
    expect(sent).toBe(0);
    expect(await other.textContent('#status')).toBe('Your move (X).');
    expect(await other.textContent('#error')).toBe('');
    await other.close();
  });

  it('a move refused while the server is busy (503) is sent again after the wait it names, and then played', async () => {
    // A server of its own that searches one move at a time, its one search held in flight.
    const own = await startServer({ port: 0, simulations: 8, seed: 3, maxSearches: 1 });
    const held = holdFirstRollout();
    const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    const statuses: number[] = [];
    page.on('response', (r) => void (r.url().includes('/move') && statuses.push(r.status())));
    const holding = fetch(`${own.url}/api/games/tictactoe/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ opponent: 'mcts', seat: 1 }) });
    try {
      await page.goto(`${own.url}/play/tictactoe`);
      await page.waitForSelector('#grid .cell.target');
      await page.waitForFunction("document.body.dataset.busy === 'false'");
      await held.begun;
      await Promise.all([page.waitForResponse((r) => r.url().includes('/move') && r.status() === 503), page.click('#grid .cell[data-cell="4"]')]);
      await page.waitForFunction("/busy with other games' moves: trying again in \\d+ s \\(1 of 5\\)/.test(document.getElementById('status').textContent)");
      held.release();
      await page.waitForResponse((r) => r.url().includes('/move') && r.status() === 200);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
      expect(statuses).toEqual([503, 200]);
      expect(await page.textContent('#error')).toBe('');
      const snapshot = (await page.evaluate('window.azSnapshot')) as PlaySnapshot;
      expect(snapshot.moves.map((m) => m.seat)).toEqual([0, 1]);
      expect(snapshot.moves[0].action).toBe(4);
    } finally {
      held.release();
      await holding.catch(() => undefined);
      held.restore();
      await page.close();
      await own.close();
    }
  });

  it('a reload shows the game in progress (Blob scores by round too); a game the server no longer has is replaced, saying so', async () => {
    const page = await openPage('/play/tictactoe');
    await page.waitForSelector('#grid .cell.target');
    await clickAndWait(page, '#grid .cell.target');
    const snapshotOf = async (p: Page): Promise<PlaySnapshot> => (await p.evaluate('window.azSnapshot')) as PlaySnapshot;
    const before = await snapshotOf(page);
    expect(before.moves).toHaveLength(2);
    expect(new URL(page.url()).hash).toBe(`#${before.id}`);
    await page.reload();
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const after = await snapshotOf(page);
    expect(after.id).toBe(before.id);
    expect(after.moves).toEqual(before.moves);
    expect(await page.$$eval('#grid .cell span', (spans) => spans.length)).toBe(2);
    expect(await page.textContent('#status')).toBe('Your move (X).');
    expect(await page.textContent('#error')).toBe('');

    // The server forgot the game (restarted, or dropped it for newer ones): a new game, and a word why.
    server.sessions.delete(before.id);
    await page.reload();
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const fresh = await snapshotOf(page);
    expect(fresh.id).not.toBe(before.id);
    expect(fresh.moves).toHaveLength(0);
    expect(new URL(page.url()).hash).toBe(`#${fresh.id}`);
    expect(await page.textContent('#error')).toMatch(/no longer on the server.*this is a new game/);
    // A link to a game of another kind (tic-tac-toe's on the Connect Four page) says so.
    await page.goto(`${server.url}/play/connect4#${fresh.id}`);
    await page.waitForSelector('#grid .cell');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.textContent('#error')).toBe('The game in this link is a Tic-tac-toe game: this is a new game here.');
    expect(((await snapshotOf(page)) as PlaySnapshot).game.id).toBe('connect4');

    // Blob: the scores of the rounds before a reload are still in the table.
    await page.goto(`${server.url}/play/blob`);
    await page.waitForSelector('#card-table');
    await page.click('#extra-config summary');
    await page.fill('#cfg-players', '3');
    await page.fill('#cfg-maxHand', '1');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    await clickAndWait(page, '#bids button:not(:disabled)');
    await clickAndWait(page, '#hand button.card.playable');
    expect(await page.$$eval('#scores tr', (rows) => rows.map((r) => r.firstChild?.textContent))).toEqual(['round', '1', 'total']);
    await page.reload();
    await page.waitForSelector('#card-table');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.$$eval('#scores tr', (rows) => rows.map((r) => r.firstChild?.textContent))).toEqual(['round', '1', 'total']);
    await page.close();
  });

  it('makes a chess move by dragging a piece and shows the search reply with its top moves', async () => {
    const page = await openPage('/play/chess');
    await page.waitForSelector('#chessboard cg-board piece');
    // Legal-move hints: picking up the e2 pawn shows its two targets.
    const box = await page.locator('#chessboard cg-board').boundingBox();
    if (!box) throw new Error('no board');
    const square = (name: string): { x: number; y: number } => {
      const file = name.charCodeAt(0) - 97;
      const rank = Number(name[1]) - 1;
      return { x: box.x + ((file + 0.5) * box.width) / 8, y: box.y + ((7 - rank + 0.5) * box.height) / 8 };
    };
    const from = square('e2');
    const to = square('e4');
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
    // chessground draws on the next animation frame: wait for the two dots rather than read at once.
    await page.waitForFunction("document.querySelectorAll('#chessboard square.move-dest').length === 2");
    const answered = page.waitForResponse((r) => r.url().includes('/move'));
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    await answered;
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const moves = await page.$$eval('#moves td', (cells) => cells.map((c) => c.textContent));
    expect(moves[0]).toBe('1.');
    expect(moves[1]).toBe('e4');
    // Black's reply is in the list and on the board; the engine panel shows its search.
    expect(moves[2]).toMatch(/^[a-hNBRQKO][a-h1-8xO=+#-]*$/);
    expect(await page.textContent('#status')).toBe('Your move (White).');
    const topMoves = await page.$$eval('#top-moves tr', (rows) => rows.map((r) => r.textContent));
    expect(topMoves.length).toBeGreaterThan(0);
    expect(await page.textContent('#thinking')).toMatch(/16 simulations/);
    expect(await page.textContent('#fen')).toMatch(/^rnbqkbnr\/pppppppp|^r|^[rnbqkp1-8]+\//);
    await page.click('#flip');
    expect(await page.locator('#chessboard.orientation-black').count()).toBe(1);
    await page.click('#flip');
    await screenshot(page, 'serve-chess.png');

    // Promotion: a pawn reaching the last rank asks which piece.
    await page.click('#extra-config summary');
    await page.fill('#cfg-fen', '7k/P7/8/8/8/8/8/4K3 w - - 0 1');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const a7 = square('a7');
    const a8 = square('a8');
    await page.mouse.move(a7.x, a7.y);
    await page.mouse.down();
    await page.mouse.move(a8.x, a8.y, { steps: 4 });
    await page.mouse.up();
    await page.waitForSelector('#promotion button'); // chessground reports a move a moment after the drop
    const pieces = await page.$$eval('#promotion button', (b) => b.map((x) => x.textContent));
    expect([...pieces].sort()).toEqual(['Bishop', 'Knight', 'Queen', 'Rook']);
    await clickAndWait(page, '#promotion button[data-piece="n"]');
    const promoted = await page.$$eval('#moves td', (cells) => cells.map((c) => c.textContent));
    expect(promoted[1]).toBe('a8=N');
    expect(await page.textContent('#fen')).toMatch(/^N/);
    await page.close();
  });

  it('plays chess from the keyboard: a labelled box takes a move in SAN or UCI and keeps a refused one', async () => {
    const page = await openPage('/play/chess');
    await page.waitForSelector('#chessboard cg-board piece');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    // Reached by Tab from the setup bar, and named by its label.
    await page.focus('#new-game');
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'move-text'; i++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate('document.activeElement.id')) as string;
    }
    expect(focused).toBe('move-text');
    const box = page.getByLabel('Your move');
    expect(await box.getAttribute('id')).toBe('move-text');
    const answered = (): Promise<unknown> => page.waitForResponse((r) => r.url().includes('/move'));
    await page.keyboard.type('e4');
    await Promise.all([answered(), page.keyboard.press('Enter')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.$$eval('#moves td', (cells) => cells.map((c) => c.textContent)[1])).toBe('e4');
    // The box has the focus again for the next move, which UCI notation names as well.
    await page.waitForFunction("document.activeElement && document.activeElement.id === 'move-text'");
    await page.keyboard.type('g1f3');
    await Promise.all([answered(), page.keyboard.press('Enter')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.$$eval('#moves td', (cells) => cells.map((c) => c.textContent)[4])).toBe('Nf3');
    // An illegal move is refused with the reason, and stays in the box to be corrected.
    await page.waitForFunction("document.activeElement && document.activeElement.id === 'move-text'");
    await page.keyboard.type('Qh8');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/move')), page.keyboard.press('Enter')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.textContent('#error')).toMatch(/illegal move 'Qh8'/);
    expect(await page.inputValue('#move-text')).toBe('Qh8');
    expect(await page.$$eval('#moves td', (cells) => cells.length)).toBe(6);
    await page.close();
  });

  it("copies a PGN that starts from the game's own position when the computer moves first", async () => {
    const page = await openPage('/play/chess');
    await page.waitForSelector('#chessboard cg-board piece');
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    const newGame = async (fen: string, seat: string): Promise<void> => {
      await page.fill('#cfg-fen', fen);
      await page.selectOption('#seat', seat);
      await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
      await page.waitForFunction("document.body.dataset.busy === 'false'");
    };
    const pgn = async (): Promise<string> => {
      await page.click('#copy-pgn');
      return (await page.evaluate('window.azCopied')) as string;
    };
    await page.click('#extra-config summary');
    // From a set-up position, as Black: White (the computer) moves first, from that position.
    const fen = '4k3/8/8/8/8/8/4P3/4K3 w - - 0 1';
    await newGame(fen, '1');
    const first = await pgn();
    expect(first).toMatch(/^\[SetUp "1"\]\n\[FEN "4k3\/8\/8\/8\/8\/8\/4P3\/4K3 w - - 0 1"\]\n1\. \S+ \*$/);
    // Then the standard start, as Black again: no set-up header left over from the last game.
    await newGame('', '1');
    expect(await pgn()).toMatch(/^1\. \S+ \*$/);
    expect(await page.$$eval('#moves td', (cells) => cells.map((c) => c.textContent)[0])).toBe('1.');
    await page.close();
  });

  it('bids and plays a Blob round at the card table, and no other seat\'s card reaches the page', async () => {
    const config = { players: 4, rounds: 'one', roundCards: 5 };
    // The deal the server makes for this config and its seed (3): the cards the other seats hold.
    const plugin = resolveGame('blob');
    const game = plugin.create(resolveGameConfig(plugin, config)) as Game<unknown>;
    const dealt = game.initialState(new Rng(3));
    const othersHands = new Set<string>();
    for (let seat = 1; seat < 4; seat++) for (const c of (game.view?.(dealt, seat) as CardTableView).hand) othersHands.add(c);
    expect(othersHands.size).toBe(15);

    const page = await openPage('/play/blob');
    await page.waitForSelector('#card-table');
    const bodies: Promise<string>[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/sessions') || r.url().includes('/api/games/blob')) bodies.push(r.text());
    });
    await page.click('#extra-config summary');
    await page.selectOption('#cfg-rounds', 'one');
    await page.fill('#cfg-roundCards', '5');
    await page.fill('#cfg-players', '4');
    await Promise.all([page.waitForResponse((r) => r.url().includes('/sessions')), page.click('#new-game')]);
    await page.waitForFunction("document.body.dataset.busy === 'false'");
    expect(await page.locator('#hand .card').count()).toBe(5);
    let actions = 0;
    let shot = false;
    while (!(await page.textContent('#status'))?.startsWith('Game over')) {
      if ((await page.locator('#bids button').count()) > 0) await clickAndWait(page, '#bids button:not(:disabled)');
      else await clickAndWait(page, '#hand button.card.playable');
      actions++;
      expect(actions).toBeLessThanOrEqual(6);
      if (!shot && (await page.locator('#trick .card').count()) > 0 && (await page.locator('#hand .card').count()) >= 3) {
        await screenshot(page, 'serve-blob.png');
        shot = true;
      }
    }
    // One bid and five cards; every seat has bid, and the scores table has the round and the total.
    expect(actions).toBe(6);
    expect(await page.textContent('#round')).toBe('1 round played');
    expect(await page.locator('#scores tr').count()).toBe(3);
    const totals = await page.$$eval('#scores tr:last-child th', (cells) => cells.slice(1).map((c) => Number(c.textContent)));
    expect(totals).toHaveLength(4);
    // What the page received: never a card another seat held, unless it was played (public).
    const texts = await Promise.all(bodies);
    expect(texts.length).toBeGreaterThanOrEqual(7);
    const leaked = new Set<string>();
    for (const text of texts) {
      const played = new Set((JSON.parse(text) as PlaySnapshot).moves.map((m) => m.text));
      for (const c of cardsNamedIn(text)) if (othersHands.has(c) && !played.has(c)) leaked.add(c);
    }
    expect([...leaked]).toEqual([]);
    // The check can fail: the last snapshot does name other seats' cards (those they played).
    expect([...cardsNamedIn(texts[texts.length - 1])].some((c) => othersHands.has(c))).toBe(true);
    await page.close();
  });
});

/** Pixels drawn (not transparent) in every canvas of an element: a chart that drew has thousands. */
async function drawnPixels(page: Page, selector: string): Promise<number[]> {
  return page.$$eval(`${selector} canvas`, (canvases) =>
    (canvases as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null }[]).map((c) => {
      const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      if (data) for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
      return n;
    }),
  );
}

describe.skipIf(chromium.path === undefined)('the training dashboard and report in Chromium', () => {
  let browser: Browser;
  let server: RunningServer;
  let runDir: string;

  beforeAll(async () => {
    // A real, finished (tiny) tic-tac-toe run, trained by the built binary.
    runDir = mkdtempSync(join(tmpdir(), 'az-dashboard-'));
    const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');
    const args = [bin, 'train', '--game', 'tictactoe', '--iterations', '2', '--games-per-iter', '12', '--sims', '12', '--train-steps', '10', '--eval-games', '4', '--backend', 'cpu', '--quiet', '--out', runDir];
    const code = await new Promise<number | null>((done) => spawn(process.execPath, args, { stdio: 'ignore' }).on('exit', done));
    expect(code).toBe(0);
    server = await startServer({ port: 0, run: runDir, pollMs: 100 });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (runDir) rmSync(runDir, { recursive: true, force: true });
  });

  it("draws the charts of a finished run, adds an iteration appended while it is open, and follows a resume's new settings and assessment", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/dashboard`);
    await page.waitForSelector('#chart-losses canvas');
    await page.waitForSelector('#live.on');
    for (const id of ['losses', 'speed', 'outcomes', 'arena', 'elo', 'time']) {
      const pixels = await drawnPixels(page, `#chart-${id}`);
      expect(pixels.length, id).toBeGreaterThan(0);
      expect(Math.max(...pixels), id).toBeGreaterThan(500);
    }
    expect(await page.textContent('#info-assessment')).toMatch(/optimal moves .* vs the minimax oracle/);
    expect(await page.textContent('#info-iterations')).toMatch(/^2/);
    await screenshot(page, 'serve-dashboard.png');

    // The trainer appends a line: the page hears it over the event stream and redraws. This one carries a
    // multi-process run's worker figures, so the workers chart appears.
    expect(await page.$('#chart-workers')).toBeNull();
    const lines = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    const workers = { devices: { 'cpu:0': { games: 12, positions: 80, restarts: 1, staleGamesDropped: 0 } }, live: 2, restarts: 1, staleGamesDropped: 0, gamesReceived: 12, minAcceptedVersion: 1, meanGameAge: 0.5, totalRestarts: 1, totalStaleGamesDropped: 0 };
    const last = JSON.parse(lines[lines.length - 1]) as { selfPlay: Record<string, unknown> };
    // A real run's speed (hundreds of thousands of evaluations a second), whose tick labels are wide.
    const next = { ...last, iteration: 3, workers, selfPlay: { ...last.selfPlay, evalsPerSecond: 250_000 } };
    appendFileSync(join(runDir, 'metrics.jsonl'), JSON.stringify(next) + '\n');
    await page.waitForFunction('window.azDashboard && window.azDashboard.updates === 1');
    expect(await page.textContent('#info-iterations')).toMatch(/^3/);
    await page.waitForSelector('#chart-workers canvas');
    expect(Math.max(...(await drawnPixels(page, '#chart-workers')))).toBeGreaterThan(500);
    // Every y axis is as wide as its widest tick label ('250,000'), so none is cut.
    const cut = await page.evaluate(`window.azDashboard.charts.plots().flatMap((u) => u.axes.slice(1).map((axis) => {
      if (!axis._values || axis._values.length === 0) return null;
      u.ctx.font = axis.font[0];
      const widest = Math.max(...axis._values.map((v) => u.ctx.measureText(String(v)).width / devicePixelRatio));
      return widest + axis.ticks.size + axis.gap > axis._size + 0.5 ? u.root.parentElement.id + ': ' + axis._values.join(' ') : null;
    })).filter((x) => x !== null)`);
    expect(cut).toEqual([]);
    expect(await page.evaluate("window.azDashboard.charts.plots().find((u) => u.root.parentElement.id === 'chart-speed').axes[1]._values.some((v) => v.length >= 7)")).toBe(true);

    // az train --resume asks for more iterations (options.json) and ends with a new assessment
    // (summary.json): the head of the page follows both without a reload.
    expect(await page.textContent('#info-iterations')).toBe('3 of 2');
    const optionsPath = join(runDir, 'options.json');
    writeFileSync(optionsPath, JSON.stringify({ ...JSON.parse(readFileSync(optionsPath, 'utf8')), iterations: 4 }));
    await page.waitForFunction("document.getElementById('info-iterations').textContent === '3 of 4'");
    const summaryPath = join(runDir, 'summary.json');
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { assessment: { summary: string } };
    writeFileSync(summaryPath, JSON.stringify({ ...summary, assessment: { ...summary.assessment, summary: 'optimal moves 9/9 (100%) after resuming' } }));
    await page.waitForFunction("document.getElementById('info-assessment').textContent.startsWith('optimal moves 9/9 (100%) after resuming')");
    await page.close();
  });

  it('fits a phone screen: the dashboard lays out at 375 px wide, its charts within it', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/dashboard`);
      await page.waitForSelector('#chart-time canvas');
      expect(await page.evaluate('[window.innerWidth, document.documentElement.scrollWidth]')).toEqual([375, 375]);
      const rights = await page.$$eval('.chart canvas', (canvases) => canvases.map((c) => c.getBoundingClientRect().right));
      expect(rights.length).toBeGreaterThan(0);
      expect(Math.max(...rights)).toBeLessThanOrEqual(375);
    } finally {
      await context.close();
    }
  });

  it('az report writes one self-contained HTML file whose charts draw with nothing else at hand', async () => {
    const out = join(runDir, 'report.html');
    const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');
    const code = await new Promise<number | null>((done) => spawn(process.execPath, [bin, 'report', runDir, '--out', out], { stdio: 'ignore' }).on('exit', done));
    expect(code).toBe(0);
    const html = readFileSync(out, 'utf8');
    // Nothing to fetch: no src or href attributes, no URLs to load.
    expect(html).not.toMatch(/\s(src|href)=/);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('#chart-losses canvas');
    expect(Math.max(...(await drawnPixels(page, '#chart-losses')))).toBeGreaterThan(500);
    expect(await page.textContent('#assessment')).toMatch(/optimal moves/);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
    await page.close();
  });
});

// `az play` in hidden-information games shows a seat only what that seat may see: every command's
// output is the same in any world consistent with the seat's view, and no hidden card reaches stdout.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Rng, resolveGameConfig, type Agent, type Game, type GamePlugin } from '@az/core';
import { blobPlugin, formatCard, formatCardSymbol, type BlobInformationState, type BlobState } from '@az/game-blob';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { positionFor, runPlaySession } from './play.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'main.js');

/** Every command a human can type at a prompt, except a move (its answer depends on the other seats' cards). */
const CARD_INPUTS = ['QS', '2h'];
const COMMANDS = ['help', '?', 'moves', 'position', 'fen', 'undo', '', 'nonsense', ...CARD_INPUTS, 'bid 99', '99'];

/** An opponent whose choice depends only on public information in the bidding: the lowest legal action. */
function lowestLegal<S>(game: Game<S>): Agent<S> {
  const mask = new Uint8Array(game.masker.actionSize);
  return {
    name: 'lowest',
    act: (states) =>
      Promise.resolve(
        Int32Array.from(states, (s) => {
          mask.fill(0);
          game.masker.fillMask(s, mask, 0);
          return mask.indexOf(1);
        }),
      ),
  };
}

async function transcript<S>(game: Game<S>, state: S, seat: number, lines: readonly (string | null)[]): Promise<string> {
  const out: string[] = [];
  const queue = [...lines];
  await runPlaySession(game, state, new Rng(99), seat, lowestLegal(game), {
    ask: (prompt) => {
      out.push(prompt);
      return Promise.resolve(queue.length ? (queue.shift() ?? null) : null);
    },
    print: (text) => out.push(text),
  });
  return out.join('\n');
}

describe('az play shows a seat its own view only', () => {
  const game = blobPlugin.create(resolveGameConfig(blobPlugin as GamePlugin, { players: 4 })) as Game<BlobState>;

  it.each([0, 1, 2, 3])('blob, seat %i: every command prints the same in another deal consistent with that seat’s view', async (seat) => {
    const real = game.initialState(new Rng(1234 + seat));
    const determinizer = game.determinizer;
    if (!determinizer) throw new Error('blob offers a determinizer');
    const other = determinizer.sample(real, seat, new Rng(7));
    // The two worlds differ in what the other seats hold (else this test could not fail).
    expect(game.hash(other)).not.toBe(game.hash(real));
    for (const ending of ['quit', null]) {
      const a = await transcript(game, game.clone(real), seat, [...COMMANDS, ending]);
      const b = await transcript(game, game.clone(other), seat, [...COMMANDS, ending]);
      expect(a).toContain('legal moves:');
      expect(b).toBe(a);
    }
  });

  it('position is the seat’s information state for hidden-information games, the notation or hash otherwise', () => {
    const state = game.initialState(new Rng(5));
    const view = JSON.parse(positionFor(game, state, 2)) as { seat: number; hand: number[] };
    const info = game.informationState?.(state, 2) as BlobInformationState;
    expect(view.seat).toBe(2);
    expect(view.hand).toEqual(Array.from(info.hand));
    const ttt = ticTacToePlugin.create({});
    const board = ttt.initialState(new Rng(1));
    expect(positionFor(ttt, board, 0)).toBe(ttt.positionText ? ttt.positionText(board) : ttt.hash(board));
  });
});

describe('az play --game blob (the built binary)', () => {
  it('never prints a card another seat holds, nor the full state, whatever the human types', () => {
    const seed = 11;
    const players = 4;
    const seat = 1;
    const game = blobPlugin.create(resolveGameConfig(blobPlugin as GamePlugin, { players })) as Game<BlobState>;
    // The deal az play makes: the same seed drives the same initial state.
    const dealt = game.initialState(new Rng(seed));
    const handOf = (s: number): number[] => Array.from((game.informationState?.(dealt, s) as BlobInformationState).hand);
    const mine = handOf(seat);
    const othersCards = [0, 1, 2, 3].filter((s) => s !== seat).flatMap(handOf);
    expect(othersCards.length).toBeGreaterThan(0);

    // Every command, a bid, then each card of the hand in turn (illegal ones are re-prompted) with
    // position and moves between them, enough to play the whole first round.
    const block = [...mine.map(formatCard), 'position', 'moves', 'undo'];
    // Cards typed by the human are left out (the answer 'you don't hold QS' names what they typed).
    const typed = COMMANDS.filter((c) => !CARD_INPUTS.includes(c));
    const input = [...typed, '0', 'position', ...Array.from({ length: mine.length + 2 }, () => block).flat()].join('\n') + '\n';
    const r = spawnSync(process.execPath, [bin, 'play', '--game', 'blob', '--players', String(players), '--seat', String(seat), '--seed', String(seed)], {
      input,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('legal moves:');
    expect(r.stdout).toContain('"hand":');

    // Line by line through the first round: a card stops being hidden when its holder plays it.
    const cardPattern = (text: string): RegExp => new RegExp(`(^|[^0-9A-Za-z])${text}(?![0-9A-Za-z])`);
    const shown = new Set<number>();
    let checkedWhileHidden = 0;
    // The game's own notation hint names example cards; it is the same text for every deal.
    const notationHint = (() => {
      const parsed = game.parseAction(dealt, 'nonsense');
      return parsed.ok ? '' : parsed.error;
    })();
    for (const rawLine of r.stdout.split('\n')) {
      const line = notationHint ? rawLine.replace(notationHint, '') : rawLine;
      if (/round 2 of/.test(line)) break;
      const played = /seat \d+ \([^)]*\) plays (\w+)/.exec(line);
      if (played) {
        const card = othersCards.find((c) => formatCard(c) === played[1]);
        if (card !== undefined) shown.add(card);
        continue;
      }
      for (const card of othersCards) {
        if (shown.has(card)) continue;
        checkedWhileHidden++;
        for (const text of [formatCard(card), formatCardSymbol(card)]) expect(line, `hidden card ${text} appears`).not.toMatch(cardPattern(text));
      }
    }
    // The human played through the first round, and cards were checked while still hidden.
    expect(shown.size).toBeGreaterThan(0);
    expect(checkedWhileHidden).toBeGreaterThan(othersCards.length);
    // Nor who holds which card, as the full state's hash spells it.
    expect(r.stdout).not.toContain(Array.from(dealt.owner).join(','));
  });
});

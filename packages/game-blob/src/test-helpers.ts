// Shared by the tests (excluded from the build by the `test-*` pattern).
import { Rng, randomLegalAction, validateConfig } from '@az/core';
import { parseCard } from './cards.js';
import { blobConfigSchema } from './config.js';
import { BlobGame } from './game.js';
import { BlobState, NONE } from './state.js';

export function makeGame(raw: Record<string, unknown> = {}): BlobGame {
  return new BlobGame(validateConfig(blobConfigSchema, raw));
}

export function card(text: string): number {
  const c = parseCard(text);
  if (c < 0) throw new Error(`test: bad card ${text}`);
  return c;
}

/** Replaces the dealt hands of a freshly dealt state: `hands[seat]` as card strings, all the same length. */
export function setHands(state: BlobState, hands: readonly (readonly string[])[]): void {
  state.owner.fill(NONE);
  hands.forEach((hand, seat) => {
    for (const text of hand) state.owner[card(text)] = seat;
    state.handSizes[seat] = hand.length;
  });
}

/**
 * The small hand-set deal several tests walk through: three players, one round of 2 cards, seat 0 deals
 * (so seat 1 bids and leads first), spades trump; hands 4S 5D / AH 2S / KH 3C.
 */
export function threeSeatTwoCardDeal(): { game: BlobGame; state: BlobState } {
  const game = makeGame({ players: 3, rounds: 'one', roundCards: 2 });
  const state = game.initialState(new Rng(1));
  setHands(state, [
    ['4S', '5D'],
    ['AH', '2S'],
    ['KH', '3C'],
  ]);
  return { game, state };
}

/** Applies the moves written as text (`bid 1`, `QS`), failing loudly on any refusal. */
export function play(game: BlobGame, state: BlobState, moves: readonly string[], rng = new Rng(0)): void {
  for (const move of moves) {
    const parsed = game.parseAction(state, move);
    if (!parsed.ok) throw new Error(`test: '${move}' refused: ${parsed.error}`);
    game.applyAction(state, parsed.action, rng);
  }
}

/** Every state of one random playout (including the terminal one). */
export function randomPlayout(game: BlobGame, seed: number, maxStates = Infinity): BlobState[] {
  const rng = new Rng(seed);
  const state = game.initialState(rng);
  const states = [state.clone()];
  while (!game.isTerminal(state) && states.length < maxStates) {
    game.applyAction(state, randomLegalAction(game, state, rng), rng);
    states.push(state.clone());
  }
  return states;
}

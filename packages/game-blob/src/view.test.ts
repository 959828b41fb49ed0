// The card table a page draws: the last trick of a round stays in view after the next deal, and the
// dealer sees the bid the hook forbids, with the reason, instead of a bid that silently is not there.
import { Rng, randomLegalAction } from '@az/core';
import { describe, expect, it } from 'vitest';
import { formatCard } from './cards.js';
import { trickWinner } from './rules.js';
import { PHASE_PLAY } from './state.js';
import { makeGame, play, threeSeatTwoCardDeal } from './test-helpers.js';

describe('blob card table view', () => {
  it("shows a round's last trick, and who took it, after the next deal until a trick of the new round is done", () => {
    const game = makeGame({ players: 3, maxHand: 2 });
    const rng = new Rng(5);
    const state = game.initialState(rng);
    let before = state.clone();
    let last = -1;
    while (state.round === 0) {
      before = state.clone();
      last = randomLegalAction(game, state, rng);
      game.applyAction(state, last, rng);
    }
    // The trick the last card of round 0 completed: the others' cards, then the last one.
    const cards = Array.from(before.trickCards);
    cards[before.toAct] = last;
    const winner = trickWinner(cards, before.trickLeader, 3, before.trumpSuit);
    for (let seat = 0; seat < 3; seat++) {
      const view = game.view(state, seat);
      expect(view.phase).toBe('bid');
      expect(view.round).toBe(1);
      expect(view.lastTrick).toEqual(cards.map((c, s) => ({ seat: s, card: formatCard(c) })));
      expect(view.lastTrickWinner).toBe(winner);
      expect(view.lastTrickRound).toBe(0);
    }
    // Once the new round's first trick is done (a one-card round then deals the next), that one is the last trick.
    const played: string[] = [];
    while (state.round === 1 && state.trickNumber === 0) {
      const action = randomLegalAction(game, state, rng);
      if (state.phase === PHASE_PLAY) played.push(formatCard(action));
      game.applyAction(state, action, rng);
    }
    const view = game.view(state, 0);
    expect(view.lastTrickRound).toBe(state.round === 1 ? undefined : 1);
    expect(view.lastTrick.map((t) => t.card).sort()).toEqual(played.sort());
  });

  it('keeps the first round free of a last trick', () => {
    const game = makeGame({ players: 3, maxHand: 2 });
    const view = game.view(game.initialState(new Rng(5)), 0);
    expect(view.lastTrick).toEqual([]);
    expect(view.lastTrickWinner).toBeNull();
    expect(view.lastTrickRound).toBeUndefined();
  });

  it("names the dealer's forbidden bid and why, to the dealer when it is to bid", () => {
    const { game, state } = threeSeatTwoCardDeal();
    play(game, state, ['bid 1', 'bid 0']);
    const dealer = game.view(state, 0);
    expect(dealer.refused).toEqual([{ label: 'bid 1', reason: 'the dealer may not bid 1: the bids would add up to the 2 cards dealt' }]);
    expect(dealer.legal.map((m) => m.label)).toEqual(['bid 0', 'bid 2']);
    // The reason is the one the rules give for the move.
    expect(game.parseAction(state, 'bid 1')).toEqual({ ok: false, error: dealer.refused?.[0].reason });
    expect(game.view(state, 1).refused).toBeUndefined();
  });
});

import type { Agent } from '@az/core';
import { describe, expect, it } from 'vitest';
import { PolicyRolloutAgent } from './policy-rollout-agent.js';
import { BET, CALL, FOLD, FakeModel, PASS, SHOWDOWN_CARDS, makeShowdown, showdownState, type ShowdownState } from './test-games.js';
import type { WorldWeigher } from './world-inference.js';

// Seat 1 facing a bet holds card c; seat 0's card is hidden, uniform over the nine others. Folding is
// worth -0.5 to seat 1; calling (1 if c beats seat 0's card, else -1) is worth (2c - 9) / 9: a call
// with 6 or 9 (+1/3, +1), a fold with 0 or 1 (-1, -7/9 against -0.5). FakeModel's own-view policy
// folds with all four (it favours action c % 4, and with no legal favourite the first legal one,
// FOLD, is played), so where the agent calls, the rollouts decided, not the policy.
const facingBet = (mine: number, theirs: number): ShowdownState => showdownState(theirs, mine, [BET]);

describe('PolicyRolloutAgent', () => {
  it('chooses the action of the best mean return over sampled worlds, not the policy’s move, never peeking', async () => {
    const game = makeShowdown();
    const agent = new PolicyRolloutAgent('rollout', game, { model: new FakeModel(game.encoder.size) }, { worlds: 256, seed: 1 });
    // Seat 0 really holds 9 everywhere (so a peeking agent would fold 6) and 0 where seat 1 has 1 or 0.
    const chosen = await agent.act([facingBet(6, 9), facingBet(9, 0), facingBet(1, 0), facingBet(0, 9)]);
    expect(Array.from(chosen)).toEqual([CALL, CALL, FOLD, FOLD]);
  });

  it('plays the rest of the game by the policy after each action: seat 0 bets where the policy’s replies fold', async () => {
    // Seat 0 holding 0 loses every call; the policy's seat 1 calls only with 3 or 7 (3 % 4 = CALL), so
    // betting is worth (7 x 0.5 - 2) / 9 = 1/6 > 0 for passing.
    const game = makeShowdown();
    const agent = new PolicyRolloutAgent('rollout', game, { model: new FakeModel(game.encoder.size) }, { worlds: 256, seed: 2 });
    expect(Array.from(await agent.act([showdownState(0, 5)]))).toEqual([BET]);
  });

  it('weighs worlds by the weigher: where seat 0 surely holds 9, seat 1 folds its 6', async () => {
    const game = makeShowdown();
    const onlyNines: WorldWeigher<ShowdownState> = {
      async logWeights(worlds, _observers, out) {
        worlds.forEach((w, i) => (out[i] = w.cards[0] === SHOWDOWN_CARDS - 1 ? 0 : -Infinity));
      },
    };
    const agent = new PolicyRolloutAgent('rollout', game, { model: new FakeModel(game.encoder.size) }, { worlds: 256, seed: 3, weigher: onlyNines });
    expect(Array.from(await agent.act([facingBet(6, 2)]))).toEqual([FOLD]);
  });

  it('hands the decisions it does not take to the fallback, in order', async () => {
    const game = makeShowdown();
    const seen: ShowdownState[][] = [];
    const fallback: Agent<ShowdownState> = {
      name: 'passer',
      async act(states) {
        seen.push([...states]);
        return Int32Array.from(states, () => PASS);
      },
    };
    const agent = new PolicyRolloutAgent('rollout', game, { model: new FakeModel(game.encoder.size) }, {
      worlds: 64,
      decides: (s) => s.history.length > 0,
      fallback,
    });
    const states = [showdownState(0, 5), facingBet(9, 0), showdownState(8, 1)];
    expect(Array.from(await agent.act(states))).toEqual([PASS, CALL, PASS]);
    expect(seen).toEqual([[states[0], states[2]]]);
  });

  it('refuses a game without a determinizer and decides without a fallback, naming them', () => {
    const model = { model: new FakeModel(makeShowdown().encoder.size) };
    expect(() => new PolicyRolloutAgent('r', makeShowdown({ withoutDeterminizer: true }), model)).toThrow(/showdown has no determinizer/);
    expect(() => new PolicyRolloutAgent('r', makeShowdown(), model, { decides: () => true })).toThrow(/needs a fallback/);
    expect(() => new PolicyRolloutAgent('r', makeShowdown(), model, { worlds: 0 })).toThrow(/worlds must be a positive integer/);
  });
});

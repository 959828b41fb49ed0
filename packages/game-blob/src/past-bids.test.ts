// Game.pastDecisions for Blob: every bid rebuilt from a later state must encode, from the bidder's seat,
// exactly as the real state did when it bid (that is what a network reading it must see), for every
// observer, at every later point of the round, in several table sizes and both trump variants.
import { describe, expect, it } from 'vitest';
import { Rng } from '@az/core';
import { BID_ACTION_BASE } from './rules.js';
import { PHASE_BID, type BlobState } from './state.js';
import { makeGame, randomPlayout } from './test-helpers.js';

describe('Blob pastDecisions (the other seats’ bids, rebuilt)', () => {
  for (const config of [{ rounds: 'one', roundCards: 5 }, { players: 3, maxHand: 4 }, { players: 6, trump: 'turned-up', maxHand: 3 }]) {
    it(`rebuilds each bid as the bidder saw it (${JSON.stringify(config)})`, () => {
      const game = makeGame(config);
      const E = game.encoder.size;
      const expected = new Float32Array(E);
      const rebuilt = new Float32Array(E);
      let checked = 0;
      for (const seed of [1, 2]) {
        const states = randomPlayout(game, seed);
        // The state at each bid of the current round, by seat (a new round clears them).
        let atBid = new Map<number, BlobState>();
        let round = -1;
        for (let i = 0; i < states.length - 1; i++) {
          const state = states[i];
          if (game.isTerminal(state)) break;
          if (state.round !== round) {
            round = state.round;
            atBid = new Map();
          }
          if (state.phase === PHASE_BID) atBid.set(state.toAct, state);
          for (let observer = 0; observer < game.numPlayers; observer++) {
            const past = game.pastDecisions(state, observer);
            const bidders = [...atBid.keys()].filter((seat) => seat !== observer && state.bids[seat] >= 0);
            expect(past.map((d) => d.seat).sort()).toEqual(bidders.sort());
            for (const d of past) {
              const real = atBid.get(d.seat)!;
              expect(d.action).toBe(BID_ACTION_BASE + state.bids[d.seat]);
              game.encoder.encode(real, d.seat, expected, 0);
              game.encoder.encode(d.state, d.seat, rebuilt, 0);
              expect(Array.from(rebuilt), `seed ${seed}, move ${i}, seat ${d.seat}'s bid seen by ${observer}`).toEqual(Array.from(expected));
              expect(game.currentPlayer(d.state)).toBe(d.seat);
              checked++;
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    });
  }

  it('rebuilds bids in a sampled world from that world’s hands, not the real ones', () => {
    const game = makeGame({ rounds: 'one', roundCards: 5 });
    const states = randomPlayout(game, 7);
    const state = states.find((s) => s.phase !== PHASE_BID && s.trickSize === 0 && s.trickNumber === 2)!;
    const world = game.determinizer.sample(state, 0, new Rng(3));
    for (const d of game.pastDecisions(world, 0)) {
      for (let c = 0; c < 52; c++) {
        const holds = world.owner[c] === d.seat || world.playedBy[c] === d.seat;
        expect(d.state.owner[c] === d.seat).toBe(holds);
      }
    }
  });
});

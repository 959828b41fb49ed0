// Whole games round by round: `rounds=sampled` deals one round of the game's sequence, and
// `roundState` (the plugin's `partModels.project`) turns any decision of a whole game into the same
// decision of that round, scored as the whole game scores it.
import { Rng, randomLegalAction } from '@az/core';
import { describe, expect, it } from 'vitest';
import { TRUMP_ROTATION } from './rules.js';
import { blobEncodingLayout } from './encoding.js';
import { blobOutcomeMetrics, blobPlugin } from './plugin.js';
import { blobPartModels, roundState } from './round-play.js';
import { PHASE_OVER, type BlobState } from './state.js';
import { makeGame } from './test-helpers.js';
import { roundScoreRange, scoreToValue } from './value.js';
import { gameLength, roundSchedule } from './config.js';

describe('rounds=sampled', () => {
  it('deals each round of the whole game, with its cards, trump and dealer, as often as the game plays it', () => {
    const game = makeGame({ players: 4, rounds: 'sampled', firstDealer: 1 });
    const schedule = roundSchedule(7, 4);
    expect(game.rules.maxHand).toBe(7);
    expect(game.rules.schedule).toEqual(schedule);
    expect(game.masker.actionSize).toBe(makeGame({ players: 4 }).masker.actionSize);
    expect(game.encoder.size).toBe(makeGame({ players: 4 }).encoder.size);
    const counts = new Array<number>(schedule.length).fill(0);
    const draws = 100 * schedule.length;
    for (let seed = 0; seed < draws; seed++) {
      const state = game.initialState(new Rng(seed));
      counts[state.round]++;
      expect(state.cardsDealt).toBe(schedule[state.round]);
      expect(state.trumpSuit).toBe(TRUMP_ROTATION[state.round % 5]);
      expect(state.dealer).toBe((1 + state.round) % 4);
      expect(state.handSizes.every((n) => n === schedule[state.round])).toBe(true);
    }
    // Uniform: each of the 17 rounds ~100 times (binomial sd ~9.7; 5 sd either side).
    for (const n of counts) expect(Math.abs(n - 100)).toBeLessThan(50);
  });

  it('ends after its round, valued on the largest round scale, counted as one round', () => {
    const game = makeGame({ players: 5, rounds: 'sampled' });
    const range = roundScoreRange(game.rules, 7);
    expect(game.scoreRange).toEqual(range);
    expect(game.maxGameLength).toBe(gameLength(game.rules));
    expect(game.maxGameLength).toBe(5 * 8);
    for (let seed = 0; seed < 40; seed++) {
      const rng = new Rng(seed);
      const state = game.initialState(rng);
      const round = state.round;
      const cards = state.cardsDealt;
      let moves = 0;
      while (!game.isTerminal(state)) {
        game.applyAction(state, randomLegalAction(game, state, rng), rng);
        moves++;
      }
      expect(moves).toBe(5 * (1 + cards));
      expect(state.phase).toBe(PHASE_OVER);
      expect(state.round).toBe(round);
      const returns = game.returns(state);
      for (let seat = 0; seat < 5; seat++) {
        expect(returns[seat]).toBeCloseTo(scoreToValue(state.scores[seat], range), 6);
        const metrics = blobOutcomeMetrics(game.config, state, seat);
        expect(metrics.scorePerRound).toBe(state.scores[seat]);
        expect(metrics.bidAccuracy).toBe(state.scores[seat] > 0 ? 1 : 0);
      }
    }
  });
});

describe('roundState: a whole game, decision by decision, as rounds of rounds=sampled', () => {
  const plane = (out: Float32Array, start: number, size: number): number[] => Array.from(out.subarray(start, start + size));

  for (const players of [3, 7]) {
    it(`${players} players: same seat, mask and encodings (but the scores), and each round scores as the game does`, () => {
      const whole = makeGame({ players });
      const part = makeGame({ players, rounds: 'sampled' });
      const L = blobEncodingLayout(players, whole.rules.maxHand);
      const size = whole.encoder.size;
      const a = new Float32Array(size);
      const b = new Float32Array(size);
      const wholeMask = new Uint8Array(whole.masker.actionSize);
      const partMask = new Uint8Array(part.masker.actionSize);
      const rng = new Rng(players);
      const state = whole.initialState(rng);
      let roundStart: BlobState = blobPartModels.project(state, whole, part);
      let roundActions: number[] = [];
      let rounds = 0;
      let decisions = 0;
      while (!whole.isTerminal(state)) {
        const projected = blobPartModels.project(state, whole, part);
        expect(part.currentPlayer(projected)).toBe(whole.currentPlayer(state));
        whole.masker.fillMask(state, wholeMask, 0);
        part.masker.fillMask(projected, partMask, 0);
        expect(partMask).toEqual(wholeMask);
        for (const [encoder, partEncoder] of [[whole.encoder, part.encoder], [whole.worldEncoder, part.worldEncoder]] as const) {
          for (let seat = 0; seat < players; seat++) {
            encoder.encode(state, seat, a, 0);
            partEncoder.encode(projected, seat, b, 0);
            // Scores are the only difference: earlier rounds do not change this round's value.
            expect([...plane(b, 0, L.scores), ...plane(b, L.scores + players, size - L.scores - players)]).toEqual([
              ...plane(a, 0, L.scores),
              ...plane(a, L.scores + players, size - L.scores - players),
            ]);
            expect(plane(b, L.scores, players)).toEqual(new Array<number>(players).fill(-1));
          }
        }
        const action = randomLegalAction(whole, state, rng);
        roundActions.push(action);
        const roundBefore = state.round;
        whole.applyAction(state, action, rng);
        decisions++;
        if (state.round !== roundBefore || whole.isTerminal(state)) {
          // Replay the round on its projection at the round's start: the same points as the game.
          const replay = roundStart;
          for (const played of roundActions) part.applyAction(replay, played, rng);
          expect(part.isTerminal(replay)).toBe(true);
          expect(Array.from(replay.scores)).toEqual(Array.from(state.lastRoundScores));
          rounds++;
          roundStart = blobPartModels.project(state, whole, part);
          roundActions = [];
        }
      }
      expect(rounds).toBe(whole.rules.schedule.length);
      expect(decisions).toBe(whole.maxGameLength);
    });
  }

  it('leaves the whole game state as it was, and restarts the move count at the round', () => {
    const whole = makeGame({ players: 4 });
    const rng = new Rng(5);
    const state = whole.initialState(rng);
    for (let i = 0; i < 40; i++) whole.applyAction(state, randomLegalAction(whole, state, rng), rng);
    expect(state.round).toBeGreaterThan(0);
    const before = state.key();
    const projected = roundState(state);
    expect(state.key()).toBe(before);
    expect(projected.scores.every((s) => s === 0)).toBe(true);
    let actionsThisRound = 0;
    for (let s = 0; s < 4; s++) if (state.bids[s] >= 0) actionsThisRound++;
    for (let c = 0; c < 52; c++) if (state.playedBy[c] >= 0) actionsThisRound++;
    expect(projected.moveCount).toBe(actionsThisRound);
  });

  it('is what the plugin offers, and refuses a model of another table', () => {
    expect(blobPlugin.partModels).toBe(blobPartModels);
    expect(blobPartModels.trainedSettings(makeGame({ players: 5 }).config)).toEqual({ rounds: 'sampled' });
    expect(blobPartModels.trainedSettings(makeGame({ rounds: 'one' }).config)).toBeUndefined();
    expect(blobPartModels.playedSettings(makeGame({ rounds: 'sampled' }).config)).toEqual({ rounds: 'game' });
    expect(blobPartModels.playedSettings(makeGame({ rounds: 'game' }).config)).toBeUndefined();
    const whole = makeGame({ players: 3 });
    const state = whole.initialState(new Rng(0));
    expect(() => blobPartModels.project(state, whole, makeGame({ players: 4, rounds: 'sampled' }))).toThrow(/sampled model of 4 players, maxHand 7 cannot play rounds=game with 3 players/);
    expect(() => blobPartModels.project(state, whole, makeGame({ players: 3, rounds: 'sampled', maxHand: 5 }))).toThrow(/maxHand 5 cannot play/);
  });
});

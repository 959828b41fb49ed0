// Inference over Blob worlds (`PolicyWorldWeigher` from @az/imperfect-info with Blob's pastDecisions):
// with a model of the players that bids its trump count, worlds in which every bidder holds as many
// trumps as it bid must carry nearly all the weight, though few of the uniform samples are such worlds.
import { describe, expect, it } from 'vitest';
import { Rng, type InferenceModel } from '@az/core';
import { PolicyWorldWeigher } from '@az/imperfect-info';
import { cardSuit } from './cards.js';
import { BID_ACTION_BASE } from './rules.js';
import { PHASE_BID, type BlobState } from './state.js';
import { makeGame } from './test-helpers.js';

const game = makeGame({ rounds: 'one', roundCards: 5 });
const E = game.encoder.size;
const A = game.masker.actionSize;

/** A stand-in network: from the hand plane (the encoding's first 52 inputs), "bid your trump count". */
function trumpCounter(trump: number): InferenceModel & { rows: number } {
  return {
    rows: 0,
    backendName: 'test',
    config: { spec: { kind: 'mlp', hidden: [] }, inputShape: [E], actionSize: A, numSeats: game.numPlayers },
    async predict(input, count, policy, values) {
      this.rows += count;
      policy.fill(0, 0, count * A);
      values.fill(0, 0, count * game.numPlayers);
      for (let r = 0; r < count; r++) {
        let trumps = 0;
        for (let c = 0; c < 52; c++) if (input[r * E + c] === 1 && cardSuit(c) === trump) trumps++;
        policy[r * A + BID_ACTION_BASE + trumps] = 8;
      }
    },
    dispose() {},
  };
}

function trumpsOf(state: BlobState, seat: number): number {
  let n = 0;
  for (let c = 0; c < 52; c++) if (state.owner[c] === seat && cardSuit(c) === state.trumpSuit) n++;
  return n;
}

describe('inference over Blob worlds', () => {
  it('puts the weight on worlds that explain the bids', async () => {
    const rng = new Rng(5);
    const state = game.initialState(rng);
    // Seats 1-3 bid their real trump counts; the dealer (seat 0) is to bid and weighs its worlds.
    while (state.toAct !== state.dealer) game.applyAction(state, BID_ACTION_BASE + trumpsOf(state, state.toAct), rng);
    expect(state.phase).toBe(PHASE_BID);
    const model = trumpCounter(state.trumpSuit);
    const weigher = new PolicyWorldWeigher(game, model);
    const worlds = Array.from({ length: 400 }, () => game.determinizer.sample(state, 0, rng));
    const logWeights = new Float64Array(worlds.length);
    await weigher.logWeights(worlds, new Int32Array(worlds.length), logWeights);
    expect(model.rows).toBe(3 * worlds.length); // one row per earlier bid per world, in one call
    const explains = worlds.map((w) => [1, 2, 3].every((seat) => trumpsOf(w, seat) === state.bids[seat]));
    const max = Math.max(...logWeights);
    const weights = Array.from(logWeights, (l) => Math.exp(l - max));
    const total = weights.reduce((a, b) => a + b, 0);
    const weightedShare = weights.reduce((sum, w, i) => sum + (explains[i] ? w : 0), 0) / total;
    const uniformShare = explains.filter(Boolean).length / worlds.length;
    expect(uniformShare).toBeGreaterThan(0);
    expect(uniformShare).toBeLessThan(0.25);
    // Partly explaining worlds keep some weight (each wrong bid costs a factor of ~50 with the floor).
    expect(weightedShare).toBeGreaterThan(0.8);
    expect(weightedShare).toBeGreaterThan(3 * uniformShare);
    // The floor keeps every world possible: a model can be wrong about a player.
    for (const l of logWeights) expect(Number.isFinite(l)).toBe(true);
  });

  it('weighs nothing before anyone has bid', async () => {
    const state = game.initialState(new Rng(6));
    const worlds = [game.determinizer.sample(state, state.toAct, new Rng(1))];
    const out = new Float64Array([7]);
    const model = trumpCounter(state.trumpSuit);
    await new PolicyWorldWeigher(game, model).logWeights(worlds, [state.toAct], out);
    expect([out[0], model.rows]).toEqual([0, 0]);
  });
});

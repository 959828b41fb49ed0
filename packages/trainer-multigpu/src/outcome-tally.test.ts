import { describe, expect, it } from 'vitest';
import type { GameRecord } from './game-record.js';
import { OutcomeTally } from './outcome-tally.js';

function game(returns: number[], length: number): GameRecord {
  const P = returns.length;
  return {
    length,
    inputSize: 1,
    numSeats: P,
    inputs: new Float32Array(length),
    policyOffsets: new Int32Array(length + 1),
    policyIndex: new Int32Array(0),
    policyProb: new Float32Array(0),
    legalOffsets: new Int32Array(length + 1),
    legalIndex: new Int32Array(0),
    values: new Float32Array(length * P),
    returns: Float32Array.from(returns),
    weightsVersion: 0,
  };
}

describe('OutcomeTally', () => {
  it('counts decisive games, outright wins by seat and mean length, then starts afresh', () => {
    const tally = new OutcomeTally(2);
    tally.add(game([1, -1], 10));
    tally.add(game([-1, 1], 20));
    tally.add(game([1, -1], 30));
    tally.add(game([0, 0], 40));
    expect(tally.take()).toEqual({ decisiveShare: 0.75, winShareBySeat: [0.5, 0.25], meanLength: 25 });
    expect(tally.take()).toEqual({ decisiveShare: 0, winShareBySeat: [0, 0], meanLength: 0 });
    // Three seats: a shared top score is decisive but nobody's outright win.
    const three = new OutcomeTally(3);
    three.add(game([0.5, 0.5, -1], 6));
    three.add(game([-0.2, 0.1, 0.3], 6));
    expect(three.take()).toEqual({ decisiveShare: 1, winShareBySeat: [0, 0, 0.5], meanLength: 6 });
  });
});

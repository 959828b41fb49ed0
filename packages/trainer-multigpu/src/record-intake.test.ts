// Records as training positions (az train --records): the minibatch share drawn from them, its fall over
// the run, and a record that does not replay skipped and counted, never added.
import { describe, expect, it } from 'vitest';
import { Rng, type Game } from '@az/core';
import { ticTacToePlugin } from '@az/game-tictactoe';
import { checkRecordsInput, readRecords, recordPositions, recordsShareAt, sampleMixed, type RecordedGame, type RecordSource } from './record-intake.js';
import { ReplayBuffer } from './replay-buffer.js';

const game = ticTacToePlugin.create({}) as Game<unknown>;
const shape = { inputSize: game.encoder.size, actionSize: game.masker.actionSize, numSeats: 2, policyWidth: 256 };

/** A recorded game of tic-tac-toe played from the start: `actions` in order. */
function recorded(where: string, actions: readonly number[]): RecordedGame {
  return {
    where,
    replay: (onMove) => {
      const rng = new Rng(1);
      const state = game.initialState(rng);
      for (const a of actions) {
        onMove(state, a);
        game.applyAction(state, a, rng);
      }
      return game.returns(state);
    },
  };
}

// X takes the top row: 0, 1, 2 against 3, 4.
const XWINS = [0, 3, 1, 4, 2];

describe('record intake', () => {
  it('draws round(share x batch) positions of each minibatch from the records, the rest from self-play', () => {
    const records = new ReplayBuffer(100, shape);
    records.addGame(recordPositions(game, recorded('r:1', XWINS), 0));
    const selfPlay = new ReplayBuffer(100, shape);
    // Self-play positions told apart by their value target: every one is 0 (a draw), records' are +-1.
    const draw = recordPositions(game, recorded('s:1', XWINS), 0);
    selfPlay.addGame({ ...draw, values: new Float32Array(draw.values.length) });
    const B = 40;
    const batch = { inputs: new Float32Array(B * shape.inputSize), policy: new Float32Array(B * 9), values: new Float32Array(B * 2), legal: new Float32Array(B * 9) };
    const fromRecords = (share: number): number => {
      sampleMixed(selfPlay, { buffer: records, share }, B, new Rng(5), batch, []);
      return Array.from({ length: B }, (_, i) => batch.values[2 * i]).filter((v) => v !== 0).length;
    };
    expect(fromRecords(0.25)).toBe(10);
    expect(fromRecords(1)).toBe(B);
    expect(fromRecords(0)).toBe(0);
  });

  it('falls linearly from --records-share to --records-share-final over the run', () => {
    const mix = { share: 0.6, finalShare: 0 };
    expect([1, 2, 3, 4].map((i) => recordsShareAt(mix, i, 4))).toEqual([0.6, 0.4, expect.closeTo(0.2, 9), 0]);
    expect(recordsShareAt(mix, 1, 1)).toBe(0.6);
  });

  it('skips and counts a record that does not replay, naming where it was read', async () => {
    const source: RecordSource = {
      describe: 'test',
      async *games(_game, skip) {
        yield recorded('f:1', XWINS);
        skip('f:2', 'not JSON', 'not JSON');
        yield recorded('f:3', [0, 0]); // the same square twice
      },
    };
    const logs: string[] = [];
    const { buffer, summary } = await readRecords(game, { source, labelSmoothing: 0, share: 0, finalShare: 0 }, 100, shape, { log: (m) => logs.push(m) }, () => false);
    expect(buffer.size).toBe(XWINS.length);
    expect(summary.gamesRead).toBe(1);
    expect(Object.fromEntries(Object.entries(summary.skipped).map(([k, v]) => [k, v]))).toEqual({ 'not JSON': { count: 1, where: ['f:2'] }, 'does not replay': { count: 1, where: ['f:3'] } });
    expect(logs.at(-1)).toMatch(/records: 1 games read from test, 5 positions .*; 2 skipped: 1 not JSON \(f:2\); 1 does not replay \(f:3\)/);
  });
});

describe('record settings', () => {
  it('refuses a label smoothing or share outside its range, naming it', () => {
    expect(() => checkRecordsInput({ labelSmoothing: 1, share: 0, finalShare: 0 })).toThrow(/labelSmoothing must be in \[0, 1\), got 1/);
    expect(() => checkRecordsInput({ labelSmoothing: 0, share: 1.5, finalShare: 0 })).toThrow(/share must be in \[0, 1\], got 1.5/);
    expect(() => checkRecordsInput({ labelSmoothing: 0, share: 0, finalShare: 0, pretrainSteps: -1 })).toThrow(/pretrainSteps must be a non-negative integer/);
    expect(() => checkRecordsInput({ labelSmoothing: 0.1, share: 0.5, finalShare: 0 })).not.toThrow();
  });
});

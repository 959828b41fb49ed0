import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RandomAgent, Rng } from '@az/core';
import { BatchedMcts, UniformEvaluator } from '@az/mcts';
import { MinimaxAgent, ticTacToePlugin, type TicTacToeState } from '@az/game-tictactoe';
import { playArena } from './arena.js';
import { decodeGameRecord, encodeGameRecord, type GameRecord } from './game-record.js';
import { ReplayBuffer } from './replay-buffer.js';
import { SelfPlay } from './self-play.js';

const game = ticTacToePlugin.create({});

async function playGames(n: number, seed: number): Promise<{ records: GameRecord[]; averageBatch: number }> {
  const engine = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 8, { simulations: 32, leavesPerTree: 4, seed });
  const selfPlay = new SelfPlay(game, engine, { temperatureMoves: 2, seed });
  const records: GameRecord[] = [];
  const progress: number[] = [];
  const stats = await selfPlay.play(n, (r) => records.push(r), (f) => progress.push(f));
  expect(stats.games).toBe(n);
  expect(progress).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  return { records, averageBatch: stats.averageBatch };
}

describe('SelfPlay', () => {
  it('plays the requested games in parallel slots with consistent targets', async () => {
    const { records, averageBatch } = await playGames(20, 1);
    expect(records).toHaveLength(20);
    expect(averageBatch).toBeGreaterThan(4); // 8 slots x 4 leaves: batches span games
    for (const r of records) {
      expect(r.length).toBeGreaterThanOrEqual(5);
      expect(r.length).toBeLessThanOrEqual(9);
      expect(r.inputs.length).toBe(r.length * game.encoder.size);
      for (let i = 0; i < r.length; i++) {
        let total = 0;
        for (let k = r.policyOffsets[i]; k < r.policyOffsets[i + 1]; k++) total += r.policyProb[k];
        expect(total).toBeCloseTo(1, 5);
        // Position i has 9 - i empty cells, all legal, and the policy lives on them.
        const legal = Array.from(r.legalIndex.subarray(r.legalOffsets[i], r.legalOffsets[i + 1]));
        expect(legal).toHaveLength(9 - i);
        for (let k = r.policyOffsets[i]; k < r.policyOffsets[i + 1]; k++) expect(legal).toContain(r.policyIndex[k]);
        // Zero-sum: "my" value is minus "their" value, and alternating movers see alternating signs.
        expect(r.values[i * 2]).toBeCloseTo(-r.values[i * 2 + 1], 6);
        if (i > 0) expect(r.values[i * 2]).toBeCloseTo(-r.values[(i - 1) * 2], 6);
      }
      // The last mover of a decisive game is the winner.
      const last = r.length - 1;
      if (r.returns[0] !== 0) expect(r.values[last * 2]).toBe(1);
    }
  });

  it('blends value targets with the game\'s estimate when value shaping is on, and refuses a game without one', async () => {
    // A made-up estimate that differs at every ply: X's "advantage" is the number of marks / 10.
    const estimateReturns = (s: TicTacToeState): Float32Array => Float32Array.of(s.moveCount / 10, -s.moveCount / 10);
    const shaped = Object.assign(Object.create(game) as typeof game, { estimateReturns });
    const engine = new BatchedMcts(shaped, new UniformEvaluator<TicTacToeState>(), 4, { simulations: 16, leavesPerTree: 2, seed: 5 });
    const records: GameRecord[] = [];
    await new SelfPlay(shaped, engine, { temperatureMoves: 9, seed: 5, valueShaping: 0.25 }).play(8, (r) => records.push(r));
    let decisive = 0;
    for (const r of records) {
      if (r.returns[0] !== 0) decisive++;
      for (let i = 0; i < r.length; i++) {
        // Position i has i marks and seat i % 2 to move; targets are from the mover's perspective.
        const mover = i % 2;
        const estimate = mover === 0 ? i / 10 : -i / 10;
        expect(r.values[i * 2]).toBeCloseTo(0.75 * r.returns[mover] + 0.25 * estimate, 6);
        expect(r.values[i * 2 + 1]).toBeCloseTo(0.75 * r.returns[1 - mover] - 0.25 * estimate, 6);
      }
    }
    expect(decisive).toBeGreaterThan(0);
    const plain = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 4, { simulations: 16, leavesPerTree: 2, seed: 5 });
    expect(() => new SelfPlay(game, plain, { temperatureMoves: 9, seed: 5, valueShaping: 0.25 })).toThrow(/estimateReturns/);
    expect(() => new SelfPlay(shaped, engine, { temperatureMoves: 9, seed: 5, valueShaping: 1 })).toThrow(/\[0, 1\)/);
  });

  it('is reproducible from its seed', async () => {
    const a = await playGames(6, 7);
    const b = await playGames(6, 7);
    expect(a.records.map((r) => Array.from(r.policyIndex))).toEqual(b.records.map((r) => Array.from(r.policyIndex)));
  });
});

describe('GameRecord binary form', () => {
  it('round-trips and rejects corruption', async () => {
    const { records } = await playGames(2, 3);
    const bytes = encodeGameRecord(records[0]);
    const back = decodeGameRecord(bytes);
    expect(Array.from(back.inputs)).toEqual(Array.from(records[0].inputs));
    expect(Array.from(back.policyProb)).toEqual(Array.from(records[0].policyProb));
    expect(Array.from(back.values)).toEqual(Array.from(records[0].values));
    expect(Array.from(back.legalOffsets)).toEqual(Array.from(records[0].legalOffsets));
    expect(Array.from(back.legalIndex)).toEqual(Array.from(records[0].legalIndex));
    expect(back.weightsVersion).toBe(records[0].weightsVersion);
    expect(() => decodeGameRecord(bytes.subarray(0, bytes.length - 8))).toThrow(/truncated/);
    const bad = bytes.slice();
    bad[0] ^= 0xff;
    expect(() => decodeGameRecord(bad)).toThrow(/magic/);
  });
});

describe('ReplayBuffer', () => {
  const shape = { inputSize: game.encoder.size, actionSize: 9, numSeats: 2, policyWidth: 9 };

  it('wraps around at capacity and samples dense targets', async () => {
    const { records } = await playGames(10, 4);
    const buffer = new ReplayBuffer(30, shape);
    for (const r of records) buffer.addGame(r);
    const total = records.reduce((s, r) => s + r.length, 0);
    expect(buffer.totalAdded).toBe(total);
    expect(buffer.size).toBe(Math.min(30, total));
    const inputs = new Float32Array(16 * shape.inputSize);
    const policy = new Float32Array(16 * 9);
    const values = new Float32Array(16 * 2);
    buffer.sample(16, new Rng(1), inputs, policy, values);
    for (let i = 0; i < 16; i++) {
      const p = policy.subarray(i * 9, (i + 1) * 9).reduce((s, x) => s + x, 0);
      expect(p).toBeCloseTo(1, 5);
      expect(Math.abs(values[i * 2])).toBeLessThanOrEqual(1);
    }
  });

  it('samples each position\'s legal actions (mapped by the same symmetry as its policy)', async () => {
    const { records } = await playGames(6, 9);
    const buffer = new ReplayBuffer(200, shape);
    for (const r of records) buffer.addGame(r);
    const inputs = new Float32Array(64 * shape.inputSize);
    const policy = new Float32Array(64 * 9);
    const legal = new Float32Array(64 * 9).fill(7);
    for (const symmetries of [[], game.symmetries ?? []]) {
      buffer.sample(64, new Rng(3), inputs, policy, new Float32Array(128), symmetries, legal);
      for (let i = 0; i < 64; i++) {
        const row = inputs.subarray(i * shape.inputSize, (i + 1) * shape.inputSize);
        for (let c = 0; c < 9; c++) {
          // Planes 0 and 1 hold the two sides' marks (after the symmetry): a cell is legal exactly when empty.
          expect(legal[i * 9 + c]).toBe(row[c] + row[9 + c] === 0 ? 1 : 0);
          if (policy[i * 9 + c] > 0) expect(legal[i * 9 + c]).toBe(1);
        }
      }
    }
  });

  it('keeps the largest policy entries when narrower than the distribution', async () => {
    const { records } = await playGames(1, 5);
    const narrow = new ReplayBuffer(20, { ...shape, policyWidth: 2 });
    narrow.addGame(records[0]);
    const policy = new Float32Array(9);
    narrow.sample(1, new Rng(0), new Float32Array(shape.inputSize), policy, new Float32Array(2));
    expect(policy.filter((x) => x > 0).length).toBeLessThanOrEqual(2);
    expect(policy.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5);
  });

  it('applies a random symmetry per sampled position when asked', async () => {
    const { records } = await playGames(1, 8);
    const buffer = new ReplayBuffer(20, shape);
    buffer.addGame({ ...records[0], length: 1 }); // just the opening position: one X move policy
    const plain = new Float32Array(9);
    buffer.sample(1, new Rng(0), new Float32Array(shape.inputSize), plain, new Float32Array(2));
    const seen = new Set<string>();
    const inputs = new Float32Array(64 * shape.inputSize);
    const policy = new Float32Array(64 * 9);
    buffer.sample(64, new Rng(1), inputs, policy, new Float32Array(128), game.symmetries);
    for (let i = 0; i < 64; i++) {
      const p = policy.subarray(i * 9, (i + 1) * 9);
      expect(p.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 5);
      // Each augmented policy is the original one permuted by some symmetry (or unchanged).
      expect([...p].sort().join()).toBe([...plain].sort().join());
      seen.add(Array.from(p).join());
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('saves and loads exactly, and names a corrupt file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'az-replay-'));
    try {
      const { records } = await playGames(4, 6);
      const buffer = new ReplayBuffer(100, shape);
      for (const r of records) buffer.addGame(r);
      const path = join(dir, 'replay.bin');
      buffer.save(path);
      const loaded = ReplayBuffer.load(path, shape);
      expect(loaded.size).toBe(buffer.size);
      const sampleOf = (b: ReplayBuffer): number[] => {
        const inputs = new Float32Array(8 * shape.inputSize);
        b.sample(8, new Rng(2), inputs, new Float32Array(8 * 9), new Float32Array(16));
        return Array.from(inputs);
      };
      expect(sampleOf(loaded)).toEqual(sampleOf(buffer));
      const legalOf = (b: ReplayBuffer): number[] => {
        const legal = new Float32Array(8 * 9);
        b.sample(8, new Rng(2), new Float32Array(8 * shape.inputSize), new Float32Array(8 * 9), new Float32Array(16), [], legal);
        return Array.from(legal);
      };
      expect(legalOf(loaded)).toEqual(legalOf(buffer));
      expect(legalOf(loaded)).toContain(0);
      // A version-1 file (before legal actions were kept) loads with every action legal.
      const v2 = readFileSync(path);
      const headerLength = v2.readUInt32LE(0);
      const header = JSON.parse(v2.subarray(4, 4 + headerLength).toString('utf8')) as { version: number; capacity: number };
      const v1Header = Buffer.from(JSON.stringify({ ...header, version: 1 }) + '\n', 'utf8');
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32LE(v1Header.length);
      const v1Path = join(dir, 'replay-v1.bin');
      writeFileSync(v1Path, Buffer.concat([prefix, v1Header, v2.subarray(4 + headerLength, v2.length - header.capacity * 2)]));
      const old = ReplayBuffer.load(v1Path, shape);
      expect(sampleOf(old)).toEqual(sampleOf(buffer));
      expect(new Set(legalOf(old))).toEqual(new Set([1]));
      const bytes = readFileSync(path);
      writeFileSync(path, bytes.subarray(0, bytes.length - 100));
      expect(() => ReplayBuffer.load(path, shape)).toThrow(/truncated or corrupt/);
      expect(() => ReplayBuffer.load(path, { ...shape, actionSize: 10 })).toThrow(/does not match/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('playArena', () => {
  it('rotates seats and never lets minimax lose to random', async () => {
    const result = await playArena(game, [new MinimaxAgent(1), new RandomAgent(game, 2)], 40, { seed: 3 });
    expect(result.games).toBe(40);
    expect(result.losses[0]).toBe(0);
    expect(result.wins[0]).toBeGreaterThan(20);
    expect(result.wins[0] + result.draws[0]).toBe(40);
    expect(result.wins[1]).toBe(0);
  });

  it('minimax against itself always draws', async () => {
    const result = await playArena(game, [new MinimaxAgent(1), new MinimaxAgent(2)], 20, { seed: 4 });
    expect(Array.from(result.draws)).toEqual([20, 20]);
  });
});

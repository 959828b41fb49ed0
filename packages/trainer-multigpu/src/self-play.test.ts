import { mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RandomAgent, Rng, playArena, type ArenaGameRecord, type Game, type SettlingAgent } from '@az/core';
import { BatchedMcts, UniformEvaluator, type Evaluator, type LeafBatch } from '@az/mcts';
import { MinimaxAgent, ticTacToePlugin, type TicTacToeState } from '@az/game-tictactoe';
import type { GameRecord } from './game-record.js';
import { NonFiniteReplayError, ReplayBuffer } from './replay-buffer.js';
import { loadReplay, parseReplayIndex, saveReplay } from './replay-store.js';
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

/** Uniform priors, and a value of +0.5 for seat 0 (-0.5 for seat 1) at every leaf: unlike any game result. */
function seatZeroHalfEvaluator(): Evaluator<TicTacToeState> {
  return {
    needsInputs: false,
    evaluate(b: LeafBatch<TicTacToeState>): void {
      b.policyLogits.fill(0, 0, b.count * b.actionSize);
      for (let i = 0; i < b.count; i++) {
        b.values[2 * i] = 0.5;
        b.values[2 * i + 1] = -0.5;
      }
    },
  };
}

describe('SelfPlay', () => {
  it('with a playout cap, records only the fully searched moves, at about the asked share', async () => {
    const simulationsSeen: number[] = [];
    const engine = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 8, { simulations: 32, leavesPerTree: 4, seed: 3 });
    const search = engine.search.bind(engine);
    engine.search = (budgets) => {
      if (budgets) for (let t = 0; t < 8; t++) simulationsSeen.push(budgets[t]);
      return search(budgets);
    };
    const records: GameRecord[] = [];
    const stats = await new SelfPlay(game, engine, { temperatureMoves: 9, seed: 3, playoutCap: { fullShare: 0.25, fullSimulations: 32, reducedSimulations: 4 } }).play(40, (r) => records.push(r));
    expect(new Set(simulationsSeen)).toEqual(new Set([32, 4]));
    expect(stats.fullSearchShare).toBeGreaterThan(0.15);
    expect(stats.fullSearchShare).toBeLessThan(0.35);
    const recorded = records.reduce((n, r) => n + r.length, 0);
    expect(recorded).toBeLessThan(stats.positions / 2);
    // Recorded policy targets come from full searches: 31 visits below the root (the first makes the root).
    for (const r of records) expect(r.policyProb.length).toBeGreaterThan(0);
    expect(() => new SelfPlay(game, engine, { temperatureMoves: 1, seed: 1, playoutCap: { fullShare: 0.5, fullSimulations: 8, reducedSimulations: 16 } })).toThrow(/reducedSimulations/);
  });

  it('records what the search teaches and plays the move a Gumbel search picked', async () => {
    const engine = new BatchedMcts(game, new UniformEvaluator<TicTacToeState>(), 4, { simulations: 16, leavesPerTree: 2, seed: 9, rootSelection: 'gumbel', gumbelConsideredActions: 4 });
    const taught: number[][] = [];
    const picked: number[] = [];
    const lastPick = new Int32Array(4).fill(-1);
    const policyTarget = engine.policyTarget.bind(engine);
    engine.policyTarget = (slot, out) => {
      const target = policyTarget(slot, out);
      taught.push(Array.from(target));
      return target;
    };
    const selectedAction = engine.selectedAction.bind(engine);
    engine.selectedAction = (slot) => {
      const a = selectedAction(slot);
      picked.push(a);
      lastPick[slot] = a;
      return a;
    };
    const records: GameRecord[] = [];
    let advanced = 0;
    let notPicked = 0;
    const advance = engine.advance.bind(engine);
    engine.advance = (slot, action, next) => {
      advanced++;
      if (action !== lastPick[slot]) notPicked++;
      advance(slot, action, next);
    };
    await new SelfPlay(game, engine, { temperatureMoves: 0, seed: 9 }).play(6, (r) => records.push(r));
    // Every recorded policy is one the engine produced, in order, legal actions only.
    const recorded: number[][] = [];
    for (const r of records) {
      for (let i = 0; i < r.length; i++) {
        const p = new Array<number>(9).fill(0);
        for (let k = r.policyOffsets[i]; k < r.policyOffsets[i + 1]; k++) p[r.policyIndex[k]] = r.policyProb[k];
        recorded.push(p);
      }
    }
    const matches = recorded.filter((p) => taught.some((t) => t.every((x, a) => Math.abs(x - p[a]) < 1e-6)));
    expect(matches).toHaveLength(recorded.length);
    // An improved policy gives every legal move some mass, unlike visit counts at 16 simulations over 9 moves.
    expect(records[0].policyOffsets[1] - records[0].policyOffsets[0]).toBe(9);
    expect(picked.every((a) => a >= 0)).toBe(true);
    expect(picked.length).toBe(records.reduce((n, r) => n + r.length, 0));
    // At temperature 0 every move played is Gumbel's pick (the last of each game ends it, without an advance).
    expect(advanced).toBeGreaterThan(20);
    expect(notPicked).toBe(0);
  });

  it('blends the root search value into value targets with rootValueWeight', async () => {
    // A value of 0.5 for seat 0 at every leaf: the root's mean is pulled towards it, unlike any game result.
    const evaluator = seatZeroHalfEvaluator();
    const engine = new BatchedMcts(game, evaluator, 4, { simulations: 16, leavesPerTree: 2, seed: 5 });
    const records: GameRecord[] = [];
    await new SelfPlay(game, engine, { temperatureMoves: 9, seed: 5, rootValueWeight: 0.5 }).play(8, (r) => records.push(r));
    let blended = 0;
    for (const r of records) {
      for (let i = 0; i < r.length; i++) {
        const v = r.values[i * 2];
        // Not a pure result (-1, 0, 1); still zero-sum.
        if (![-1, 0, 1].includes(v)) blended++;
        expect(v).toBeCloseTo(-r.values[i * 2 + 1], 5);
        expect(Math.abs(v)).toBeLessThanOrEqual(1);
      }
    }
    expect(blended).toBeGreaterThan(records.length);
    expect(() => new SelfPlay(game, engine, { temperatureMoves: 1, seed: 1, rootValueWeight: 1.5 })).toThrow(/rootValueWeight/);
  });

  it("records every position's input in a long game (encoded into place, chunk by chunk)", async () => {
    interface CountState {
      n: number;
    }
    const LENGTH = 40; // past two chunk boundaries
    const counting: Game<CountState> = {
      traits: { ...game.traits, id: 'test-count', maxGameLength: LENGTH },
      config: {},
      numPlayers: 2,
      maxGameLength: LENGTH,
      encoder: {
        version: 'count',
        shape: [3],
        size: 3,
        encode(s, p, out, off) {
          out[off] = s.n;
          out[off + 1] = p;
          out[off + 2] = 7;
        },
      },
      masker: {
        actionSize: 2,
        fillMask(_s, out, off = 0) {
          out[off] = 1;
          out[off + 1] = 1;
          return 2;
        },
      },
      initialState: () => ({ n: 0 }),
      currentPlayer: (s) => s.n % 2,
      applyAction(s) {
        s.n++;
      },
      isTerminal: (s) => s.n >= LENGTH,
      returns: () => Float32Array.of(0, 0),
      clone: (s) => ({ n: s.n }),
      hash: (s) => String(s.n),
      render: (s) => String(s.n),
      formatAction: (_s, a) => String(a),
      parseAction: (_s, t) => ({ ok: true, action: Number(t) }),
    };
    const engine = new BatchedMcts(counting, new UniformEvaluator<CountState>(), 3, { simulations: 4, leavesPerTree: 2, seed: 1 });
    const records: GameRecord[] = [];
    await new SelfPlay(counting, engine, { temperatureMoves: 1, seed: 1 }).play(5, (r) => records.push(r));
    expect(records).toHaveLength(5);
    for (const r of records) {
      expect(r.length).toBe(LENGTH);
      expect(Array.from(r.inputs)).toEqual(Array.from({ length: LENGTH }, (_, i) => [i, i % 2, 7]).flat());
    }
  });

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

  it('records each move twice with world states on: the own view, then the world row, same targets', async () => {
    // A stand-in world encoding: the own view with a marker in its first element.
    const worldEncoder = {
      ...game.encoder,
      encode(s: TicTacToeState, p: number, out: Float32Array, off: number): void {
        game.encoder.encode(s, p, out, off);
        out[off] = 7;
      },
    };
    const withWorld = Object.assign(Object.create(game) as typeof game, { worldEncoder });
    const engine = new BatchedMcts(withWorld, new UniformEvaluator<TicTacToeState>(), 4, { simulations: 16, leavesPerTree: 2, seed: 6 });
    const records: GameRecord[] = [];
    const stats = await new SelfPlay(withWorld, engine, { temperatureMoves: 9, seed: 6, recordWorldStates: true }).play(6, (r) => records.push(r));
    const E = game.encoder.size;
    let rows = 0;
    for (const r of records) {
      expect(r.length % 2).toBe(0);
      rows += r.length;
      for (let m = 0; m < r.length / 2; m++) {
        const own = 2 * m;
        const world = own + 1;
        expect(r.inputs[world * E]).toBe(7);
        expect(r.inputs[own * E]).not.toBe(7);
        expect(Array.from(r.inputs.subarray(own * E + 1, own * E + E))).toEqual(Array.from(r.inputs.subarray(world * E + 1, world * E + E)));
        expect(Array.from(r.values.subarray(world * 2, world * 2 + 2))).toEqual(Array.from(r.values.subarray(own * 2, own * 2 + 2)));
        const policy = (i: number) => Array.from(r.policyProb.subarray(r.policyOffsets[i], r.policyOffsets[i + 1]));
        expect(policy(world)).toEqual(policy(own));
      }
    }
    expect(rows).toBe(2 * stats.positions);
    expect(() => new SelfPlay(game, engine, { temperatureMoves: 9, seed: 6, recordWorldStates: true })).toThrow(/no world encoder/);
  });

  it("adds a value-only row for each root child searched twice or more, its target the child's search value", async () => {
    // Every leaf is worth +0.5 to seat 0: a child's mean search value is exactly that until its subtree
    // reaches a finished game, which on the first move's children (five marks away) it cannot.
    const evaluator = seatZeroHalfEvaluator();
    const engine = new BatchedMcts(game, evaluator, 4, { simulations: 64, leavesPerTree: 2, seed: 8 });
    const records: GameRecord[] = [];
    const stats = await new SelfPlay(game, engine, { temperatureMoves: 9, seed: 8, childValueWorlds: 1 }).play(6, (r) => records.push(r));
    const E = game.encoder.size;
    const legalCount = (r: GameRecord, i: number): number => r.legalOffsets[i + 1] - r.legalOffsets[i];
    const hasPolicy = (r: GameRecord, i: number): boolean => r.policyOffsets[i + 1] > r.policyOffsets[i];
    let positions = 0;
    let children = 0;
    for (const r of records) {
      let parent = -1;
      for (let i = 0; i < r.length; i++) {
        const v = Array.from(r.values.subarray(2 * i, 2 * i + 2));
        if (hasPolicy(r, i)) {
          positions++;
          parent = i;
          expect([-1, 0, 1]).toContain(v[0]);
          continue;
        }
        children++;
        expect(parent).toBeGreaterThanOrEqual(0);
        // One more mark than its parent, so one legal move fewer; encoded from its own mover's seat.
        expect(legalCount(r, i)).toBe(legalCount(r, parent) - 1);
        const marks = (k: number): number => { let n = 0; for (let e = 0; e < E; e++) n += r.inputs[k * E + e]; return n; };
        expect(marks(i)).toBe(marks(parent) + 1);
        expect(v[0]).toBeCloseTo(-v[1], 5);
        if (parent === 0) expect(v).toEqual([-0.5, 0.5]); // the first move's children: seat 1 to move there
      }
    }
    expect(positions).toBe(stats.positions);
    expect(children).toBeGreaterThan(stats.positions);
    expect(() => new SelfPlay(game, engine, { temperatureMoves: 1, seed: 1, childValueWorlds: -1 })).toThrow(/childValueWorlds/);
  });

  it('is reproducible from its seed', async () => {
    const a = await playGames(6, 7);
    const b = await playGames(6, 7);
    expect(a.records.map((r) => Array.from(r.policyIndex))).toEqual(b.records.map((r) => Array.from(r.policyIndex)));
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

  it('describes the buffer as it was when the save began, even when games land during the save', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'az-replay-'));
    try {
      const { records } = await playGames(4, 7);
      const buffer = new ReplayBuffer(1000, shape);
      buffer.addGame(records[0]);
      const before = buffer.totalAdded;
      // A game arrives while the segment is being written (as worker games do between awaits).
      const saving = saveReplay(dir, buffer, null);
      buffer.addGame(records[1]);
      const index = await saving;
      expect(index.totalAdded).toBe(before);
      expect(index.segments.reduce((n, s) => n + s.count, 0)).toBe(before);
      expect(loadReplay(dir, index, 1000, shape).totalAdded).toBe(before);
      // The late game is in the next save.
      const next = await saveReplay(dir, buffer, index);
      expect(loadReplay(dir, next, 1000, shape).totalAdded).toBe(buffer.totalAdded);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('saves as compressed segments of what is new, loads exactly, and names a damaged segment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'az-replay-'));
    try {
      const { records } = await playGames(8, 6);
      const buffer = new ReplayBuffer(40, shape);
      for (const r of records.slice(0, 4)) buffer.addGame(r);
      expect(buffer.allocatedPositions).toBeLessThan(buffer.capacity + 1);
      const first = await saveReplay(dir, buffer, null);
      for (const r of records.slice(4)) buffer.addGame(r);
      expect(buffer.totalAdded).toBeGreaterThan(40); // the ring has wrapped
      const second = await saveReplay(dir, buffer, first);
      // The second save wrote only the positions added since the first.
      expect(second.segments.at(-1)?.first).toBe(first.totalAdded);
      expect(second.segments.at(-1)?.count).toBe(buffer.totalAdded - first.totalAdded);
      const loaded = loadReplay(dir, second, 40, shape);
      expect(loaded.size).toBe(buffer.size);
      expect(loaded.totalAdded).toBe(buffer.totalAdded);
      const sampleOf = (b: ReplayBuffer): number[] => {
        const inputs = new Float32Array(8 * shape.inputSize);
        const legal = new Float32Array(8 * 9);
        const policy = new Float32Array(8 * 9);
        b.sample(8, new Rng(2), inputs, policy, new Float32Array(16), [], legal);
        return [...inputs, ...legal, ...policy];
      };
      expect(sampleOf(loaded)).toEqual(sampleOf(buffer));
      // The earlier index still rebuilds the earlier buffer.
      expect(loadReplay(dir, first, 40, shape).totalAdded).toBe(first.totalAdded);
      // A flipped byte or a truncated segment is named.
      const segment = join(dir, 'replay', second.segments.at(-1)?.file ?? '');
      const bytes = readFileSync(segment);
      const flipped = Buffer.from(bytes);
      flipped[10] ^= 0xff;
      writeFileSync(segment, flipped);
      expect(() => loadReplay(dir, second, 40, shape)).toThrow(new RegExp(`${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is corrupt`));
      writeFileSync(segment, bytes.subarray(0, bytes.length - 3));
      expect(() => loadReplay(dir, second, 40, shape)).toThrow(/is truncated/);
      expect(() => loadReplay(dir, second, 40, { ...shape, actionSize: 10 })).toThrow(/does not match/);
      // A replay.json names segments of RUN/replay/ only, and a segment is a regular file read only once its size is right.
      const outside = { ...second, segments: [{ ...second.segments[0], file: '../../secret.bin' }] };
      expect(() => parseReplayIndex(JSON.stringify(outside), 'replay.json')).toThrow(/names the replay segment "\.\.\/\.\.\/secret\.bin"; refused: a file name cannot hold a path separator/);
      rmSync(segment);
      symlinkSync('/dev/zero', segment);
      expect(() => loadReplay(dir, second, 40, shape)).toThrow(/is not a regular file .*; refused/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a game added while a save is being written goes into the next save, not this one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'az-replay-race-'));
    try {
      const { records } = await playGames(3, 9);
      const buffer = new ReplayBuffer(100, shape);
      buffer.addGame(records[0]);
      const saving = saveReplay(dir, buffer, null);
      buffer.addGame(records[1]); // arrives during the save's file writes
      const first = await saving;
      expect(first.totalAdded).toBe(records[0].length);
      expect(loadReplay(dir, first, 100, shape).totalAdded).toBe(records[0].length);
      const second = await saveReplay(dir, buffer, first);
      expect(second.segments.at(-1)).toMatchObject({ first: records[0].length, count: records[1].length });
      expect(loadReplay(dir, second, 100, shape).totalAdded).toBe(records[0].length + records[1].length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('grows with what is filled, not its capacity, and refuses NaN games', async () => {
    const { records } = await playGames(2, 7);
    const buffer = new ReplayBuffer(1_000_000, shape);
    expect(buffer.allocatedPositions).toBe(0);
    buffer.addGame(records[0]);
    expect(buffer.allocatedPositions).toBeLessThanOrEqual(256);
    const bad = { ...records[1], values: records[1].values.map((v, i) => (i === 0 ? NaN : v)) };
    expect(() => buffer.addGame(bad)).toThrow(NonFiniteReplayError);
    expect(buffer.totalAdded).toBe(records[0].length);
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

  it('records every game so that it replays exactly from its seed and actions', async () => {
    const records: ArenaGameRecord[] = [];
    const finals: TicTacToeState[] = [];
    await playArena(game, [new RandomAgent(game, 5), new RandomAgent(game, 6)], 12, { seed: 9, onGameEnd: (s, _seats, r) => (records.push(r), finals.push(s as TicTacToeState)) });
    expect(records).toHaveLength(12);
    records.forEach((r, i) => {
      const rng = new Rng(r.gameSeed);
      const state = game.initialState(rng);
      for (const a of r.actions) game.applyAction(state, a, rng);
      expect(game.isTerminal(state)).toBe(true);
      expect(game.hash(state)).toBe(game.hash(finals[i]));
    });
  });

  it('abandons only the games an agent fails in, and stops with partial results when it fails for good', async () => {
    const random = new RandomAgent(game, 1);
    let calls = 0;
    // Fails in every third position it is asked about.
    const flaky: SettlingAgent<TicTacToeState> = {
      name: 'flaky',
      act: (states) => random.act(states),
      actSettled: async (states) => Array.from(await random.act(states), (a) => (++calls % 3 === 0 ? new Error('engine crashed') : a)),
    };
    const aborted: ArenaGameRecord[] = [];
    const result = await playArena(game, [flaky, new RandomAgent(game, 2)], 30, { seed: 1, onGameAborted: (r) => aborted.push(r) });
    expect(result.aborted).toBeGreaterThan(0);
    expect(result.games + result.aborted).toBe(30);
    expect(result.wins[0] + result.draws[0] + result.losses[0]).toBe(result.games);
    expect(aborted.every((r) => r.aborted === 'flaky: engine crashed')).toBe(true);
    expect(result.stopped).toBeUndefined();

    let moves = 0;
    const dying = { name: 'dying', act: async (states: readonly TicTacToeState[]) => {
      if (++moves > 2) throw new Error('cannot restart the engine');
      return random.act(states);
    } };
    const partial = await playArena(game, [dying, new RandomAgent(game, 2)], 10, { seed: 1 });
    expect(partial.stopped).toMatch(/dying failed: cannot restart the engine/);
    expect(partial.games).toBeLessThan(10);
  });
});

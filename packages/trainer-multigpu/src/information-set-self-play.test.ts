// Self-play with information-set search (`selfPlaySearchMethod: 'information-set'`) on small Blob rounds:
// what the engine gives self-play (visit-share policy targets, root values, budgets) and a real run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GameRegistry, Rng, resolveGameConfig, type Game, type GamePlugin } from '@az/core';
import { blobPlugin } from '@az/game-blob';
import { InformationSetMcts } from '@az/imperfect-info';
import { UniformEvaluator, type Evaluator, type LeafBatch } from '@az/mcts';
import type { GameRecord } from './game-record.js';
import { resolveTrainOptions, selfPlaySettings, type TrainOptionsInput } from './options.js';
import { createSelfPlayEngine } from './search-settings.js';
import { SelfPlay } from './self-play.js';
import { runTraining } from './train-loop.js';

const blob = blobPlugin as GamePlugin;
const work = mkdtempSync(join(tmpdir(), 'az-ismcts-self-play-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Blob rounds of 2 cards, information-set self-play with PUCT: D=2 x S=4 = 8 simulations a move. */
const small: TrainOptionsInput = {
  game: 'blob',
  gameConfig: { rounds: 'one', roundCards: 2 },
  selfPlaySearchMethod: 'information-set',
  rootSelection: 'puct',
  determinizations: 2,
  simulations: 4,
  leavesPerTree: 2,
  parallelGames: 3,
  seed: 7,
};

function blobGame(options: ReturnType<typeof resolveTrainOptions>): Game<unknown> {
  return blob.create(resolveGameConfig(blob, options.gameConfig)) as Game<unknown>;
}

/** A uniform policy and values drawn from the state's hash, so root values differ from game results. */
class HashValueEvaluator implements Evaluator<unknown> {
  readonly needsInputs = false;
  constructor(private readonly game: Game<unknown>) {}
  evaluate(batch: LeafBatch<unknown>): void {
    batch.policyLogits.fill(0, 0, batch.count * batch.actionSize);
    for (let i = 0; i < batch.count; i++) {
      const h = this.game.hash(batch.states[i]);
      let x = 0;
      for (let k = 0; k < h.length; k++) x = (x * 31 + h.charCodeAt(k)) >>> 0;
      for (let j = 0; j < batch.numSeats; j++) batch.values[i * batch.numSeats + j] = (((x >>> (j * 5)) % 21) - 10) / 10;
    }
  }
}

async function play(input: Partial<TrainOptionsInput>, evaluator: (game: Game<unknown>) => Evaluator<unknown>, games: number): Promise<{ records: GameRecord[]; engine: InformationSetMcts<unknown>; game: Game<unknown> }> {
  const options = resolveTrainOptions({ ...small, ...input }, blob);
  const game = blobGame(options);
  const engine = createSelfPlayEngine(game, { evaluator: evaluator(game) }, options, options.parallelGames, 11);
  expect(engine).toBeInstanceOf(InformationSetMcts);
  const records: GameRecord[] = [];
  const stats = await new SelfPlay(game, engine, { ...selfPlaySettings(options, game.traits.information), seed: 12 }).play(games, (r) => records.push(r));
  expect(stats.games).toBe(games);
  expect(stats.evaluations).toBeGreaterThan(0);
  return { records, engine: engine as InformationSetMcts<unknown>, game };
}

describe('self-play with information-set search (Blob)', () => {
  it('records the root visit shares over the legal actions as policy targets, and the game’s returns as values', async () => {
    const { records, game } = await play({}, () => new UniformEvaluator(), 4);
    const P = game.numPlayers;
    let spread = 0;
    for (const r of records) {
      expect(r.length).toBe(2 * (4 + 4 * 2)); // 4 bids and 8 cards, each an own-view and a world row (Blob's leafValues 'world')
      for (let i = 0; i < r.length; i++) {
        const legal = new Set(Array.from(r.legalIndex.subarray(r.legalOffsets[i], r.legalOffsets[i + 1])));
        const from = r.policyOffsets[i];
        const to = r.policyOffsets[i + 1];
        let sum = 0;
        for (let k = from; k < to; k++) {
          expect(legal.has(r.policyIndex[k])).toBe(true);
          // Visit shares of the 7 simulations after the one that evaluated the root (8 = D x S a move).
          expect(r.policyProb[k] * 7).toBeCloseTo(Math.round(r.policyProb[k] * 7), 4);
          sum += r.policyProb[k];
        }
        expect(sum).toBeCloseTo(1, 5);
        if (to - from > 1) spread++;
        // Values: the game's returns, rotated to the recording seat (rootValueWeight 0).
        expect(isRotationOfReturns(r, i, P)).toBe(true);
      }
    }
    expect(spread).toBeGreaterThan(0);
  });

  it('blends the root search value into value targets with rootValueWeight', async () => {
    const { records } = await play({ rootValueWeight: 1 }, (game) => new HashValueEvaluator(game), 2);
    let differs = 0;
    for (const r of records) {
      for (let i = 0; i < r.values.length; i++) {
        expect(Math.abs(r.values[i])).toBeLessThanOrEqual(1);
        if (Math.abs(r.values[i] - r.returns[i % r.numSeats]) > 1e-3) differs++;
      }
    }
    expect(differs).toBeGreaterThan(0);
  });

  it('mixes root noise into the self-play root priors (dirichletEpsilon), and none with epsilon 0', async () => {
    const noisy = await play({ parallelGames: 1 }, () => new UniformEvaluator(), 1);
    const quiet = await play({ parallelGames: 1, dirichletEpsilon: 0 }, () => new UniformEvaluator(), 1);
    // After the last game the slot is cleared; search a fresh root with each engine.
    for (const { engine, game } of [noisy, quiet]) {
      engine.setRoot(0, game.initialState(new Rng(3)));
      await engine.search();
    }
    const legalOf = (p: Float32Array): number[] => Array.from(p).filter((x) => x > 0);
    const uniform = legalOf(quiet.engine.rootPriors(0));
    expect(new Set(uniform).size).toBe(1);
    const mixed = legalOf(noisy.engine.rootPriors(0));
    expect(mixed.length).toBe(uniform.length);
    expect(new Set(mixed).size).toBeGreaterThan(1);
    expect(mixed.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
  });

  it('gives playout caps per-move budgets of D x S, recording only the full searches', async () => {
    const options = resolveTrainOptions({ ...small, fullSearchShare: 0.5, reducedSimulations: 1 }, blob);
    expect(selfPlaySettings(options, 'imperfect').playoutCap).toEqual({ fullShare: 0.5, fullSimulations: 8, reducedSimulations: 2 });
    const { records } = await play({ fullSearchShare: 0.5, reducedSimulations: 1 }, () => new UniformEvaluator(), 4);
    for (const r of records) for (let k = 0; k < r.policyProb.length; k++) expect(r.policyProb[k] * 7).toBeCloseTo(Math.round(r.policyProb[k] * 7), 4);
  });

  it('trains: a seeded two-iteration run completes, says how it self-plays, and writes its metrics and options', async () => {
    const registry = new GameRegistry();
    registry.register(blob);
    const out = join(work, 'run');
    const logs: string[] = [];
    const summary = await runTraining(
      {
        ...small,
        iterations: 2,
        gamesPerIteration: 3,
        network: { kind: 'mlp', hidden: [16] },
        trainingSteps: 2,
        batchSize: 16,
        evalGames: 0,
        backend: 'cpu',
        inferenceBackend: 'tfjs',
        out,
      },
      { registry, events: { log: (m) => logs.push(m) } },
    );
    expect(summary.iterations).toBe(2);
    expect(logs).toContain('self-play: information-set search, one tree per game, 2 x 4 simulations a move, a world each (--self-play-search information-set)');
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { iteration: number; selfPlay: { games: number }; train: { policyLoss: number; valueLoss: number } });
    expect(metrics.map((m) => m.iteration)).toEqual([1, 2]);
    for (const m of metrics) {
      expect(m.selfPlay.games).toBe(3);
      expect(Number.isFinite(m.train.policyLoss) && Number.isFinite(m.train.valueLoss)).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(out, 'options.json'), 'utf8'))).toMatchObject({ selfPlaySearchMethod: 'information-set', rootSelection: 'puct' });
    expect(existsSync(join(out, 'checkpoints', 'iter-000002'))).toBe(true);
  }, 120_000);
});

/** Whether position i's value row is the game's returns seen from some seat: `values[i*P + j]` = returns of seat (s + j). */
function isRotationOfReturns(r: GameRecord, i: number, P: number): boolean {
  for (let s = 0; s < P; s++) {
    let same = true;
    for (let j = 0; j < P; j++) if (Math.abs(r.values[i * P + j] - r.returns[(s + j) % P]) > 1e-6) same = false;
    if (same) return true;
  }
  return false;
}

/**
 * Learning from game records (`az train --records`): games played elsewhere (by bots, engines, people),
 * each replayed into training positions, held in a buffer of their own beside the self-play replay
 * buffer. A run pretrains on them before its first self-play, and each iteration's minibatches may
 * take a share of their positions from them, a share that can fall to 0 over the run.
 */
import type { Game, Rng, Symmetry } from '@az/core';
import type { GameRecord } from './game-record.js';
import type { TrainerEvents } from './metrics.js';
import { ReplayBuffer, type ReplayShape } from './replay-buffer.js';

/** One record of the run's game, replayed by whoever read it. */
export interface RecordedGame {
  /** Where the record was read (`file:line`). */
  readonly where: string;
  /**
   * Plays the game from its start, calling `onMove` with each position before its move and the move,
   * and returns the final returns by seat. Throws when the record does not replay (it is then skipped).
   */
  replay(onMove: (state: unknown, action: number) => void): ArrayLike<number>;
}

/** Reports a record that is not learned from: where it was read, the kind of fault, and the details. */
export type SkipRecord = (where: string, reason: string, detail: string) => void;

/** Where records come from: the CLI reads `--games-out` files (JSON lines). */
export interface RecordSource {
  /** What is read, for the log (the files). */
  readonly describe: string;
  /** The records of `game` (its id and config), one at a time; every other line goes to `skip`, not here. */
  games(game: Game<unknown>, skip: SkipRecord): AsyncIterable<RecordedGame>;
}

/** How a run learns from records. */
export interface RecordsInput {
  readonly source: RecordSource;
  /** Share of a position's policy target spread evenly over its legal moves; the rest is on the move played. */
  readonly labelSmoothing: number;
  /** Training steps on records alone before the first self-play, in a session starting at iteration 0 (default: the run's training steps). */
  readonly pretrainSteps?: number;
  /** Share of each minibatch drawn from the records in the run's first iteration. */
  readonly share: number;
  /** The share in the run's last iteration (linear in between): 0 ends the run on self-play alone. */
  readonly finalShare: number;
}

/** What reading the records did, for the log and the tests. */
export interface RecordsSummary {
  readonly gamesRead: number;
  /** Positions taken from those games (more than the buffer holds when the records overflow it). */
  readonly positions: number;
  /** Positions the records buffer holds: the newest `capacity` of them. */
  readonly positionsHeld: number;
  readonly capacity: number;
  readonly seconds: number;
  /** Games skipped, by reason: how many, and where the first few were read. */
  readonly skipped: Readonly<Record<string, { readonly count: number; readonly where: readonly string[] }>>;
}

/** Skipped records named one by one in the log, per reason; the rest are counted. */
const SKIPS_NAMED = 5;

/**
 * Training positions of one record: each position encoded from the mover's view, its policy target
 * the move played (one-hot, or with `labelSmoothing` spread over the legal moves), its value target
 * the game's final returns from the mover's seat. One record's arrays are held, never a file's.
 */
export function recordPositions(game: Game<unknown>, recorded: RecordedGame, labelSmoothing: number): GameRecord {
  const P = game.numPlayers;
  const size = game.encoder.size;
  const rows: Float32Array[] = [];
  const movers: number[] = [];
  const policyOffsets = [0];
  const policyIndex: number[] = [];
  const policyProb: number[] = [];
  const legalOffsets = [0];
  const legalIndex: number[] = [];
  const mask = new Uint8Array(game.masker.actionSize);
  const returns = recorded.replay((state, action) => {
    const mover = game.currentPlayer(state);
    const row = new Float32Array(size);
    game.encoder.encode(state, mover, row, 0);
    rows.push(row);
    movers.push(mover);
    const legal = legalActions(game, state, mask);
    for (const a of legal) legalIndex.push(a);
    legalOffsets.push(legalIndex.length);
    pushPolicy(policyIndex, policyProb, action, legal, labelSmoothing);
    policyOffsets.push(policyIndex.length);
  });
  const length = rows.length;
  const inputs = new Float32Array(length * size);
  rows.forEach((row, i) => inputs.set(row, i * size));
  const values = new Float32Array(length * P);
  for (let i = 0; i < length; i++) for (let j = 0; j < P; j++) values[i * P + j] = returns[(movers[i] + j) % P];
  return {
    length,
    inputSize: size,
    numSeats: P,
    inputs,
    policyOffsets: Int32Array.from(policyOffsets),
    policyIndex: Int32Array.from(policyIndex),
    policyProb: Float32Array.from(policyProb),
    legalOffsets: Int32Array.from(legalOffsets),
    legalIndex: Int32Array.from(legalIndex),
    values,
    returns: Float32Array.from(Array.from({ length: P }, (_, seat) => returns[seat])),
    weightsVersion: 0,
  };
}

function legalActions(game: Game<unknown>, state: unknown, mask: Uint8Array): number[] {
  if (game.masker.legalActions) return Array.from(game.masker.legalActions(state));
  game.masker.fillMask(state, mask, 0);
  const out: number[] = [];
  for (let a = 0; a < mask.length; a++) if (mask[a]) out.push(a);
  return out;
}

/**
 * The policy target of a recorded move. A record says which move was played, not how good the others
 * were: one-hot is all it knows. Smoothing spreads a little mass over the legal moves, so the network
 * is not pushed to certainty by a player who was not always right.
 */
function pushPolicy(index: number[], prob: number[], played: number, legal: readonly number[], smoothing: number): void {
  if (smoothing <= 0 || legal.length <= 1) {
    index.push(played);
    prob.push(1);
    return;
  }
  const even = smoothing / legal.length;
  for (const a of legal) {
    index.push(a);
    prob.push(even + (a === played ? 1 - smoothing : 0));
  }
}

/**
 * Reads every record of the source into a buffer of `capacity` positions (the newest kept), telling
 * `events` of the positions read (phase 'records'). A record that does not replay is skipped and
 * counted like the lines the source skipped.
 */
export async function readRecords(
  game: Game<unknown>,
  input: RecordsInput,
  capacity: number,
  shape: ReplayShape,
  events: TrainerEvents,
  stopped: () => boolean,
): Promise<{ buffer: ReplayBuffer; summary: RecordsSummary }> {
  checkRecordsInput(input);
  const t0 = performance.now();
  const buffer = new ReplayBuffer(capacity, shape);
  const skipped: Record<string, { count: number; where: string[] }> = {};
  // Said once the reading ends, so that the log does not break into its progress bar.
  const named: string[] = [];
  const skip: SkipRecord = (where, reason, detail) => {
    const entry = (skipped[reason] ??= { count: 0, where: [] });
    entry.count++;
    if (entry.where.length < SKIPS_NAMED) {
      entry.where.push(where);
      named.push(`records: skipped ${where}: ${detail}`);
    }
  };
  let gamesRead = 0;
  let positions = 0;
  events.phase?.('records', 0, 0);
  for await (const recorded of input.source.games(game, skip)) {
    let positionsOfGame: GameRecord;
    try {
      positionsOfGame = recordPositions(game, recorded, input.labelSmoothing);
    } catch (err) {
      skip(recorded.where, 'does not replay', err instanceof Error ? err.message : String(err));
      continue;
    }
    buffer.addGame(positionsOfGame);
    gamesRead++;
    positions += positionsOfGame.length;
    events.progress?.(positions);
    if (stopped()) break;
  }
  const summary = { gamesRead, positions, positionsHeld: buffer.size, capacity, seconds: (performance.now() - t0) / 1000, skipped };
  for (const line of named) events.log?.(line);
  events.log?.(describeRecordsSummary(input.source.describe, summary));
  return { buffer, summary };
}

/** Rejects settings no minibatch or target can follow, naming the setting. */
export function checkRecordsInput(input: Omit<RecordsInput, 'source'>): void {
  if (!(input.labelSmoothing >= 0 && input.labelSmoothing < 1)) throw new RangeError(`records labelSmoothing must be in [0, 1), got ${input.labelSmoothing}`);
  for (const key of ['share', 'finalShare'] as const) {
    if (!(input[key] >= 0 && input[key] <= 1)) throw new RangeError(`records ${key} must be in [0, 1], got ${input[key]}`);
  }
  if (input.pretrainSteps !== undefined && !(Number.isInteger(input.pretrainSteps) && input.pretrainSteps >= 0)) {
    throw new RangeError(`records pretrainSteps must be a non-negative integer, got ${input.pretrainSteps}`);
  }
}

/** One line: games read, positions used and held, games skipped by reason with where. */
export function describeRecordsSummary(source: string, s: RecordsSummary): string {
  const rate = s.seconds > 0 ? Math.round(s.positions / s.seconds) : 0;
  const held = s.positionsHeld < s.positions ? ` (the newest ${s.positionsHeld} kept: the replay capacity)` : '';
  const reasons = Object.entries(s.skipped).map(([reason, { count, where }]) => `${count} ${reason} (${where.join(', ')}${count > where.length ? ', ...' : ''})`);
  const total = Object.values(s.skipped).reduce((n, e) => n + e.count, 0);
  const skippedText = total ? `; ${total} skipped: ${reasons.join('; ')}` : '; none skipped';
  return `records: ${s.gamesRead} games read from ${source}, ${s.positions} positions${held} in ${s.seconds.toFixed(1)}s (${rate} positions/s)${skippedText}`;
}

/** The records' share of minibatches in `iteration` (1-based) of a run of `iterations`: linear from `share` to `finalShare`. */
export function recordsShareAt(input: Pick<RecordsInput, 'share' | 'finalShare'>, iteration: number, iterations: number): number {
  if (iterations <= 1) return input.share;
  const progress = Math.min(1, Math.max(0, (iteration - 1) / (iterations - 1)));
  return input.share + (input.finalShare - input.share) * progress;
}

/** Where a training phase's minibatches come from besides the self-play replay buffer. */
export interface RecordsBatches {
  readonly buffer: ReplayBuffer;
  /** Share of each minibatch drawn from `buffer` (rounded to whole positions). */
  readonly share: number;
}

/**
 * Fills a minibatch of `count` positions: `round(share * count)` from the records, the rest from
 * `replay` (see `ReplayBuffer.sample`; the arrays are filled in that order).
 */
export function sampleMixed(
  replay: ReplayBuffer,
  records: RecordsBatches | undefined,
  count: number,
  rng: Rng,
  batch: { inputs: Float32Array; policy: Float32Array; values: Float32Array; legal: Float32Array },
  symmetries: readonly Symmetry[],
): void {
  const fromRecords = records && records.buffer.size > 0 ? Math.round(records.share * count) : 0;
  if (fromRecords === 0) {
    replay.sample(count, rng, batch.inputs, batch.policy, batch.values, symmetries, batch.legal);
    return;
  }
  const { inputSize, actionSize, numSeats } = replay.shape;
  records?.buffer.sample(fromRecords, rng, batch.inputs, batch.policy, batch.values, symmetries, batch.legal);
  const rest = count - fromRecords;
  if (rest === 0) return;
  replay.sample(
    rest,
    rng,
    batch.inputs.subarray(fromRecords * inputSize),
    batch.policy.subarray(fromRecords * actionSize),
    batch.values.subarray(fromRecords * numSeats),
    symmetries,
    batch.legal.subarray(fromRecords * actionSize),
  );
}

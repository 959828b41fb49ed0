/**
 * Judging a Connect Four agent against the truth: reference positions hold every move's game-theoretic
 * value (from the exact solver); an agent's move is optimal when it keeps the best value the position
 * offers. Two kinds of set: data/positions.json (scripts/make-positions.mjs), positions of random play
 * where a random move is often optimal, and the hard sets (scripts/make-hard-positions.mjs), where a
 * mistake is always possible and no one-ply rule finds the answer: data/hard-tune.json to choose settings
 * with, data/hard-report.json to quote results on and nothing else.
 */
import { readFileSync } from 'node:fs';
import type { Agent, AgentAssessment } from '@az/core';
import { STANDARD_RULES, drop, newState, type Connect4Rules, type Connect4State } from './rules.js';

export interface ReferencePosition {
  /** Columns played from the empty board, 1-based, e.g. "4453". */
  readonly moves: string;
  /** The hard sets: the bucket of discs played it was drawn for, e.g. "8-14". */
  readonly bucket?: string;
  /** Per column: the mover's result after playing it (1 win, 0 draw, -1 loss), null when full. */
  readonly values: readonly (number | null)[];
}

export interface ReferenceSet {
  readonly description: string;
  readonly generator: string;
  readonly rules: Connect4Rules;
  readonly buckets: readonly (readonly [number, number])[];
  readonly positions: readonly ReferencePosition[];
  /** The hard sets: 'tune' (choose settings with it) or 'report' (quote results on it, never tune on it). */
  readonly purpose?: HardSetPurpose;
}

/** Which hard set: 'tune' to choose settings with, 'report' held out for the results people quote. */
export type HardSetPurpose = 'tune' | 'report';

/** The reference set shipped with the package (6 x 7 board). */
export function loadReferenceSet(path: string | URL = new URL('../data/positions.json', import.meta.url)): ReferenceSet {
  const set = JSON.parse(readFileSync(path, 'utf8')) as ReferenceSet;
  if (!Array.isArray(set.positions) || set.positions.length === 0) throw new Error(`connect4: no positions in the reference set at ${String(path)}`);
  for (const p of set.positions) {
    if (!/^[1-9]*$/.test(p.moves) || p.values.length !== set.rules.cols) throw new Error(`connect4: malformed position ${JSON.stringify(p)} in ${String(path)}`);
  }
  return set;
}

/** A hard set shipped with the package: data/hard-tune.json or data/hard-report.json. */
export function loadHardSet(purpose: HardSetPurpose, path: string | URL = new URL(`../data/hard-${purpose}.json`, import.meta.url)): ReferenceSet {
  const set = loadReferenceSet(path);
  // The file says what it is for; a swapped file would quietly put the held-out set in a tuning loop.
  if (set.purpose !== purpose) throw new Error(`connect4: ${String(path)} is the ${set.purpose ?? 'unlabelled'} set, not the ${purpose} set`);
  return set;
}

export function stateOf(rules: Connect4Rules, moves: string): Connect4State {
  const s = newState(rules);
  for (const ch of moves) drop(rules, s, Number(ch) - 1);
  return s;
}

export interface BucketScore {
  readonly discs: readonly [number, number];
  readonly positions: number;
  readonly optimal: number;
}

export interface ReferenceScore {
  readonly positions: number;
  /** Positions where the agent's move keeps the best value. */
  readonly optimal: number;
  /** Positions where some legal move loses value (the ones a wrong move is possible in), and the agent's optimal ones among them. */
  readonly decisive: number;
  readonly decisiveOptimal: number;
  /** Expected optimal share of a uniformly random move, for scale. */
  readonly randomOptimalRate: number;
  readonly buckets: readonly BucketScore[];
}

/** Asks `agent` for a move in every reference position (one batch) and scores the moves. */
export async function scoreAgent(agent: Agent<Connect4State>, set: ReferenceSet = loadReferenceSet()): Promise<ReferenceScore> {
  const states = set.positions.map((p) => stateOf(set.rules, p.moves));
  const chosen = await agent.act(states);
  let optimal = 0;
  let decisive = 0;
  let decisiveOptimal = 0;
  let randomSum = 0;
  const perBucket = set.buckets.map((discs) => ({ discs, positions: 0, optimal: 0 }));
  set.positions.forEach((p, i) => {
    const legal = p.values.filter((v): v is number => v !== null);
    const best = Math.max(...legal);
    const bestCount = legal.filter((v) => v === best).length;
    const v = p.values[chosen[i]];
    const ok = v === best;
    if (ok) optimal++;
    if (bestCount < legal.length) {
      decisive++;
      if (ok) decisiveOptimal++;
    }
    randomSum += bestCount / legal.length;
    const b = perBucket.find((x) => states[i].moves >= x.discs[0] && states[i].moves <= x.discs[1]);
    if (b) {
      b.positions++;
      if (ok) b.optimal++;
    }
  });
  return { positions: set.positions.length, optimal, decisive, decisiveOptimal, randomOptimalRate: randomSum / set.positions.length, buckets: perBucket };
}

const pct = (a: number, b: number): string => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;

/** Optional third argument of the plugin's `assessAgent`: `az assess` passes `{ purpose: 'report' }`. */
export interface Connect4AssessOptions {
  /** Which hard set to score beside the random-play one: 'tune' (the default: the trainer's assessment after every run) or 'report'. */
  readonly purpose?: HardSetPurpose;
}

const SET_LABEL: Record<HardSetPurpose, string> = {
  tune: 'hard tuning set (data/hard-tune.json)',
  report: 'hard report set (data/hard-report.json, held out: never tune on it)',
};

/**
 * The plugin's `assessAgent`: optimal-move share on the random-play set and on one hard set (standard
 * board only). The trainer, which reports after every run and so is what settings get chosen by, sees
 * the tuning set; `az assess`, where results are quoted from, asks for the report set.
 */
export async function assessConnect4Agent(rules: Connect4Rules, agent: Agent<Connect4State>, options: Connect4AssessOptions = {}): Promise<AgentAssessment> {
  if (rules.rows !== STANDARD_RULES.rows || rules.cols !== STANDARD_RULES.cols || rules.connect !== STANDARD_RULES.connect) {
    return { summary: `no reference positions for a ${rules.rows}x${rules.cols} connect-${rules.connect} board (only 6x7 connect-4)`, metrics: {} };
  }
  const purpose = options.purpose ?? 'tune';
  const r = await scoreAgent(agent);
  const h = await scoreAgent(agent, loadHardSet(purpose));
  const buckets = (x: ReferenceScore) => x.buckets.map((b) => `${b.discs[0]}-${b.discs[1]} discs ${pct(b.optimal, b.positions)}`).join(', ');
  // Metric names carry the set, so a tuning figure cannot pass for a report one in metrics or JSON.
  const hardKey = purpose === 'report' ? 'hardReport' : 'hardTune';
  return {
    summary:
      `random-play set (data/positions.json): optimal moves ${r.optimal}/${r.positions} (${pct(r.optimal, r.positions)}; ${pct(r.decisiveOptimal, r.decisive)} of the ${r.decisive} where a move can be wrong; random ${pct(r.randomOptimalRate, 1)}) [${buckets(r)}]; ` +
      `${SET_LABEL[purpose]}: optimal moves ${h.optimal}/${h.positions} (${pct(h.optimal, h.positions)}; random ${pct(h.randomOptimalRate, 1)}) [${buckets(h)}]`,
    metrics: {
      optimalMoves: r.optimal,
      positions: r.positions,
      optimalRate: r.optimal / r.positions,
      decisivePositions: r.decisive,
      decisiveOptimalRate: r.decisiveOptimal / Math.max(1, r.decisive),
      randomOptimalRate: r.randomOptimalRate,
      ...Object.fromEntries(r.buckets.map((b) => [`optimalRate${b.discs[0]}to${b.discs[1]}`, b.optimal / Math.max(1, b.positions)])),
      [`${hardKey}OptimalMoves`]: h.optimal,
      [`${hardKey}Positions`]: h.positions,
      [`${hardKey}OptimalRate`]: h.optimal / h.positions,
      [`${hardKey}RandomOptimalRate`]: h.randomOptimalRate,
      ...Object.fromEntries(h.buckets.map((b) => [`${hardKey}OptimalRate${b.discs[0]}to${b.discs[1]}`, b.optimal / Math.max(1, b.positions)])),
    },
  };
}

/**
 * Judging a Connect Four agent against the truth: the reference positions in data/positions.json (made
 * by scripts/make-positions.mjs with the exact solver) hold every move's game-theoretic value; an
 * agent's move is optimal when it keeps the best value the position offers.
 */
import { readFileSync } from 'node:fs';
import type { Agent, AgentAssessment } from '@az/core';
import { STANDARD_RULES, drop, newState, type Connect4Rules, type Connect4State } from './rules.js';

export interface ReferencePosition {
  /** Columns played from the empty board, 1-based, e.g. "4453". */
  readonly moves: string;
  /** Per column: the mover's result after playing it (1 win, 0 draw, -1 loss), null when full. */
  readonly values: readonly (number | null)[];
}

export interface ReferenceSet {
  readonly description: string;
  readonly generator: string;
  readonly rules: Connect4Rules;
  readonly buckets: readonly (readonly [number, number])[];
  readonly positions: readonly ReferencePosition[];
}

/** The reference set shipped with the package (6 x 7 board). */
export function loadReferenceSet(path: string | URL = new URL('../data/positions.json', import.meta.url)): ReferenceSet {
  const set = JSON.parse(readFileSync(path, 'utf8')) as ReferenceSet;
  if (!Array.isArray(set.positions) || set.positions.length === 0) throw new Error(`connect4: no positions in the reference set at ${String(path)}`);
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

/** The plugin's `assessAgent`: optimal-move share on the reference set (standard board only). */
export async function assessConnect4Agent(rules: Connect4Rules, agent: Agent<Connect4State>): Promise<AgentAssessment> {
  if (rules.rows !== STANDARD_RULES.rows || rules.cols !== STANDARD_RULES.cols || rules.connect !== STANDARD_RULES.connect) {
    return { summary: `no reference positions for a ${rules.rows}x${rules.cols} connect-${rules.connect} board (only 6x7 connect-4)`, metrics: {} };
  }
  const r = await scoreAgent(agent);
  const perBucket = r.buckets.map((b) => `${b.discs[0]}-${b.discs[1]} discs ${pct(b.optimal, b.positions)}`).join(', ');
  return {
    summary: `optimal moves ${r.optimal}/${r.positions} (${pct(r.optimal, r.positions)}; ${pct(r.decisiveOptimal, r.decisive)} of the ${r.decisive} where a move can be wrong; random ${pct(r.randomOptimalRate, 1)}) on the solved reference positions [${perBucket}]`,
    metrics: {
      optimalMoves: r.optimal,
      positions: r.positions,
      optimalRate: r.optimal / r.positions,
      decisivePositions: r.decisive,
      decisiveOptimalRate: r.decisiveOptimal / Math.max(1, r.decisive),
      randomOptimalRate: r.randomOptimalRate,
      ...Object.fromEntries(r.buckets.map((b) => [`optimalRate${b.discs[0]}to${b.discs[1]}`, b.optimal / Math.max(1, b.positions)])),
    },
  };
}

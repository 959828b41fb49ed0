/**
 * Playing a rating schedule (round robin, or a gauntlet of the first K players against everyone) and
 * presenting the Elo fit: shared by `az rate` and the trainer's `--rate-every`.
 */
import { readdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { playArena, sprt, type Agent, type ArenaGameRecord, type EloFit, type Game, type PairResult, type SprtResult } from '@az/core';

export interface LadderPlayer {
  readonly name: string;
  readonly agent: Agent<unknown>;
}

/** Pairs to play: every pair among the first `gauntlet` players and each of them against the rest. */
export function schedule(count: number, gauntlet = count): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < count; i++) for (let j = i + 1; j < count; j++) if (i < gauntlet) pairs.push([i, j]);
  return pairs;
}

export interface LadderOptions {
  readonly games: number;
  readonly seed: number;
  /** Random plies before each game, shared by the two seatings (`ArenaOptions.openingPlies`). */
  readonly openingPlies?: number;
  /** Stop a pair early once the SPRT decides (elo0, elo1 for the first player of the pair against the second). */
  readonly sprt?: readonly [number, number];
  readonly onGame?: (game: Game<unknown>, names: readonly string[], record: ArenaGameRecord, match: string) => void;
  /** Called after each pair with its result. */
  readonly onPair?: (result: PairResult, stopped: string | undefined, test?: SprtResult) => void;
  readonly onProgress?: (gamesDone: number) => void;
}

export interface LadderResult {
  readonly pairs: PairResult[];
  readonly aborted: number;
  /** Why play stopped early, if an agent failed for good. */
  readonly stopped?: string;
  readonly sprt?: SprtResult;
}

/** Plays the scheduled pairs (seats alternate within each pair) and returns the head-to-head records. */
export async function playLadder(game: Game<unknown>, players: readonly LadderPlayer[], pairs: readonly [number, number][], options: LadderOptions): Promise<LadderResult> {
  if (game.numPlayers !== 2) throw new Error(`rating needs a two-player game; ${game.traits.id} is played by ${game.numPlayers}`);
  const results: PairResult[] = [];
  let aborted = 0;
  let done = 0;
  let lastTest: SprtResult | undefined;
  for (const [p, [i, j]] of pairs.entries()) {
    const a = players[i];
    const b = players[j];
    const match = `${a.name} vs ${b.name}`;
    const names = [a.name, b.name];
    let wins = 0;
    let draws = 0;
    let losses = 0;
    let stopped: string | undefined;
    // With an SPRT, games go in small chunks so the test can stop the match; otherwise all at once (one batch).
    const chunk = options.sprt ? 4 : options.games;
    for (let played = 0; played < options.games && !stopped; played += chunk) {
      const n = Math.min(chunk, options.games - played);
      const r = await playArena(game, [a.agent, b.agent], n, {
        seed: options.seed * 7919 + p * 104_729 + played,
        rotationOffset: played,
        openingPlies: options.openingPlies,
        onGameEnd: (_s, _seats, record) => options.onGame?.(game, names, { ...record, index: record.index + played }, match),
        onGameAborted: (record) => options.onGame?.(game, names, { ...record, index: record.index + played }, match),
        onProgress: () => options.onProgress?.(++done),
      });
      wins += r.wins[0];
      draws += r.draws[0];
      losses += r.losses[0];
      aborted += r.aborted;
      stopped = r.stopped;
      if (options.sprt) {
        lastTest = sprt(wins, draws, losses, options.sprt[0], options.sprt[1]);
        if (lastTest.decision !== 'continue') break;
      }
    }
    const result = { a: a.name, b: b.name, wins, draws, losses };
    results.push(result);
    options.onPair?.(result, stopped, lastTest);
    if (stopped) return { pairs: results, aborted, stopped, sprt: lastTest };
  }
  return { pairs: results, aborted, sprt: lastTest };
}

/** The rating table: rank, name, Elo with its 95% interval, games, score, and the likelihood of superiority over the next. */
export function formatRatings(fit: EloFit): string {
  const width = Math.max(6, ...fit.players.map((p) => p.name.length));
  const lines = [`${'#'.padStart(3)}  ${'player'.padEnd(width)}  ${'Elo'.padStart(6)}  ${'95% CI'.padStart(16)}  ${'games'.padStart(6)}  ${'score'.padStart(6)}  LOS(next)`];
  fit.players.forEach((p, k) => {
    const ci = p.name === fit.anchor ? '(anchor)' : `[${Math.round(p.low)}, ${Math.round(p.high)}]`;
    const los = k + 1 < fit.players.length ? `${(fit.los[k][k + 1] * 100).toFixed(1)}%` : '';
    lines.push(`${String(k + 1).padStart(3)}  ${p.name.padEnd(width)}  ${Math.round(p.elo).toString().padStart(6)}  ${ci.padStart(16)}  ${String(p.games).padStart(6)}  ${(p.score * 100).toFixed(1).padStart(5)}%  ${los}`);
  });
  return lines.join('\n');
}

/**
 * Expands a positional of `az rate`: a run directory becomes its checkpoints, in name order (those in
 * `rated/` when it was trained with --rate-every, else those kept in `checkpoints/`), and so does any
 * directory whose subdirectories are checkpoints; anything else stays as given. Of several saves at one
 * iteration (`iter-000020` and `iter-000020-2`: the end of a multi-process run, Ctrl-C) only the last is
 * a player: they hold the same weights, and rating both would play a model against itself.
 */
export function expandPlayers(specs: readonly string[]): string[] {
  const out: string[] = [];
  for (const spec of specs) {
    if (!existsSync(spec) || !statSync(spec).isDirectory() || existsSync(join(spec, 'manifest.json'))) {
      out.push(spec);
      continue;
    }
    // A run's rated snapshots (--rate-every) are the evenly spaced series; else its kept checkpoints.
    const nested = ['rated', 'checkpoints'].map((d) => join(spec, d)).find((d) => existsSync(d) && statSync(d).isDirectory());
    const dir = nested ?? spec;
    const names = readdirSync(dir)
      .filter((e) => existsSync(join(dir, e, 'manifest.json')))
      .sort();
    // Keyed by iteration (or by name, for folders not named by iteration): the save with the highest sequence.
    const lastSaves = new Map<string, { name: string; sequence: number }>();
    for (const name of names) {
      const m = SAVE_NAME.exec(name);
      const key = m ? m[1] : name;
      const sequence = m?.[2] ? Number(m[2]) : 1;
      if ((lastSaves.get(key)?.sequence ?? 0) < sequence) lastSaves.set(key, { name, sequence });
    }
    if (lastSaves.size === 0) out.push(spec);
    else out.push(...[...lastSaves.values()].map((e) => join(dir, e.name)));
  }
  return out;
}

/** A checkpoint's folder name: `iter-NNNNNN` for an iteration's first save, `iter-NNNNNN-K` for its K-th. */
const SAVE_NAME = /^iter-(\d+)(?:-(\d+))?$/;

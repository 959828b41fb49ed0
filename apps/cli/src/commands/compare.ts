import { helpText, parseFlags, UsageError } from '../args.js';
import { checkRecordSeats, gameOfRecord, readGameRecords, replayRecord, type GameRecordLine } from '../records.js';
import { summarize, type MetricSummary } from '../summaries.js';

export const compareSpec = {
  name: 'compare',
  summary: 'Two arenas played on the same deals, game by game: how agent A did in the first against the second, with 95% intervals.',
  usage: 'az compare X.jsonl Y.jsonl [--json]',
  positionals: 2,
  flags: {
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  examples: [
    'az eval --game blob --a runs/new --b heuristic --games 2000 --seed 0 --games-out new.jsonl',
    'az eval --game blob --a runs/old --b heuristic --games 2000 --seed 0 --games-out old.jsonl',
    'az compare new.jsonl old.jsonl',
  ],
} as const;

/** A's outcome in one game of an arena: its own metrics and its lead over the mean of the other seats. */
export interface GameOutcome {
  readonly index: number;
  /** The seat A held. */
  readonly seat: number;
  readonly agent: string;
  /** `return` (A's return) and the game's `outcomeMetrics` for A's seat. */
  readonly own: Readonly<Record<string, number>>;
  /** The same metrics, A's minus the mean of the other seats (absent in one-player games). */
  readonly lead: Readonly<Record<string, number>>;
}

/** One arena's finished games, by deal (`gameSeed`). */
export interface ArenaOutcomes {
  readonly file: string;
  readonly game: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly games: Map<string, GameOutcome>;
  /** Abandoned games (not counted). */
  readonly aborted: number;
}

/** How one metric moved: A's mean in X and in Y over the paired games, and the per-game difference X - Y. */
export interface MetricComparison {
  readonly x: number;
  readonly y: number;
  readonly difference: MetricSummary;
}

export interface ArenaComparison {
  readonly game: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly a: { readonly x: string; readonly y: string };
  readonly games: { readonly paired: number; readonly x: number; readonly y: number; readonly onlyX: number; readonly onlyY: number; readonly abortedX: number; readonly abortedY: number };
  /** A's own metrics. */
  readonly metrics: Record<string, MetricComparison>;
  /** A's lead over the mean of the other seats. */
  readonly lead: Record<string, MetricComparison>;
}

/**
 * The seat A held in a record: from `seatAgent` (the lineup index of each seat, 0 for A), or, in
 * records written before it, the one seat whose player name no other seat has.
 */
function seatOfA(r: GameRecordLine, where: string): number {
  if (r.match !== undefined) throw new UsageError(`${where}: a game of match '${r.match}' (az rate); az compare takes the records of one az eval arena (--games-out)`);
  if (r.seatAgent) {
    const seats = r.seatAgent.flatMap((agent, seat) => (agent === 0 ? [seat] : []));
    if (seats.length !== 1) throw new UsageError(`${where}: agent A holds ${seats.length} seats; az compare needs A in exactly one`);
    return seats[0];
  }
  const unique = r.players.flatMap((name, seat) => (r.players.indexOf(name) === r.players.lastIndexOf(name) ? [seat] : []));
  if (unique.length !== 1 || r.players.length < 3) {
    throw new UsageError(`${where}: the record does not say which seat was A (written before records named it); play the arena again with az eval --games-out`);
  }
  return unique[0];
}

/** Replays every game of an `az eval --games-out` file and scores agent A in it. */
export function arenaOutcomes(file: string): ArenaOutcomes {
  const read = readGameRecords(file, 'compare');
  if (read.length === 0) throw new UsageError(`${file} holds no games`);
  const first = read[0].record;
  const { plugin: owner, game } = gameOfRecord(read[0]);
  const configText = JSON.stringify(first.config);
  const games = new Map<string, GameOutcome>();
  let aborted = 0;
  for (const line of read) {
    const r = line.record;
    const where = `${file}, game ${r.index}`;
    if (r.game !== first.game || JSON.stringify(r.config) !== configText) throw new UsageError(`${where}: another game or config than the file's first game (${first.game} ${configText}); one arena per file`);
    checkRecordSeats(game, line);
    if (games.has(r.gameSeed)) throw new UsageError(`${where}: deal ${r.gameSeed} is in the file twice; one arena per file`);
    const seat = seatOfA(r, where);
    if (r.aborted) {
      aborted++;
      continue;
    }
    let state: unknown;
    try {
      state = replayRecord(game, r);
    } catch (err) {
      throw new UsageError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const P = game.numPlayers;
    const returns = game.returns(state);
    const bySeat = Array.from({ length: P }, (_, s) => ({ return: returns[s], ...(owner.outcomeMetrics?.(game, state, s) ?? {}) }) as Record<string, number>);
    const own = bySeat[seat];
    const lead: Record<string, number> = {};
    if (P > 1) {
      for (const key of Object.keys(own)) {
        let others = 0;
        for (let s = 0; s < P; s++) if (s !== seat) others += bySeat[s][key] ?? 0;
        lead[key] = own[key] - others / (P - 1);
      }
    }
    games.set(r.gameSeed, { index: r.index, seat, agent: r.players[seat], own, lead });
  }
  return { file, game: first.game, config: first.config, games, aborted };
}

/**
 * Pairs two arenas deal by deal (the same `gameSeed`, so the same cards and chance events) and compares
 * agent A across them. Both must be the same game and config, and A must sit in the same seat on each
 * deal (the same arena seed and seat rotation); games on a deal only one arena played are left out.
 */
export function compareArenas(x: ArenaOutcomes, y: ArenaOutcomes): ArenaComparison {
  if (x.game !== y.game) throw new UsageError(`${x.file} is ${x.game} and ${y.file} is ${y.game}: compare arenas of one game`);
  const cx = JSON.stringify(x.config);
  const cy = JSON.stringify(y.config);
  if (cx !== cy) {
    const keys = [...new Set([...Object.keys(x.config), ...Object.keys(y.config)])];
    const differing = keys.filter((k) => JSON.stringify(x.config[k]) !== JSON.stringify(y.config[k])).map((k) => `${k}=${String(x.config[k])} against ${String(y.config[k])}`);
    throw new UsageError(`${x.file} and ${y.file} were played with other game settings (${differing.join(', ')}): their deals are not the same`);
  }
  const paired: [GameOutcome, GameOutcome][] = [];
  for (const [deal, gx] of x.games) {
    const gy = y.games.get(deal);
    if (!gy) continue;
    if (gx.seat !== gy.seat) throw new UsageError(`deal ${deal}: A held seat ${gx.seat} in ${x.file} but seat ${gy.seat} in ${y.file}; the two arenas rotate seats differently`);
    paired.push([gx, gy]);
  }
  if (paired.length === 0) throw new UsageError(`${x.file} and ${y.file} share no deal: play both with the same --seed (each game's deal is arena:<seed>:<index>)`);
  const compare = (pick: (g: GameOutcome) => Readonly<Record<string, number>>): Record<string, MetricComparison> => {
    const keys = Object.keys(pick(paired[0][0])).filter((k) => paired.every(([gx, gy]) => Number.isFinite(pick(gx)[k]) && Number.isFinite(pick(gy)[k])));
    return Object.fromEntries(
      keys.map((k) => {
        const xs = paired.map(([gx]) => pick(gx)[k]);
        const ys = paired.map(([, gy]) => pick(gy)[k]);
        const mean = (v: number[]): number => v.reduce((s, t) => s + t, 0) / v.length;
        return [k, { x: mean(xs), y: mean(ys), difference: summarize(xs.map((v, i) => v - ys[i]), false) }];
      }),
    );
  };
  const names = (o: ArenaOutcomes): string => [...new Set([...o.games.values()].map((g) => g.agent))].join(', ');
  return {
    game: x.game,
    config: x.config,
    a: { x: names(x), y: names(y) },
    games: { paired: paired.length, x: x.games.size, y: y.games.size, onlyX: x.games.size - paired.length, onlyY: y.games.size - paired.length, abortedX: x.aborted, abortedY: y.aborted },
    metrics: compare((g) => g.own),
    lead: compare((g) => g.lead),
  };
}

function signed(v: number, digits: number): string {
  return `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
}

export async function compareCommand(argv: readonly string[]): Promise<number> {
  const { flags, positionals } = parseFlags(compareSpec, argv);
  if (flags.help) {
    console.log(helpText(compareSpec));
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('az compare: give two files of game records (az eval --games-out FILE), e.g. az compare new.jsonl old.jsonl');
  const [fx, fy] = positionals;
  const x = arenaOutcomes(fx);
  const y = arenaOutcomes(fy);
  const result = compareArenas(x, y);
  if (flags.json) {
    console.log(JSON.stringify(result, null, 2));
    return 0;
  }
  const g = result.games;
  console.log(`${g.paired} deals of ${result.game} played in both (${fx}: ${g.x} games, ${fy}: ${g.y}; on a deal of one only: ${g.onlyX} and ${g.onlyY}; abandoned: ${g.abortedX} and ${g.abortedY}, not counted)`);
  console.log(`A in X (${fx}): ${result.a.x}`);
  console.log(`A in Y (${fy}): ${result.a.y}`);
  const table = (title: string, rows: Record<string, MetricComparison>): void => {
    if (Object.keys(rows).length === 0) return;
    console.log(title);
    const width = Math.max(...Object.keys(rows).map((k) => k.length));
    for (const [k, c] of Object.entries(rows)) {
      const d = c.difference;
      console.log(`    ${k.padEnd(width)}  X ${c.x.toFixed(3)}  Y ${c.y.toFixed(3)}  X - Y ${signed(d.mean, 3)} [${signed(d.low, 3)}, ${signed(d.high, 3)}] (95% CI, n=${d.n})`);
    }
  };
  table("A's own, per game:", result.metrics);
  table('A minus the mean of the other seats, per game:', result.lead);
  return 0;
}

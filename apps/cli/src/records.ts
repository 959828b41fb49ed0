/**
 * Game records of `az eval` and `az rate`: one JSON line per game (`--games-out`), replayable by
 * `az play --replay`, and PGN for chess (`--pgn`). Both files are appended game by game as the games end,
 * so a match that stops early keeps what was played.
 */
import { appendFileSync, createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { ConfigError, PluginError, Rng, resolveGame, resolveGameConfig, type ArenaGameRecord, type Game, type GamePlugin, type ResolvedConfig } from '@az/core';
import { formatPgn, outcomeOf, type ChessState } from '@az/game-chess';
import type { RecordSource } from '@az/trainer-multigpu';
import { UsageError } from './args.js';
import { checkOutputFile } from './output-paths.js';

/** One line of a `--games-out` file. */
export interface GameRecordLine {
  readonly game: string;
  readonly config: ResolvedConfig;
  /** Index of the game in its match. */
  readonly index: number;
  /** Seed of the game's random generator (`new Rng(gameSeed)` drives the deal and every chance event). */
  readonly gameSeed: string;
  /** The agent in each seat. */
  readonly players: readonly string[];
  /**
   * Which agent of the match's lineup sits in each seat (`az eval`: 0 is A, 1 is B), so that a record
   * says which seat was A even when both agents have the same name. Absent in records written before it.
   */
  readonly seatAgent?: readonly number[];
  readonly actions: readonly number[];
  /** The moves as the game writes them (SAN for chess). */
  readonly moves: readonly string[];
  /** Final returns by seat (absent for an abandoned game). */
  readonly returns?: readonly number[];
  /** How the game ended, when the game says (chess: checkmate, stalemate, ...). */
  readonly termination?: string;
  /** Why the game was abandoned. */
  readonly aborted?: string;
  readonly match?: string;
}

export interface RecordSinks {
  readonly gamesOut?: string;
  readonly pgn?: string;
}

/** Refuses, before any game is played, record files that cannot be written (see output-paths.ts). */
export function checkRecordSinks(command: string, sinks: RecordSinks): void {
  if (sinks.gamesOut) checkOutputFile(command, '--games-out', sinks.gamesOut);
  if (sinks.pgn) checkOutputFile(command, '--pgn', sinks.pgn);
}

/** Writes records of finished and abandoned games to the files asked for (created empty at the start). */
export class GameRecorder {
  constructor(
    private readonly sinks: RecordSinks,
    private readonly plugin: GamePlugin,
  ) {
    if (sinks.pgn && plugin.traits.id !== 'chess') throw new UsageError(`--pgn is for chess; use --games-out for ${plugin.traits.id}`);
    for (const file of [sinks.gamesOut, sinks.pgn]) if (file) writeFileSync(file, '');
  }

  get active(): boolean {
    return this.sinks.gamesOut !== undefined || this.sinks.pgn !== undefined;
  }

  /** Records one game of a match between `lineup` (names in lineup order). */
  record(game: Game<unknown>, lineup: readonly string[], r: ArenaGameRecord, match?: string): void {
    if (!this.active) return;
    const rng = new Rng(r.gameSeed);
    const start = game.initialState(rng);
    const state = game.clone(start);
    const moves: string[] = [];
    for (const a of r.actions) {
      moves.push(game.formatAction(state, a));
      game.applyAction(state, a, rng);
    }
    const players = Array.from(r.seatAgent, (i) => lineup[i]);
    const finished = !r.aborted && game.isTerminal(state);
    const outcome = game.traits.id === 'chess' ? outcomeOf(state as ChessState) : null;
    if (this.sinks.gamesOut) {
      const line: GameRecordLine = {
        game: game.traits.id,
        config: game.config,
        index: r.index,
        gameSeed: r.gameSeed,
        players,
        seatAgent: Array.from(r.seatAgent),
        actions: r.actions,
        moves,
        ...(finished ? { returns: Array.from(game.returns(state)) } : {}),
        ...(outcome ? { termination: outcome.termination } : {}),
        ...(r.aborted ? { aborted: r.aborted } : {}),
        ...(match ? { match } : {}),
      };
      appendFileSync(this.sinks.gamesOut, JSON.stringify(line) + '\n');
    }
    if (this.sinks.pgn) {
      const text = formatPgn({
        tags: { Event: match ?? 'az eval', Site: 'az', Date: new Date().toISOString().slice(0, 10).replace(/-/g, '.'), Round: String(r.index + 1), White: players[0], Black: players[1] },
        start: start as ChessState,
        actions: r.actions,
        ...(r.aborted ? { result: '*' as const, termination: `abandoned: ${r.aborted}` } : {}),
      });
      appendFileSync(this.sinks.pgn, text);
    }
  }
}

/** A parsed JSON value that is an object (not null, not an array): what a record or a ratings file must be. */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A record as read from a file, with where it was read. */
export interface ReadGameRecord {
  readonly record: GameRecordLine;
  /** `file:line`, for errors about the record. */
  readonly where: string;
}

/** Reads a `--games-out` file for `az <command>`; errors name the command, the file and the line. */
export function readGameRecords(file: string, command: string): ReadGameRecord[] {
  const az = `az ${command}:`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${az} cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return withoutBom(text)
    .split('\n')
    .map((l, i) => [l, i + 1] as const)
    .filter(([l]) => l.trim() !== '')
    .map(([l, n]) => {
      const parsed = parseRecordLine(l);
      if ('record' in parsed) return { record: parsed.record, where: `${file}:${n}` };
      if (parsed.kind === 'not JSON' && isJsonDocument(text)) {
        throw new UsageError(`${az} ${file} is not JSON lines of game records (it is one JSON value over several lines; az eval --games-out writes one game per line)`);
      }
      throw new UsageError(`${az} ${file}:${n}: ${parsed.problem}`);
    });
}

/** Why a line is not a record: the kinds a reader that skips bad lines counts separately. */
export type RecordLineFault = 'not JSON' | 'not a game record';

/**
 * One line of a `--games-out` file as a record, or what is wrong with it (the file's line number is the
 * caller's to add). A trailing CR (CRLF files) is JSON whitespace, so it needs no handling here.
 */
export function parseRecordLine(line: string): { readonly record: GameRecordLine } | { readonly kind: RecordLineFault; readonly problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { kind: 'not JSON', problem: 'not JSON' };
  }
  // typeof null is 'object': a null line or config would get past the checks and fail later as a TypeError.
  const r = (isJsonObject(parsed) ? parsed : {}) as Partial<GameRecordLine>;
  if (typeof r.game !== 'string' || typeof r.gameSeed !== 'string' || !Array.isArray(r.actions) || !isJsonObject(r.config)) {
    return { kind: 'not a game record', problem: 'not an az game record (needs game, config, gameSeed, actions)' };
  }
  const problem = recordFieldProblem(r as Record<string, unknown>);
  if (problem) return { kind: 'not a game record', problem };
  return { record: r as GameRecordLine };
}

/** `text` without a leading UTF-8 byte-order mark (editors on Windows write one). */
const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

const isNonNegativeInteger = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isArrayOf = (v: unknown, each: (x: unknown) => boolean): boolean => Array.isArray(v) && v.every(each);

/**
 * What is wrong with the fields of a record line, each against the type `GameRecordLine` declares
 * (`az eval --games-out` writes no other), or null. The game is not known yet: `recordSeatsProblem`
 * checks the counts against it.
 */
function recordFieldProblem(r: Readonly<Record<string, unknown>>): string | null {
  if (!isNonNegativeInteger(r.index)) return `'index' must be a non-negative integer (got ${JSON.stringify(r.index)})`;
  if (!isArrayOf(r.players, (p) => typeof p === 'string')) return `'players' must be a list of agent names, one per seat (got ${JSON.stringify(r.players)})`;
  if (r.seatAgent !== undefined && !isArrayOf(r.seatAgent, isNonNegativeInteger)) return `'seatAgent' must be a list of non-negative integers, one per seat (got ${JSON.stringify(r.seatAgent)})`;
  if (!isArrayOf(r.actions, isNonNegativeInteger)) return `'actions' must be a list of non-negative integers (got ${JSON.stringify(r.actions).slice(0, 80)})`;
  if (!isArrayOf(r.moves ?? [], (m) => typeof m === 'string')) return `'moves' must be a list of move texts`;
  if (r.returns !== undefined && !isArrayOf(r.returns, (v) => typeof v === 'number' && Number.isFinite(v))) return `'returns' must be a list of finite numbers, one per seat (got ${JSON.stringify(r.returns)})`;
  for (const key of ['termination', 'aborted', 'match'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'string') return `'${key}' must be a string (got ${JSON.stringify(r[key])})`;
  }
  return null;
}

/**
 * What is wrong with a record's seats for `game`, the game it was played under, or null: `players`,
 * `seatAgent` and `returns` hold one entry per seat, and a seat's agent is one of at most that many.
 * (Whether the returns are the game's own is the replay's check.)
 */
export function recordSeatsProblem(game: Game<unknown>, r: GameRecordLine): string | null {
  const seats = game.numPlayers;
  const perSeat: [string, readonly unknown[] | undefined][] = [
    ['players', r.players],
    ['seatAgent', r.seatAgent],
    ['returns', r.returns],
  ];
  for (const [name, list] of perSeat) {
    if (list !== undefined && list.length !== seats) return `'${name}' has ${list.length} entries for the game's ${seats} seats`;
  }
  const outside = r.seatAgent?.find((agent) => agent >= seats);
  if (outside !== undefined) return `'seatAgent' names agent ${outside} of a lineup of at most ${seats} (one per seat)`;
  return null;
}

/** `recordSeatsProblem` as an error led by where the record was read (`file:line`). */
export function checkRecordSeats(game: Game<unknown>, { record, where }: ReadGameRecord): void {
  const problem = recordSeatsProblem(game, record);
  if (problem) throw new UsageError(`${where}: ${problem}`);
}

/** Whether the whole text is one JSON value (a pretty-printed file, not JSON lines). */
function isJsonDocument(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The game a record was played under, and its plugin. A game that is not installed or a config the game
 * refuses is the same error, its message led by where the record was read (`file:line`).
 */
export function gameOfRecord({ record, where }: ReadGameRecord): { plugin: GamePlugin; game: Game<unknown> } {
  try {
    const plugin = resolveGame(record.game);
    return { plugin, game: plugin.create(resolveGameConfig(plugin, record.config)) };
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(err.field, `${where}: ${err.message}`);
    if (err instanceof PluginError) throw new PluginError(err.pluginId, `${where}: ${err.message}`);
    throw err;
  }
}

/**
 * Plays a record's actions from its seed and returns the final state; `onMove` sees each position before
 * its move. Throws, naming the game and the move, when the record does not replay: a move that is not
 * legal, moves after the end, or (for a finished game) an unfinished game or other returns than recorded.
 */
export function replayRecord(game: Game<unknown>, r: GameRecordLine, onMove?: (state: unknown, action: number) => void): unknown {
  const rng = new Rng(r.gameSeed);
  const state = game.initialState(rng);
  const mask = new Uint8Array(game.masker.actionSize);
  for (const [ply, action] of r.actions.entries()) {
    if (game.isTerminal(state)) throw new Error(`game ${r.index}: the game ended before move ${ply + 1} of ${r.actions.length}; the record does not replay`);
    game.masker.fillMask(state, mask, 0);
    if (!mask[action]) throw new Error(`game ${r.index}: move ${ply + 1} (action ${action}) is not legal in the replayed position; the record does not replay`);
    onMove?.(state, action);
    game.applyAction(state, action, rng);
  }
  if (r.aborted) return state;
  if (!game.isTerminal(state)) throw new Error(`game ${r.index}: the recorded moves do not finish the game; the record does not replay`);
  const returns = Array.from(game.returns(state));
  if (r.returns && returns.some((v, i) => Math.abs(v - (r.returns?.[i] ?? NaN)) > 1e-6)) {
    throw new Error(`game ${r.index}: replayed returns ${returns.join(', ')} differ from the recorded ${r.returns.join(', ')}`);
  }
  return state;
}

/** A line longer than this is not a record (a long chess game's line is a few kilobytes): it is skipped, never held whole. */
export const MAX_RECORD_LINE_CHARS = 1 << 24;

/** A line of a text stream, numbered from 1; `tooLong` when only its start was kept. */
export interface TextLine {
  readonly text: string;
  readonly n: number;
  readonly tooLong?: boolean;
}

/**
 * The lines of a text stream, one at a time: what is held is one chunk and the line being read, never
 * the stream, and a line past `maxChars` is cut off (its start kept, the rest dropped as it arrives).
 * A UTF-8 byte-order mark at the start and the CR of CRLF line endings are removed.
 */
export async function* textLines(chunks: AsyncIterable<string>, maxChars = MAX_RECORD_LINE_CHARS): AsyncGenerator<TextLine> {
  let partial = '';
  let tooLong = false;
  let n = 0;
  const line = (text: string): TextLine => {
    n++;
    const clean = (n === 1 ? withoutBom(text) : text).replace(/\r$/, '');
    return tooLong ? { text: clean, n, tooLong } : { text: clean, n };
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, nl);
      const text = tooLong ? partial : partial + piece;
      if (text.length > maxChars) tooLong = true;
      yield line(tooLong ? text.slice(0, maxChars) : text);
      partial = '';
      tooLong = false;
      start = nl + 1;
    }
    if (!tooLong) partial += chunk.slice(start);
    if (partial.length > maxChars) {
      tooLong = true;
      partial = partial.slice(0, maxChars);
    }
  }
  if (partial !== '' || tooLong) yield line(partial);
}

/** A line of a records file, read: the record, or why it is not one. */
export type ReadRecordLine = { readonly where: string } & ({ readonly record: GameRecordLine } | { readonly kind: RecordLineFault | 'line too long'; readonly problem: string });

/**
 * The records of `files`, in order, one line at a time (memory stays bounded whatever the files'
 * sizes). Lines that are not records come back as such, with `file:line`: the caller skips or refuses
 * them. A file that cannot be opened is an error.
 */
export async function* streamRecordLines(files: readonly string[]): AsyncGenerator<ReadRecordLine> {
  for (const file of files) {
    const stream = createReadStream(file, { encoding: 'utf8' });
    for await (const { text, n, tooLong } of textLines(stream as AsyncIterable<string>)) {
      const where = `${file}:${n}`;
      if (tooLong) yield { where, kind: 'line too long', problem: `a line of more than ${MAX_RECORD_LINE_CHARS} characters is not a game record` };
      else if (text.trim() !== '') yield { where, ...parseRecordLine(text) };
    }
  }
}

/**
 * Why a well-formed record is not one of `game`'s (another game, another config, seats that do not fit,
 * an abandoned game with no result), as [kind, details], or null.
 */
export function recordMismatch(game: Game<unknown>, r: GameRecordLine): [string, string] | null {
  if (r.game !== game.traits.id) return ['another game', `a record of ${r.game}, not ${game.traits.id}`];
  const keys = new Set([...Object.keys(game.config), ...Object.keys(r.config)]);
  for (const key of keys) {
    if (JSON.stringify(r.config[key]) !== JSON.stringify(game.config[key])) {
      return ['another config', `played with ${key}=${JSON.stringify(r.config[key]) ?? '(unset)'}; the run has ${key}=${JSON.stringify(game.config[key]) ?? '(unset)'}`];
    }
  }
  const seats = recordSeatsProblem(game, r);
  if (seats) return ['not a game record', seats];
  if (r.aborted !== undefined || r.returns === undefined) return ['abandoned (no result)', `game ${r.index} was abandoned${r.aborted ? ` (${r.aborted})` : ''}: no result to learn from`];
  return null;
}

/** `az train --records FILE...`: the files' records of the run's game, for the trainer to replay and learn from. */
export function recordFiles(files: readonly string[]): RecordSource {
  return {
    describe: files.join(', '),
    async *games(game, skip) {
      for await (const line of streamRecordLines(files)) {
        if (!('record' in line)) {
          skip(line.where, line.kind, line.problem);
          continue;
        }
        const { record, where } = line;
        const mismatch = recordMismatch(game, record);
        if (mismatch) {
          skip(where, mismatch[0], mismatch[1]);
          continue;
        }
        yield {
          where,
          replay: (onMove) => game.returns(replayRecord(game, record, onMove)),
        };
      }
    },
  };
}

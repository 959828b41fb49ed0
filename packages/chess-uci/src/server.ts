/**
 * The engine side of UCI: reads GUI commands line by line and drives a `UciSearcher` (the CLI's is a
 * trained model with MCTS). Supports `uci`, `isready`, `ucinewgame`, `setoption`, `position startpos|fen
 * ... [moves ...]`, `go` (nodes, movetime, wtime/btime/winc/binc/movestogo, depth, infinite), `stop`,
 * `quit`, and ignores `debug`, `register` and `ponderhit` as UCI asks of unknown commands.
 */
import { Rng, type Game } from '@az/core';
import { stateFromFen, type ChessState } from '@az/game-chess';
import { actionOfUci } from './moves.js';

export interface UciOptionDeclaration {
  readonly name: string;
  readonly type: 'spin' | 'check' | 'string' | 'button';
  readonly default: string | number | boolean;
  readonly min?: number;
  readonly max?: number;
}

/** What a `go` allows; the searcher stops at whichever comes first (or at `stop` for infinite). */
export interface UciBudget {
  /** Simulations (UCI nodes): exactly this many. */
  readonly nodes?: number;
  /**
   * Search depth to reach, as Leela Chess Zero reads `go depth` for MCTS: the search stops once the mean
   * depth of its simulations' leaves (plies below the root, what `UciInfo.depth` reports) is at least this.
   */
  readonly depth?: number;
  /** Wall-clock milliseconds for this move. */
  readonly timeMs?: number;
  readonly infinite: boolean;
}

export interface UciInfo {
  /** The mean depth of the search's leaves (plies below the root), rounded down, at least 1. */
  readonly depth: number;
  /** The deepest leaf the search reached (UCI `seldepth`). */
  readonly seldepth?: number;
  readonly nodes: number;
  readonly nps: number;
  /** Centipawns from the side to move's point of view. */
  readonly scoreCp: number;
  readonly pv: readonly string[];
  readonly timeMs: number;
}

export interface UciSearcher {
  readonly name: string;
  readonly author: string;
  readonly options: readonly UciOptionDeclaration[];
  /** Applies an option; returns an error message for a bad name or value. */
  setOption(name: string, value: string): string | null;
  newGame(): void;
  /**
   * Searches `state` within `budget`, calling `onInfo` now and then, checking `stopped()` between steps;
   * returns the move in UCI notation.
   */
  search(state: ChessState, budget: UciBudget, stopped: () => boolean, onInfo: (info: UciInfo) => void): Promise<string>;
}

/** Chess has no chance moves; `applyAction` still takes a generator. */
const noChance = new Rng(0);
const STARTPOS = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
/** Move time kept back for the answer to travel, per move (ms). */
const MOVE_OVERHEAD_MS = 30;

/** Converts a value in [-1, 1] (side to move) to centipawns, as Leela Chess Zero does. */
export function valueToCentipawns(value: number): number {
  const v = Math.max(-0.999, Math.min(0.999, value));
  return Math.round(111.714640912 * Math.tan(1.5620688421 * v));
}

/** The move time for a `go` with a clock: a slice of the remaining time plus most of the increment. */
export function timeForMove(remainingMs: number, incrementMs: number, movesToGo: number | undefined): number {
  const slice = remainingMs / Math.max(1, Math.min(movesToGo ?? 30, 30)) + 0.8 * incrementMs;
  return Math.max(10, Math.min(slice, remainingMs / 2) - MOVE_OVERHEAD_MS);
}

export interface UciServerOptions {
  /** The chess game the searcher's network was trained for (its `history` decides the encoder). */
  readonly game: Game<ChessState>;
  readonly write: (line: string) => void;
}

/**
 * Runs the protocol until `quit` or the end of `lines`. A bad command gets an `info string` saying why
 * (UCI has no error reply) and the engine carries on.
 */
export async function runUciServer(lines: AsyncIterable<string>, searcher: UciSearcher, options: UciServerOptions): Promise<void> {
  const { write, game } = options;
  const maxPlies = 100_000;
  let state: ChessState = stateFromFen(STARTPOS, { maxPlies });
  let searching: Promise<void> | null = null;
  let stopRequested = false;

  const setPosition = (args: string[]): void => {
    let next: ChessState;
    let rest: string[];
    if (args[0] === 'startpos') {
      next = stateFromFen(STARTPOS, { maxPlies });
      rest = args.slice(1);
    } else if (args[0] === 'fen') {
      const movesAt = args.indexOf('moves');
      const fen = args.slice(1, movesAt < 0 ? undefined : movesAt).join(' ');
      try {
        next = stateFromFen(fen, { maxPlies });
      } catch (err) {
        write(`info string bad position: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      rest = movesAt < 0 ? [] : args.slice(movesAt);
    } else {
      write(`info string bad position command: expected 'startpos' or 'fen', got '${args[0] ?? ''}'`);
      return;
    }
    if (rest[0] === 'moves') {
      for (const move of rest.slice(1)) {
        const action = game.isTerminal(next) ? -1 : actionOfUci(next, move);
        if (action < 0) {
          write(`info string illegal move '${move}' in the position command; position ignored`);
          return;
        }
        game.applyAction(next, action, noChance);
      }
    }
    state = next;
  };

  const go = async (args: string[]): Promise<void> => {
    const num = (key: string): number | undefined => {
      const i = args.indexOf(key);
      const n = i >= 0 ? Number(args[i + 1]) : NaN;
      return Number.isFinite(n) ? n : undefined;
    };
    const infinite = args.includes('infinite');
    const white = state.turn === 'w';
    const clock = num(white ? 'wtime' : 'btime');
    let timeMs = num('movetime');
    if (timeMs !== undefined) timeMs = Math.max(10, timeMs - MOVE_OVERHEAD_MS);
    else if (clock !== undefined) timeMs = timeForMove(clock, num(white ? 'winc' : 'binc') ?? 0, num('movestogo'));
    // At least one simulation: there must be a searched move to play.
    const nodesGiven = num('nodes');
    const nodes = nodesGiven === undefined ? undefined : Math.max(1, Math.floor(nodesGiven));
    const depth = num('depth');
    stopRequested = false;
    let best: string;
    if (game.isTerminal(state)) best = '0000';
    else {
      best = await searcher.search(state, { nodes, depth, timeMs: infinite ? undefined : timeMs, infinite }, () => stopRequested, (info) => {
        write(`info depth ${info.depth}${info.seldepth !== undefined ? ` seldepth ${info.seldepth}` : ''} nodes ${info.nodes} nps ${Math.round(info.nps)} time ${Math.round(info.timeMs)} score cp ${info.scoreCp}${info.pv.length ? ` pv ${info.pv.join(' ')}` : ''}`);
      });
    }
    write(`bestmove ${best}`);
  };

  for await (const raw of lines) {
    const words = raw.trim().split(/\s+/).filter((w) => w !== '');
    const [command, ...args] = words;
    if (command === undefined) continue;
    // While a search runs only these are answered; the rest wait for it to end.
    if (command === 'stop') {
      stopRequested = true;
      continue;
    }
    if (command === 'isready') {
      write('readyok');
      continue;
    }
    if (command === 'quit') {
      stopRequested = true;
      break;
    }
    if (searching) {
      await searching;
      searching = null;
    }
    switch (command) {
      case 'uci':
        write(`id name ${searcher.name}`);
        write(`id author ${searcher.author}`);
        for (const o of searcher.options) {
          const range = o.type === 'spin' ? ` min ${o.min ?? 0} max ${o.max ?? 0}` : '';
          write(`option name ${o.name} type ${o.type}${o.type === 'button' ? '' : ` default ${String(o.default)}`}${range}`);
        }
        write('uciok');
        break;
      case 'ucinewgame':
        searcher.newGame();
        break;
      case 'setoption': {
        const nameAt = args.indexOf('name');
        const valueAt = args.indexOf('value');
        const name = args.slice(nameAt + 1, valueAt < 0 ? undefined : valueAt).join(' ');
        const value = valueAt < 0 ? '' : args.slice(valueAt + 1).join(' ');
        const problem = nameAt < 0 ? 'setoption needs a name' : searcher.setOption(name, value);
        if (problem) write(`info string ${problem}`);
        break;
      }
      case 'position':
        setPosition(args);
        break;
      case 'go':
        searching = go(args).catch((err: unknown) => {
          write(`info string search failed: ${err instanceof Error ? err.message : String(err)}`);
          write('bestmove 0000');
        });
        break;
      case 'debug':
      case 'register':
      case 'ponderhit':
        break;
      default:
        write(`info string unknown command '${command}'`);
    }
  }
  if (searching) await searching;
}

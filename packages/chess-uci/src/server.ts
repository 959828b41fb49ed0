/**
 * The engine side of UCI: reads GUI commands line by line and drives a `UciSearcher` (the CLI's is a
 * trained model with MCTS). Supports `uci`, `isready`, `ucinewgame`, `setoption`, `position startpos|fen
 * ... [moves ...]`, `go` (searchmoves, ponder, wtime/btime/winc/binc/movestogo, depth, nodes, movetime,
 * infinite), `stop`, `ponderhit` and `quit`, and ignores `debug` and `register`.
 *
 * The input is read on while a search runs: `stop`, `ponderhit`, `isready` and `quit` act at once; any
 * other command read during a search waits, in order, until the search has printed its `bestmove`.
 */
import { Rng, type Game } from '@az/core';
import { legalActionsOf, legalMoveOf, outcomeOf, stateFromFen, toFen, type ChessState, type Termination } from '@az/game-chess';
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
  /** UCI `searchmoves`: the only root moves (actions, all legal) the search may consider; absent: every legal move. */
  readonly searchMoves?: readonly number[];
}

/** What the server tells a search under way, read between its steps. */
export interface UciSearchControl {
  /** True once the search must end and answer: `stop`, `quit` or the end of input. */
  stopped(): boolean;
  /**
   * True during `go ponder` until `ponderhit`: meanwhile the budget's limits do not apply (the search runs
   * on as if infinite); once false they do, the move time counting from that moment.
   */
  pondering(): boolean;
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
   * Searches `state` (never over under the game's rules) within `budget`, calling `onInfo` now and then
   * (last with a line starting with the move returned), checking `control` between steps; returns the
   * move in UCI notation.
   */
  search(state: ChessState, budget: UciBudget, control: UciSearchControl, onInfo: (info: UciInfo) => void): Promise<string>;
}

const STARTPOS = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
/** No game-length cap: the GUI decides when a game ends. */
const MAX_PLIES = 100_000;
/** Move time kept back for the answer to travel, per move (ms). */
const MOVE_OVERHEAD_MS = 30;
/** The `go` parameters; `searchmoves` takes every word up to the next of them. */
const GO_WORDS = new Set(['searchmoves', 'ponder', 'wtime', 'btime', 'winc', 'binc', 'movestogo', 'depth', 'nodes', 'mate', 'movetime', 'infinite']);
/**
 * Draws the az rules end a game with but FIDE leaves to a claim (the fifty-move rule, threefold
 * repetition): a GUI still expects a move there, so the position is searched as if they had not happened.
 */
const CLAIMABLE_DRAWS: ReadonlySet<Termination> = new Set<Termination>(['fifty-move rule', 'threefold repetition']);
/** The half-move clock a searched position gets at most, so that the fifty-move rule does not end it at the root. */
const LAST_CLOCK_BEFORE_FIFTY_MOVES = 99;

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

/** A `go` command, read. */
interface GoRequest {
  readonly numbers: ReadonlyMap<string, number>;
  readonly searchMoves: readonly string[] | undefined;
  readonly infinite: boolean;
  readonly ponder: boolean;
  /** Words that are not `go` parameters (or numbers that are not numbers). */
  readonly unknown: readonly string[];
}

function parseGo(args: readonly string[]): GoRequest {
  const numbers = new Map<string, number>();
  const unknown: string[] = [];
  let searchMoves: string[] | undefined;
  let infinite = false;
  let ponder = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === 'infinite') infinite = true;
    else if (word === 'ponder') ponder = true;
    else if (word === 'searchmoves') {
      searchMoves = [];
      while (i + 1 < args.length && !GO_WORDS.has(args[i + 1])) searchMoves.push(args[++i]);
    } else if (GO_WORDS.has(word)) {
      const n = Number(args[i + 1]);
      if (i + 1 < args.length && Number.isFinite(n)) numbers.set(word, n);
      else unknown.push(`${word} ${args[i + 1] ?? ''}`.trim());
      i++;
    } else unknown.push(word);
  }
  return { numbers, searchMoves, infinite, ponder, unknown };
}

/**
 * The state to search for a position the GUI wants a move in: the position itself, or, when the az rules
 * call it over by a draw FIDE leaves to a claim, the same position with the half-move clock at most 99
 * and no repetition history. Null when the game is over for good (checkmate, stalemate, dead position).
 */
function playableState(state: ChessState, game: Game<ChessState>): ChessState | null {
  if (!game.isTerminal(state)) return state;
  const termination = outcomeOf(state)?.termination;
  if (termination === undefined || !CLAIMABLE_DRAWS.has(termination)) return null;
  const fields = toFen(state).split(' ');
  fields[4] = String(Math.min(Number(fields[4]), LAST_CLOCK_BEFORE_FIFTY_MOVES));
  const fresh = stateFromFen(fields.join(' '), { maxPlies: MAX_PLIES });
  return game.isTerminal(fresh) ? null : fresh;
}

/** A `go` under way. */
interface RunningSearch {
  stop: boolean;
  pondering: boolean;
  readonly infinite: boolean;
  /** Called when `stop`, `ponderhit` or `quit` arrives (an answer waiting for them may go on). */
  wake: () => void;
}

/**
 * Runs the protocol until `quit` or the end of `lines` (which counts as `quit`, as in Stockfish: a
 * search under way is stopped and answers). A bad command gets an `info string` saying why (UCI has no
 * error reply) and the engine carries on.
 */
export async function runUciServer(lines: AsyncIterable<string>, searcher: UciSearcher, options: UciServerOptions): Promise<void> {
  const { write, game } = options;
  const noChance = new Rng(0);
  /** Null after a bad `position` command: a `go` then answers `bestmove 0000` rather than move in an older position. */
  let state: ChessState | null = stateFromFen(STARTPOS, { maxPlies: MAX_PLIES });
  let positionProblem = '';
  let search: RunningSearch | null = null;
  let searchDone: Promise<void> = Promise.resolve();
  /** Commands read during a search, carried out in order once it has answered. */
  const waiting: string[][] = [];
  let quitting = false;

  const positionFailed = (problem: string): void => {
    state = null;
    positionProblem = problem;
    write(`info string ${problem}; no position until a valid 'position' command`);
  };

  const setPosition = (args: readonly string[]): void => {
    let next: ChessState;
    let rest: readonly string[];
    if (args[0] === 'startpos') {
      next = stateFromFen(STARTPOS, { maxPlies: MAX_PLIES });
      rest = args.slice(1);
    } else if (args[0] === 'fen') {
      const movesAt = args.indexOf('moves');
      const fen = args.slice(1, movesAt < 0 ? undefined : movesAt).join(' ');
      try {
        next = stateFromFen(fen, { maxPlies: MAX_PLIES });
      } catch (err) {
        positionFailed(`bad position: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      rest = movesAt < 0 ? [] : args.slice(movesAt);
    } else {
      positionFailed(`bad position command: expected 'startpos' or 'fen', got '${args[0] ?? ''}'`);
      return;
    }
    if (rest.length > 0 && rest[0] !== 'moves') {
      positionFailed(`bad position command: expected 'moves' after the position, got '${rest[0]}'`);
      return;
    }
    for (const move of rest.slice(1)) {
      const playable = playableState(next, game);
      if (playable === null) {
        positionFailed(`move '${move}' in the position command comes after the end of the game (${outcomeOf(next)?.termination ?? 'game over'})`);
        return;
      }
      const action = actionOfUci(playable, move);
      if (action < 0) {
        positionFailed(`illegal move '${move}' in the position command (position ${toFen(playable)})`);
        return;
      }
      next = playable;
      game.applyAction(next, action, noChance);
    }
    state = next;
  };

  /** Resolves once `run` may answer: at once, or for `go infinite` / `go ponder` at `stop` (or `ponderhit`). */
  const answerAllowed = (run: RunningSearch): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (run.stop || (!run.infinite && !run.pondering)) resolve();
      };
      run.wake = check;
      check();
    });

  const answerGo = async (request: GoRequest, run: RunningSearch): Promise<void> => {
    if (request.unknown.length > 0) write(`info string go: ignored '${request.unknown.join(' ')}' (not a go parameter)`);
    if (request.numbers.has('mate')) write('info string go mate is not supported: searching with the other limits given');
    if (state === null) {
      write(`info string no valid position (${positionProblem}): send 'position startpos' or 'position fen ...'`);
      await answerAllowed(run);
      write('bestmove 0000');
      return;
    }
    const legal = legalActionsOf(state);
    const root = playableState(state, game);
    if (root === null) {
      // Checkmate or stalemate: no move. A dead position (insufficient material): any move keeps the draw.
      await answerAllowed(run);
      const move = legal.length === 0 ? '0000' : (legalMoveOf(state, legal[0])?.uci ?? '0000');
      if (legal.length > 0) write(`info string the game is over (${outcomeOf(state)?.termination ?? 'game over'}); any move keeps the result`);
      write(`bestmove ${move}`);
      return;
    }
    const searchMoves = request.searchMoves === undefined ? undefined : searchMoveActions(root, request.searchMoves);
    const get = (key: string): number | undefined => request.numbers.get(key);
    const white = root.turn === 'w';
    const clock = get(white ? 'wtime' : 'btime');
    let timeMs = get('movetime');
    if (timeMs !== undefined) timeMs = Math.max(10, timeMs - MOVE_OVERHEAD_MS);
    else if (clock !== undefined) timeMs = timeForMove(clock, get(white ? 'winc' : 'binc') ?? 0, get('movestogo'));
    // At least one simulation: there must be a searched move to play.
    const nodesGiven = get('nodes');
    const nodes = nodesGiven === undefined ? undefined : Math.max(1, Math.floor(nodesGiven));
    const budget: UciBudget = { nodes, depth: get('depth'), timeMs: request.infinite ? undefined : timeMs, infinite: request.infinite, searchMoves };
    let lastPv: readonly string[] = [];
    const best = await searcher.search(root, budget, { stopped: () => run.stop, pondering: () => run.pondering }, (info) => {
      lastPv = info.pv;
      write(`info depth ${info.depth}${info.seldepth !== undefined ? ` seldepth ${info.seldepth}` : ''} nodes ${info.nodes} nps ${Math.round(info.nps)} time ${Math.round(info.timeMs)} score cp ${info.scoreCp}${info.pv.length ? ` pv ${info.pv.join(' ')}` : ''}`);
    });
    // The searcher may end on its own (a proven result); an infinite search still answers only at `stop`.
    await answerAllowed(run);
    // The reply the line expects, for a GUI that ponders on it.
    const ponderMove = lastPv[0] === best && lastPv.length > 1 ? ` ponder ${lastPv[1]}` : '';
    write(`bestmove ${best}${ponderMove}`);
  };

  /** The actions of `moves` in `root`; names the illegal ones. Undefined (every move) if none is legal. */
  const searchMoveActions = (root: ChessState, moves: readonly string[]): readonly number[] | undefined => {
    const actions: number[] = [];
    for (const move of moves) {
      const action = actionOfUci(root, move);
      if (action < 0) write(`info string searchmoves: '${move}' is not a legal move here; left out`);
      else if (!actions.includes(action)) actions.push(action);
    }
    if (actions.length > 0) return actions;
    write('info string searchmoves names no legal move; searching every move');
    return undefined;
  };

  const startGo = (args: readonly string[]): void => {
    const request = parseGo(args);
    const run: RunningSearch = { stop: false, pondering: request.ponder, infinite: request.infinite, wake: () => undefined };
    search = run;
    searchDone = answerGo(request, run)
      .catch((err: unknown) => {
        write(`info string search failed: ${err instanceof Error ? err.message : String(err)}`);
        write('bestmove 0000');
      })
      .finally(() => {
        search = null;
        runWaiting();
      });
  };

  const setOption = (args: readonly string[]): void => {
    const nameAt = args.indexOf('name');
    const valueAt = args.indexOf('value');
    const name = args.slice(nameAt + 1, valueAt < 0 ? undefined : valueAt).join(' ');
    const value = valueAt < 0 ? '' : args.slice(valueAt + 1).join(' ');
    if (nameAt < 0) write('info string setoption needs a name');
    else if (name.toLowerCase() === 'ponder') {
      // The GUI saying whether it will ponder: nothing to change (`go ponder` works either way).
      if (value !== 'true' && value !== 'false') write(`info string option Ponder must be true or false (got '${value}')`);
    } else {
      const problem = searcher.setOption(name, value);
      if (problem) write(`info string ${problem}`);
    }
  };

  /** `stop` or `ponderhit` for the search under way, if any. */
  const signalSearch = (command: 'stop' | 'ponderhit'): void => {
    if (search === null) return;
    if (command === 'stop') search.stop = true;
    search.pondering = false;
    search.wake();
  };

  /** `stop`, `ponderhit`, `isready` and `quit` as read: acted on whatever runs. Returns false for other commands. */
  const actAtOnce = (command: string): boolean => {
    switch (command) {
      case 'isready':
        write('readyok');
        return true;
      case 'stop':
      case 'ponderhit':
        // A `go` still waiting behind the search gets it too, in order.
        if (waiting.some((w) => w[0] === 'go')) waiting.push([command]);
        signalSearch(command);
        return true;
      case 'quit':
        quitting = true;
        waiting.length = 0;
        signalSearch('stop');
        return true;
      default:
        return false;
    }
  };

  const carryOut = (command: string, args: readonly string[]): void => {
    switch (command) {
      case 'uci':
        write(`id name ${searcher.name}`);
        write(`id author ${searcher.author}`);
        // Ponder: GUIs send `go ponder` only to engines that list it.
        for (const o of [...searcher.options, { name: 'Ponder', type: 'check', default: false } satisfies UciOptionDeclaration]) {
          const range = o.type === 'spin' ? ` min ${o.min ?? 0} max ${o.max ?? 0}` : '';
          write(`option name ${o.name} type ${o.type}${o.type === 'button' ? '' : ` default ${String(o.default)}`}${range}`);
        }
        write('uciok');
        break;
      case 'ucinewgame':
        searcher.newGame();
        break;
      case 'setoption':
        setOption(args);
        break;
      case 'position':
        setPosition(args);
        break;
      case 'go':
        startGo(args);
        break;
      case 'debug':
      case 'register':
        break;
      default:
        write(`info string unknown command '${command}'`);
    }
  };

  /** Carries out the commands that waited for a search, up to the next `go` and the signals right behind it. */
  const runWaiting = (): void => {
    while (!quitting && waiting.length > 0) {
      const [command, ...args] = waiting[0];
      if (command === 'stop' || command === 'ponderhit') signalSearch(command);
      else if (search !== null) break;
      else carryOut(command, args);
      waiting.shift();
    }
  };

  for await (const raw of lines) {
    const words = raw.trim().split(/\s+/).filter((w) => w !== '');
    const [command, ...args] = words;
    if (command === undefined) continue;
    if (actAtOnce(command)) {
      if (quitting) break;
      continue;
    }
    if (search !== null || waiting.length > 0) waiting.push(words);
    else carryOut(command, args);
  }
  // The end of input is a quit: nobody is left to send `stop`.
  actAtOnce('quit');
  await searchDone;
}

/**
 * A UCI engine as an az agent for chess: `uci:<command>[,key=value...]`. Keys `depth`, `nodes`,
 * `movetime` (ms) limit each move and `timeout` (ms) is how long past the move time a search may take
 * before the engine counts as hung; every other key is a UCI option (`Skill Level=0`,
 * `UCI_LimitStrength=true`, `UCI_Elo=1350`, `Threads=1`) sent with `setoption` after the handshake.
 */
import type { Agent } from '@az/core';
import { legalMoveOf, toFen, type ChessState } from '@az/game-chess';
import { UciEngine, UciEngineError, type UciLimits } from './engine.js';
import { actionOfUci } from './moves.js';

export interface UciAgentSpec {
  /** The command line that starts the engine. */
  readonly command: string;
  readonly limits: UciLimits;
  /** UCI options, in the order given. */
  readonly options: Readonly<Record<string, string>>;
  /** Extra time (ms) a move may take beyond its move time before the engine is declared hung. */
  readonly timeoutMs: number;
  /** The spec as written (without the `uci:` prefix), used as the agent's name. */
  readonly text: string;
}

const LIMIT_KEYS = ['depth', 'nodes', 'movetime'] as const;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Reads `<command>[,key=value...]` (the text after `uci:`). Throws an Error naming the bad part. */
export function parseUciAgentSpec(text: string): UciAgentSpec {
  const [commandPart, ...rest] = text.split(',');
  const command = commandPart.trim();
  if (command === '') throw new Error(`uci agent '${text}': no engine command before the first comma (e.g. uci:stockfish,depth=1)`);
  const limits: { depth?: number; nodes?: number; movetime?: number } = {};
  const options = new Map<string, string>();
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`uci agent '${text}': '${part}' is not key=value (limits depth, nodes, movetime, timeout, or a UCI option such as Skill Level=0)`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if ((LIMIT_KEYS as readonly string[]).includes(key) || key === 'timeout') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`uci agent '${text}': ${key} must be a positive integer (got '${value}')`);
      if (key === 'timeout') timeoutMs = n;
      else limits[key as (typeof LIMIT_KEYS)[number]] = n;
    } else {
      if (value === '') throw new Error(`uci agent '${text}': option '${key}' has no value`);
      options.set(key, value);
    }
  }
  // fromEntries defines own properties: an option named `__proto__` reaches the engine (which refuses
  // it as an option it lacks) instead of being dropped by an assignment to the prototype.
  return { command, limits, options: Object.fromEntries(options), timeoutMs, text };
}

/**
 * Plays chess through a UCI engine, one position at a time (the engine sees the FEN, which carries the
 * half-move clock but not the earlier positions, so it does not know about repetitions).
 *
 * `actSettled` answers per position: an engine that crashes, hangs or plays an illegal move costs that
 * game (an Error in its place) and is restarted for the next; only a failed restart throws.
 */
export class UciAgent implements Agent<ChessState> {
  readonly name: string;
  private engine: UciEngine | null = null;
  /** Times the engine died or hung and was restarted. */
  restarts = 0;
  /** What went wrong, one line per lost game. */
  readonly failures: string[] = [];

  constructor(
    readonly spec: UciAgentSpec,
    private readonly startOptions: { readonly startTimeoutMs?: number; readonly cwd?: string } = {},
  ) {
    this.name = `uci:${spec.text}`;
  }

  /** Starts the engine (the handshake), so a bad command fails before any game is played. */
  async start(): Promise<void> {
    if (this.engine?.alive) return;
    const restarting = this.engine !== null;
    this.engine = await UciEngine.start(this.spec.command, { setOptions: this.spec.options, ...this.startOptions });
    if (restarting) this.restarts++;
  }

  /** The engine's `id name` once started. */
  get engineName(): string | undefined {
    return this.engine?.name;
  }

  get pid(): number | undefined {
    return this.engine?.pid;
  }

  async act(states: readonly ChessState[]): Promise<Int32Array> {
    const settled = await this.actSettled(states);
    const out = new Int32Array(states.length);
    settled.forEach((a, i) => {
      if (a instanceof Error) throw a;
      out[i] = a;
    });
    return out;
  }

  async actSettled(states: readonly ChessState[]): Promise<(number | Error)[]> {
    const out: (number | Error)[] = [];
    for (const state of states) {
      await this.start();
      const engine = this.engine as UciEngine;
      try {
        const { bestmove } = await engine.bestMove(toFen(state), [], this.spec.limits, this.spec.timeoutMs);
        const action = actionOfUci(state, bestmove);
        if (action < 0) throw new UciEngineError('protocol', `engine '${this.spec.command}' played '${bestmove}', not a legal move in ${toFen(state)}`);
        out.push(action);
      } catch (err) {
        if (!(err instanceof UciEngineError)) throw err;
        this.failures.push(err.message);
        // Whatever state it is in, this engine is not trusted again: a fresh one plays the next move.
        await engine.kill();
        out.push(err);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.engine?.quit();
  }
}

/** UCI text of an action in a position (`e2e4`, `e7e8q`), or null if it is not legal there. */
export function uciOfAction(state: ChessState, action: number): string | null {
  return legalMoveOf(state, action)?.uci ?? null;
}

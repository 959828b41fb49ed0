/**
 * A UCI engine in a child process: start and handshake (`uci`/`uciok`, `setoption`, `isready`/`readyok`),
 * one search at a time (`position` + `go` -> `bestmove`), and shutdown. Every wait has a deadline; an
 * engine that exits or misses one is killed and reported with a `UciEngineError` naming what happened.
 *
 * No zombies: children are spawned without a shell (the pid is the engine's), each one's exit is
 * awaited, and any still alive when this process exits are killed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * What went wrong: could not start, does not speak UCI, died, did not answer in time, or was given an
 * option it does not have ('option': a `setOptions` name missing from the options it listed).
 */
export type UciFailure = 'start' | 'protocol' | 'crash' | 'timeout' | 'option';

export class UciEngineError extends Error {
  constructor(
    readonly failure: UciFailure,
    message: string,
  ) {
    super(message);
    this.name = 'UciEngineError';
  }
}

/** Per-move search limits (UCI `go` parameters); with none, `go movetime 100`. */
export interface UciLimits {
  readonly depth?: number;
  readonly nodes?: number;
  /** Milliseconds. */
  readonly movetime?: number;
}

export interface UciEngineOptions {
  /**
   * `setoption name K value V` for each entry, in order, after the handshake. Every K must be an option the
   * engine listed in its reply to `uci` (compared without regard to case, as UCI asks; the engine's
   * spelling is sent), else `start` throws a `UciEngineError` ('option') naming it and the engine's options.
   */
  readonly setOptions?: Readonly<Record<string, string>>;
  /** Deadline for `uciok` and `readyok` (ms, default 30 s: a model-backed engine loads its network first). */
  readonly startTimeoutMs?: number;
  readonly cwd?: string;
  /** Receives every line the engine writes (debugging, tests). */
  readonly onLine?: (line: string) => void;
}

export interface UciSearchResult {
  /** The move in UCI notation (`e2e4`, `e7e8q`), or `(none)`/`0000` when the engine has none. */
  readonly bestmove: string;
  /** The last `info` line that had a score, if any. */
  readonly lastInfo?: string;
}

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** Engines currently running in this process. */
export function liveEngineCount(): number {
  return live.size;
}

/**
 * The program to run for a bare name: the first match on PATH, else /usr/games (where Debian installs
 * engines such as stockfish, often not on a user's PATH); names with a slash are used as given.
 */
export function resolveProgram(name: string): string {
  if (name.includes('/')) return name;
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/games'];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return name;
}

/** Splits a command line into words: whitespace separates, single or double quotes group. */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unbalanced ${quote} in command '${text}'`);
  if (inWord) words.push(word);
  return words;
}

interface Waiter {
  readonly match: (line: string) => boolean;
  readonly resolve: (line: string) => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class UciEngine {
  /** The engine's `id name`, or the command when it gave none. */
  name: string;
  private readonly child: ChildProcessWithoutNullStreams;
  private waiter: Waiter | null = null;
  private exited = false;
  private exitDescription = '';
  private readonly exitPromise: Promise<void>;
  private readonly recentStderr: string[] = [];
  private readonly recentStdout: string[] = [];
  private lastScoredInfo: string | undefined;
  private readonly listedOptions: string[] = [];

  private constructor(
    readonly command: string,
    private readonly options: UciEngineOptions,
  ) {
    const [file, ...args] = splitCommandLine(command);
    if (!file) throw new UciEngineError('start', 'empty engine command');
    this.name = command;
    installExitHook();
    this.child = spawn(resolveProgram(file), args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(this.child);
    this.exitPromise = new Promise((resolve) => {
      const done = (description: string): void => {
        if (this.exited) return;
        this.exited = true;
        this.exitDescription = description;
        live.delete(this.child);
        this.failWaiter(new UciEngineError(this.everReady ? 'crash' : 'protocol', `engine '${command}' ${description}${this.tail()}`));
        resolve();
      };
      this.child.once('error', (err: NodeJS.ErrnoException) => {
        const why = err.code === 'ENOENT' ? 'no such command' : err.code === 'EACCES' ? 'not executable' : err.message;
        this.startError = new UciEngineError('start', `cannot start engine '${command}': ${why}`);
        done(`could not start (${why})`);
      });
      this.child.once('exit', (code, signal) => done(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    });
    // A write to an engine that just died must not crash this process: the exit is reported instead.
    this.child.stdin.on('error', () => undefined);
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.recentStderr.push(line);
      if (this.recentStderr.length > 5) this.recentStderr.shift();
    });
  }

  private startError: UciEngineError | null = null;
  private everReady = false;

  /**
   * Starts `command` (a command line: program and arguments) and completes the handshake. Throws a
   * `UciEngineError`: 'start' if it cannot be run, 'protocol' if it does not answer like a UCI engine.
   */
  static async start(command: string, options: UciEngineOptions = {}): Promise<UciEngine> {
    const engine = new UciEngine(command, options);
    const deadline = options.startTimeoutMs ?? 30_000;
    try {
      engine.send('uci');
      await engine.waitFor((l) => l === 'uciok' || l.startsWith('uciok '), deadline, `answer 'uci' with 'uciok' (does it speak UCI?)`);
      const settings = Object.entries(options.setOptions ?? {}).map(([name, value]) => ({ name, value, listed: engine.listedOption(name) }));
      const unknown = settings.filter((s) => s.listed === undefined).map((s) => `'${s.name}'`);
      if (unknown.length > 0) {
        const offered = engine.listedOptions.length > 0 ? `the options it lists: ${engine.listedOptions.join(', ')}` : 'it lists no options';
        throw new UciEngineError('option', `engine '${command}' (${engine.name}) has no option ${unknown.join(', ')} (not in its reply to 'uci'); ${offered}`);
      }
      for (const { listed, value } of settings) engine.send(`setoption name ${listed} value ${value}`);
      await engine.ready(deadline);
      engine.everReady = true;
      return engine;
    } catch (err) {
      await engine.kill();
      if (engine.startError) throw engine.startError;
      if (err instanceof UciEngineError && (err.failure === 'crash' || err.failure === 'timeout')) throw new UciEngineError('protocol', err.message);
      throw err;
    }
  }

  /** The option names the engine listed in its reply to `uci` (`option name X type ...`), in its order. */
  get optionNames(): readonly string[] {
    return this.listedOptions;
  }

  /** The engine's spelling of option `name` (UCI option names are not case-sensitive), or undefined if it listed none such. */
  private listedOption(name: string): string | undefined {
    const key = name.trim().toLowerCase();
    return this.listedOptions.find((o) => o.toLowerCase() === key);
  }

  get alive(): boolean {
    return !this.exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** `isready` -> `readyok`. */
  async ready(timeoutMs = 30_000): Promise<void> {
    this.send('isready');
    await this.waitFor((l) => l === 'readyok', timeoutMs, "answer 'isready' with 'readyok'");
  }

  async newGame(timeoutMs = 30_000): Promise<void> {
    this.send('ucinewgame');
    await this.ready(timeoutMs);
  }

  /**
   * Searches the position (`fen`, or `startpos` when null, then `moves`) within `limits`; the answer must
   * come within `timeoutMs` beyond the move time, else the engine is killed ('timeout').
   */
  async bestMove(fen: string | null, moves: readonly string[], limits: UciLimits, timeoutMs: number): Promise<UciSearchResult> {
    const position = `position ${fen === null ? 'startpos' : `fen ${fen}`}${moves.length ? ` moves ${moves.join(' ')}` : ''}`;
    this.send(position);
    const parts: string[] = [];
    if (limits.depth !== undefined) parts.push(`depth ${limits.depth}`);
    if (limits.nodes !== undefined) parts.push(`nodes ${limits.nodes}`);
    if (limits.movetime !== undefined) parts.push(`movetime ${limits.movetime}`);
    if (parts.length === 0) parts.push('movetime 100');
    this.lastScoredInfo = undefined;
    this.send(`go ${parts.join(' ')}`);
    const line = await this.waitFor((l) => l.startsWith('bestmove'), timeoutMs + (limits.movetime ?? 100), `answer 'go' with 'bestmove' (${parts.join(' ')})`);
    const bestmove = line.split(/\s+/)[1] ?? '(none)';
    return { bestmove, lastInfo: this.lastScoredInfo };
  }

  /** Asks the engine to quit, then kills it if it has not exited within `graceMs`; resolves once it is gone. */
  async quit(graceMs = 2_000): Promise<void> {
    if (this.exited) return;
    this.send('quit');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exitPromise;
    clearTimeout(timer);
  }

  /** Kills the engine at once; resolves once it has exited. */
  async kill(): Promise<void> {
    if (!this.exited) this.child.kill('SIGKILL');
    await this.exitPromise;
  }

  private send(line: string): void {
    if (this.exited) throw new UciEngineError('crash', `engine '${this.command}' ${this.exitDescription}${this.tail()}`);
    this.child.stdin.write(line + '\n');
  }

  private onLine(raw: string): void {
    const line = raw.trim();
    this.options.onLine?.(line);
    this.recentStdout.push(line);
    if (this.recentStdout.length > 5) this.recentStdout.shift();
    if (line.startsWith('id name ')) this.name = line.slice('id name '.length);
    // `option name <name, may hold spaces> type <type> ...`
    const option = /^option\s+name\s+(.+?)\s+type\s/.exec(line);
    if (option) this.listedOptions.push(option[1]);
    if (line.startsWith('info ') && / score /.test(line)) this.lastScoredInfo = line;
    const w = this.waiter;
    if (w && w.match(line)) {
      this.waiter = null;
      clearTimeout(w.timer);
      w.resolve(line);
    }
  }

  private waitFor(match: (line: string) => boolean, timeoutMs: number, what: string): Promise<string> {
    if (this.exited) return Promise.reject(new UciEngineError('crash', `engine '${this.command}' ${this.exitDescription}${this.tail()}`));
    if (this.waiter) return Promise.reject(new Error(`engine '${this.command}': already waiting for an answer`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        reject(new UciEngineError('timeout', `engine '${this.command}' did not ${what} within ${(timeoutMs / 1000).toFixed(1)} s; killed it${this.tail()}`));
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.waiter = { match, resolve, reject, timer };
    });
  }

  private failWaiter(err: Error): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(w.timer);
    w.reject(err);
  }

  /** The engine's last words, for error messages. */
  private tail(): string {
    const out = this.recentStdout.length ? `; last output: ${this.recentStdout.slice(-3).join(' | ')}` : '';
    const err = this.recentStderr.length ? `; stderr: ${this.recentStderr.slice(-3).join(' | ')}` : '';
    return out + err;
  }
}

/**
 * The searches `az serve` runs at once, across every game. A computer move's search holds its tree (for
 * chess at the most simulations, tens of MB) only while it runs, so the server's memory is bounded by
 * this many trees; a request that would start one more is refused at once with 503 and a retry hint,
 * never queued (a queue would let any number of requests wait, each holding its connection).
 */
import { availableParallelism } from 'node:os';
import { PlayError } from './sessions.js';

/** Seconds a refused request is told to wait (`Retry-After`): about one search at the most simulations. */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/** The default number of searches at once: one per core (the searches share the cores with everything else). */
export function defaultMaxSearches(): number {
  return Math.max(1, availableParallelism());
}

/** All search slots are taken: the server answers 503 with `Retry-After`. */
export class ServerBusyError extends PlayError {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `the server is busy: ${limit} computer move${limit === 1 ? ' is' : 's are'} already being searched (the most az serve runs at once, --max-searches); nothing was played, try again in ${retryAfterSeconds} s`,
      503,
    );
    this.name = 'ServerBusyError';
  }
}

export class SearchSlots {
  private taken = 0;

  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number = BUSY_RETRY_AFTER_SECONDS,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`the searches at once must be a positive integer, got ${limit}`);
  }

  /** Searches running now. */
  get running(): number {
    return this.taken;
  }

  /** Takes a slot, or throws `ServerBusyError` when all are taken; the function returned gives it back (once). */
  take(): () => void {
    if (this.taken >= this.limit) throw new ServerBusyError(this.limit, this.retryAfterSeconds);
    this.taken++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.taken--;
    };
  }
}

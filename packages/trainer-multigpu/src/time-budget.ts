/**
 * A wall-clock budget for one training session (`az train --time-limit 60m`): iterations run while the
 * next one, judged by the last one's duration, would end within the budget. A fixed-budget run then
 * ends on a finished iteration and checkpoint, never cut in the middle of one, and never over budget by
 * more than one iteration's jitter plus what the end of a run does (stopping self-play processes, the
 * game's assessment of the final model). The clock starts when the run has started (model built, replay
 * loaded), and an iteration's time includes its rating when `--rate-every` rates it.
 */
export class TimeBudget {
  private lastEnd: number;
  private lastDuration = 0;
  private iterations = 0;

  /**
   * @param limitSeconds the budget; 0 is none (`wouldOverrun` always false)
   * @param startedAt when the session started, in `now`'s units (milliseconds)
   */
  constructor(
    readonly limitSeconds: number,
    private readonly startedAt: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(limitSeconds >= 0 && Number.isFinite(limitSeconds))) throw new RangeError(`the time limit must be a non-negative number of seconds, got ${limitSeconds}`);
    this.lastEnd = startedAt;
  }

  /** Call when an iteration has finished (its checkpoint written). */
  iterationEnded(): void {
    const t = this.now();
    this.lastDuration = t - this.lastEnd;
    this.lastEnd = t;
    this.iterations++;
  }

  /**
   * Whether the next iteration would end after the budget, judged by the last iteration's duration.
   * The first iteration always starts: nothing is known of its length, and a run without one has no model.
   */
  wouldOverrun(): boolean {
    if (this.limitSeconds === 0 || this.iterations === 0) return false;
    return this.now() + this.lastDuration > this.startedAt + this.limitSeconds * 1000;
  }

  /** Seconds since the session started. */
  elapsedSeconds(): number {
    return (this.now() - this.startedAt) / 1000;
  }

  /** The last iteration's duration in seconds (0 before the first ends). */
  lastIterationSeconds(): number {
    return this.lastDuration / 1000;
  }
}

/**
 * Parses a duration such as `90s`, `45m`, `1h`, `1h30m` or `2h15m30s` into seconds; null when the text is
 * not one (a bare number is refused: minutes or seconds would be a guess).
 */
export function parseDuration(text: string): number | null {
  const m = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return null;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return seconds > 0 ? seconds : null;
}

/** `3600` -> `1h`, `5400` -> `1h30m`, `90` -> `1m30s`: the budget as the user would write it. */
export function formatDuration(seconds: number): string {
  // Rounded to tenths before it is split, so 119.96 s is 2m, not 1m60s.
  const tenths = Math.round(seconds * 10);
  const h = Math.floor(tenths / 36000);
  const m = Math.floor((tenths % 36000) / 600);
  const s = (tenths % 600) / 10;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || (!h && !m) ? `${s}s` : ''}`;
}

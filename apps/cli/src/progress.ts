/** What the bar writes to: a terminal (redrawn in place) or a log. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * The share of the work that must be done before an ETA is shown. Arenas start their games together
 * and most finish together at the end, so the first few finished games (short ones) predict the rest
 * badly: an early rate can make a seconds-long phase look like one of many minutes.
 */
export const ETA_AFTER_SHARE = 0.1;

/**
 * Progress on the terminal. On a TTY: one bar redrawn in place with rate and ETA. Elsewhere (CI,
 * pipes): a line at each quarter, so logs stay readable.
 */
export class ProgressBar {
  private readonly start: number;
  private lastDraw = 0;
  private lastQuarter = -1;
  private done = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly unit: string,
    private readonly stream: ProgressStream = process.stderr,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.start = clock();
    this.draw(true);
  }

  update(done: number): void {
    this.done = done;
    this.draw(false);
  }

  finish(suffix = ''): void {
    this.done = Math.max(this.done, this.total);
    if (this.stream.isTTY) {
      this.render(suffix);
      this.stream.write('\n');
    } else {
      this.stream.write(`${this.line()}${suffix ? ` ${suffix}` : ''}\n`);
    }
  }

  private draw(force: boolean): void {
    if (this.stream.isTTY) {
      const now = this.clock();
      if (!force && now - this.lastDraw < 100 && this.done < this.total) return;
      this.lastDraw = now;
      this.render('');
      return;
    }
    const quarter = this.total > 0 ? Math.floor((4 * this.done) / this.total) : 0;
    if (quarter > this.lastQuarter && quarter < 4 && this.done > 0) {
      this.lastQuarter = quarter;
      this.stream.write(`${this.line()}\n`);
    }
  }

  private render(suffix: string): void {
    const width = 24;
    const frac = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const filled = Math.round(frac * width);
    const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
    this.stream.write(`\r\x1b[2K${this.label} ${bar} ${this.line(false)}${suffix ? ` ${suffix}` : ''}`);
  }

  private line(withLabel = true): string {
    const seconds = (this.clock() - this.start) / 1000;
    const rate = seconds > 0 ? this.done / seconds : 0;
    const etaKnown = rate > 0 && this.done < this.total && this.done >= Math.max(2, Math.ceil(ETA_AFTER_SHARE * this.total));
    const eta = etaKnown ? ` eta ${formatSeconds((this.total - this.done) / rate)}` : '';
    return `${withLabel ? `${this.label} ` : ''}${this.total > 0 ? `${this.done}/${this.total}` : this.done} ${this.unit} ${formatSeconds(seconds)} (${rate.toFixed(rate < 10 ? 2 : 0)} ${this.unit}/s)${eta}`;
  }
}

export function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${Math.round(s - 60 * m).toString().padStart(2, '0')}s`;
}

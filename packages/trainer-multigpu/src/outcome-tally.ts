import type { GameRecord } from './game-record.js';

/** How one iteration's self-play games ended, for `metrics.jsonl`. */
export interface SelfPlayOutcomes {
  /** Share of games in which some seat's return is not 0 (a win, a loss, a score). */
  readonly decisiveShare: number;
  /** Share of games each seat won outright (its return strictly above every other seat's). */
  readonly winShareBySeat: readonly number[];
  /** Mean game length in positions (moves played). */
  readonly meanLength: number;
}

/**
 * Counts the outcomes of self-play games as they are added; `take()` summarizes and starts afresh. A
 * training run whose games stop being decisive (every game drawn by repetition, say) gives its value
 * head nothing to learn, and the losses alone do not show it.
 */
export class OutcomeTally {
  private games = 0;
  private decisive = 0;
  private positions = 0;
  private wins: number[];

  constructor(private readonly numSeats: number) {
    this.wins = new Array<number>(numSeats).fill(0);
  }

  add(record: GameRecord): void {
    const r = record.returns;
    this.games++;
    this.positions += record.length;
    let best = 0;
    let bestCount = 0;
    let nonZero = false;
    for (let s = 0; s < r.length; s++) {
      if (r[s] !== 0) nonZero = true;
      if (s === 0 || r[s] > r[best]) {
        best = s;
        bestCount = 1;
      } else if (r[s] === r[best]) bestCount++;
    }
    if (nonZero) this.decisive++;
    if (nonZero && bestCount === 1 && best < this.numSeats) this.wins[best]++;
  }

  take(): SelfPlayOutcomes {
    const n = Math.max(1, this.games);
    const out: SelfPlayOutcomes = {
      decisiveShare: this.decisive / n,
      winShareBySeat: this.wins.map((w) => w / n),
      meanLength: this.positions / n,
    };
    this.games = 0;
    this.decisive = 0;
    this.positions = 0;
    this.wins = new Array<number>(this.numSeats).fill(0);
    return out;
  }
}

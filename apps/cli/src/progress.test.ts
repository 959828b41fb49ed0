import { describe, expect, it } from 'vitest';
import { ProgressBar } from './progress.js';

/** A terminal that keeps what was last drawn, and a clock the test moves. */
function terminal(): { stream: { isTTY: boolean; write(t: string): boolean }; last(): string; clock: { now: number } } {
  let text = '';
  const clock = { now: 0 };
  return {
    stream: { isTTY: true, write: (t: string) => ((text = t), true) },
    last: () => text,
    clock,
  };
}

describe('ProgressBar', () => {
  it('shows no ETA from the first few finished games of an arena, whose games finish together at the end', () => {
    const t = terminal();
    const bar = new ProgressBar('eval', 40, 'games', t.stream, () => t.clock.now);
    // One short game done after 3 s: a rate of 1 game per 3 s would predict 117 s more.
    t.clock.now = 3_000;
    bar.update(1);
    expect(t.last()).toContain('1/40 games');
    expect(t.last()).not.toContain('eta');
    t.clock.now = 8_000;
    bar.update(4);
    expect(t.last()).toContain('eta 1m12s');
  });

  it('writes a line at each quarter to a log, with the rate and ETA', () => {
    const lines: string[] = [];
    let now = 0;
    const bar = new ProgressBar('self-play', 8, 'games', { isTTY: false, write: (t: string) => lines.push(t) }, () => now);
    now = 2_000;
    bar.update(2);
    now = 4_000;
    bar.update(4);
    bar.finish();
    expect(lines).toEqual([
      'self-play 2/8 games 2.0s (1.00 games/s) eta 6.0s\n',
      'self-play 4/8 games 4.0s (1.00 games/s) eta 4.0s\n',
      'self-play 8/8 games 4.0s (2.00 games/s)\n',
    ]);
  });
});

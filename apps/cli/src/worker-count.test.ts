import { describe, expect, it } from 'vitest';
import { defaultSelfPlayProcesses, workerCountWarning } from './worker-count.js';

describe('workerCountWarning', () => {
  it('warns above the core count, naming both and the largest useful setting', () => {
    expect(workerCountWarning(64, 2)).toMatch(/^64 self-play processes on 2 cores: .*use at most 2 \(e\.g\. --devices cpu:2\)$/);
    expect(workerCountWarning(3, 2)).toContain('3 self-play processes on 2 cores');
  });

  it('is silent up to the core count', () => {
    expect(workerCountWarning(2, 2)).toBeNull();
    expect(workerCountWarning(1, 8)).toBeNull();
  });
});

describe('defaultSelfPlayProcesses', () => {
  it("takes the game's hint where the machine has a core for each worker besides the trainer's", () => {
    expect(defaultSelfPlayProcesses(1, 2)).toBe(1);
    expect(defaultSelfPlayProcesses(3, 8)).toBe(3);
  });

  it('is 0 (one process, in turns) without a hint or without a spare core', () => {
    expect(defaultSelfPlayProcesses(0, 8)).toBe(0);
    expect(defaultSelfPlayProcesses(1, 1)).toBe(0);
    expect(defaultSelfPlayProcesses(2, 2)).toBe(0);
  });
});

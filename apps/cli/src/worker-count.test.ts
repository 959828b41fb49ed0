import { describe, expect, it } from 'vitest';
import { workerCountWarning } from './worker-count.js';

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

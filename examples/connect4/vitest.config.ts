import { defineConfig } from 'vitest/config';

// train.test.ts runs the az CLI (a child process that loads tfjs and trains for a few iterations).
export default defineConfig({
  test: { testTimeout: 120_000 },
});

import { defineConfig } from 'vitest/config';

// These tests run the built binary end to end (each call starts Node and loads tfjs), so they get
// generous time limits; they do not assert on speed.
export default defineConfig({
  test: { testTimeout: 300_000, hookTimeout: 60_000 },
});

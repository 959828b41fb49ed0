import { defineConfig } from 'vitest/config';

// Tests assert behaviour, never speed: CI machines have 2 cores and run several packages' suites at
// once, so the per-test limit is generous (exhaustive enumerations take seconds under load).
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 60_000 },
});

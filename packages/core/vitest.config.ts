import { defineConfig } from 'vitest/config';

// Tests assert behaviour, never speed: CI machines have 2 cores and run several packages' suites at
// once, so the per-test limit is generous (exhaustive enumerations take seconds under load).
// `*.test-d.ts` files hold type-level checks of the public API, which only the type checker can run.
export default defineConfig({
  test: { testTimeout: 120_000, hookTimeout: 60_000, typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] } },
});

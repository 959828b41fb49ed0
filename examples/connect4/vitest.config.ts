import { defineConfig } from 'vitest/config';

// The contract test plays many seeded games; generous limit for a loaded 2-core CI machine.
export default defineConfig({
  test: { testTimeout: 120_000 },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Build once before any test file runs (see test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real servers and child processes on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

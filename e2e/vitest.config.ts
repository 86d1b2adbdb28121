import { defineConfig } from 'vitest/config';

/**
 * Browser flows against a real server (embedded Postgres) started once in global setup.
 * One file at a time: the machine has 2 cores and each file drives its own Chromium.
 */
export default defineConfig({
  test: {
    environment: 'node',
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * One Postgres for the run (global setup); each test file starts its own bank on its own
 * database and free ports. Two files at a time: the machine is small and each file runs a
 * whole authorization server (and one a browser).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

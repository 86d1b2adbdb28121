import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // One Postgres for the run; every test file clones its own database from a migrated template.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Files wait on Postgres and child processes much of the time, and each has its own
    // database: on 2 cores, 3 files at once ran the suite in 39 s instead of 51 s.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});

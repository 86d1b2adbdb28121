import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/contract/**', 'test/pack/**'] },
      },
      {
        // Against the real server: the server's own harness starts one embedded Postgres for the
        // run and migrates a template database that each test file clones.
        extends: true,
        test: {
          name: 'server',
          include: ['test/contract/**/*.test.ts', 'test/pack/**/*.test.ts'],
          globalSetup: ['../server/test/global-setup.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});

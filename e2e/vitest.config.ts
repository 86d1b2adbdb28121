import { defineConfig } from 'vitest/config';

/**
 * Files whose assertions measure time on the machine: run one at a time, after the rest, with
 * nothing else loading the 2 cores (page-speed's time to interactive; mock-bank-flows' "completed
 * on time" from the server's worker).
 */
const ALONE = ['tests/page-speed.test.ts', 'tests/mock-bank-flows.test.ts'];

/**
 * Browser flows against a real server (embedded Postgres) started once in global setup.
 * Two files at a time: on 2 cores a file spends much of its time waiting (on the server, a
 * bank's steps, the mail inbox, polling), so two Chromiums cut the run by a third (795 s to
 * 516 s). A file signs up its own organization, or makes its own payments with the run's API
 * key, or starts its own server (merchant-brand, the obie files, on ports the OS picks): two
 * files never share an account, a payment, a bank's faults or a clock. They do share the shared
 * server's budgets: sign-ups and sign-ins are raised for the suite (server-process.ts); with two
 * files at once customer pages from 127.0.0.1 peaked at 25 of 120 a minute, and the run's key
 * at 11 of 120 writes and 17 of 600 reads.
 */
export default defineConfig({
  test: {
    environment: 'node',
    // Runs once for the whole run (a root global setup is not inherited by the projects); both
    // projects inject what it provides.
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['tests/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          fileParallelism: false,
        },
      },
    ],
  },
});

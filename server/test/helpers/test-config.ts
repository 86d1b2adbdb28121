import type { Config } from '../../src/config.ts';

/** A config built without reading the environment; override what a test cares about. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    databaseUrl: undefined,
    port: 0,
    host: '127.0.0.1',
    publicBaseUrl: 'http://localhost:3000',
    linkSigningSecret: 'test-link-signing-secret-0123456789abcdef',
    logLevel: 'silent',
    runWorker: false,
    embeddedPgDir: '/nonexistent',
    embeddedPgPort: 0,
    hostedPagesEnabled: true,
    migrateOnStart: true,
    // Off here: most test files make many calls from one address; rate-limit tests turn it on.
    rateLimits: {
      enabled: false,
      windowSeconds: 60,
      apiReads: 600,
      apiWrites: 120,
      pages: 120,
      dashboard: 600,
      waitsPerOrganization: 1_000,
      waitsPerProcess: 10_000,
      signUpsPerAddress: 10,
      signInsPerAddress: 30,
    },
    trpcMaxBatchSize: 10,
    timeouts: { requestMs: 10_000, connectionMs: 30_000, statementMs: 5_000, poolAcquireMs: 3_000 },
    maxConnections: 10_000,
    trustProxy: false,
    shutdownDrainMs: 0,
    requestLog: true,
    requestLogRowsPerDay: 200_000,
    metrics: undefined,
    tracing: undefined,
    webDistDir: '/nonexistent/web/dist',
    mail: {
      smtpUrl: undefined,
      from: 'Test Service <no-reply@pis.test>',
      devInbox: { smtpPort: 0, webPort: 0 },
    },
    dataDir: '/nonexistent',
    obieConnections: [],
    nextgenpsd2Connections: [],
    ...overrides,
  };
}

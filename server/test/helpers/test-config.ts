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
    webDistDir: '/nonexistent/web/dist',
    dataDir: '/nonexistent',
    ...overrides,
  };
}

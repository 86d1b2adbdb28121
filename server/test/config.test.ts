import { execFile } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { ConfigError, DEFAULT_EMBEDDED_PG_PORT, loadConfig, REPO_ROOT } from '../src/config.ts';

const run = promisify(execFile);
const tempDir = () => mkdtemp(path.join(os.tmpdir(), 'pis-config-'));

describe('loadConfig', () => {
  test('defaults: embedded database, 127.0.0.1:3000, localhost base URL, worker and hosted pages on', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({}, dataDir);
    expect(config).toMatchObject({
      databaseUrl: undefined,
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
      logLevel: 'info',
      runWorker: true,
      hostedPagesEnabled: true,
      embeddedPgDir: path.join(dataDir, 'postgres'),
      embeddedPgPort: DEFAULT_EMBEDDED_PG_PORT,
      webDistDir: path.join(REPO_ROOT, 'web', 'dist'),
    });
  });

  test('limits and timeouts: on by default, RATE_LIMITS=off turns counting off, numbers validated', async () => {
    const dataDir = await tempDir();
    expect(loadConfig({}, dataDir)).toMatchObject({
      rateLimits: {
        enabled: true,
        windowSeconds: 60,
        apiReads: 600,
        apiWrites: 120,
        pages: 120,
        dashboard: 600,
        waitsPerOrganization: 100,
        waitsPerProcess: 2_000,
        signUpsPerAddress: 10,
        signInsPerAddress: 30,
      },
      trpcMaxBatchSize: 10,
      timeouts: { requestMs: 10_000, connectionMs: 30_000, statementMs: 5_000, poolAcquireMs: 3_000 },
      maxConnections: 10_000,
      trustProxy: false,
    });
    const tuned = loadConfig(
      {
        RATE_LIMITS: 'off',
        RATE_LIMIT_API_READS: '50',
        RATE_LIMIT_WINDOW_SECONDS: '1',
        DB_STATEMENT_TIMEOUT_MS: '250',
        TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
        WAITS_PER_PROCESS: '500',
        RATE_LIMIT_SIGN_UPS: '3',
        RATE_LIMIT_SIGN_INS: '5',
        MAX_CONNECTIONS: '2000',
      },
      dataDir,
    );
    expect(tuned.rateLimits).toMatchObject({
      enabled: false,
      apiReads: 50,
      windowSeconds: 1,
      waitsPerProcess: 500,
      signUpsPerAddress: 3,
      signInsPerAddress: 5,
    });
    expect(tuned.maxConnections).toBe(2_000);
    expect(tuned.timeouts.statementMs).toBe(250);
    expect(tuned.trustProxy).toEqual(['10.0.0.0/8', '192.168.1.1']);
    expect(loadConfig({ TRUST_PROXY: '1' }, dataDir).trustProxy).toBe(1);
    expect(() => loadConfig({ RATE_LIMITS: 'maybe' }, dataDir)).toThrow(/RATE_LIMITS/);
    expect(() => loadConfig({ RATE_LIMIT_PAGES: '0' }, dataDir)).toThrow(/RATE_LIMIT_PAGES/);
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' }, dataDir)).toThrow(/TRUST_PROXY/);
  });

  test('the request log: on by default, REQUEST_LOG=off writes none (an operator lever), anything else refused', async () => {
    const dataDir = await tempDir();
    expect(loadConfig({}, dataDir).requestLog).toBe(true);
    expect(loadConfig({ REQUEST_LOG: 'off' }, dataDir).requestLog).toBe(false);
    expect(() => loadConfig({ REQUEST_LOG: 'no' }, dataDir)).toThrow(/REQUEST_LOG/);
  });

  test('secrets from files: DATABASE_PASSWORD_FILE goes into DATABASE_URL, LINK_SIGNING_SECRET_FILE is the secret', async () => {
    const dir = await tempDir();
    const password = path.join(dir, 'password');
    const secret = path.join(dir, 'secret');
    await writeFile(password, 'p@ss/w:rd\n');
    await writeFile(secret, `${'s'.repeat(40)}\n`);
    const config = loadConfig(
      {
        DATABASE_URL: 'postgres://pis_app@db:5432/pis',
        DATABASE_PASSWORD_FILE: password,
        LINK_SIGNING_SECRET_FILE: secret,
        MIGRATE_ON_START: 'false',
      },
      dir,
    );
    expect(config.databaseUrl).toBe('postgres://pis_app:p%40ss%2Fw%3Ard@db:5432/pis');
    expect(decodeURIComponent(new URL(config.databaseUrl ?? '').password)).toBe('p@ss/w:rd');
    expect(config.linkSigningSecret).toBe('s'.repeat(40));
    expect(config.migrateOnStart).toBe(false);
    expect(loadConfig({}, dir).migrateOnStart).toBe(true);

    const missing = () => loadConfig({ LINK_SIGNING_SECRET_FILE: path.join(dir, 'absent') }, dir);
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow(/LINK_SIGNING_SECRET_FILE: cannot read/);
    await writeFile(path.join(dir, 'short'), 'short');
    expect(() => loadConfig({ LINK_SIGNING_SECRET_FILE: path.join(dir, 'short') }, dir)).toThrow(
      /at least 32/,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://u:inline@db/pis', DATABASE_PASSWORD_FILE: password }, dir),
    ).toThrow(/already has a password/);
    expect(() => loadConfig({ DATABASE_PASSWORD_FILE: password }, dir)).toThrow(/needs DATABASE_URL/);
    // A secret never appears in an error.
    const both = () =>
      loadConfig({ LINK_SIGNING_SECRET: 'x'.repeat(40), LINK_SIGNING_SECRET_FILE: secret }, dir);
    expect(both).toThrow(/not both/);
    expect(both).not.toThrow(/sss|xxx/);
  });

  test('the generated link secret is random, private, persisted and reused', async () => {
    const dataDir = await tempDir();
    const first = loadConfig({}, dataDir).linkSigningSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({}, dataDir).linkSigningSecret).toBe(first);
    expect(loadConfig({}, await tempDir()).linkSigningSecret).not.toBe(first);
    const file = path.join(dataDir, 'link-signing-secret');
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  test('values from the environment; empty strings count as unset', async () => {
    const config = loadConfig(
      {
        DATABASE_URL: 'postgres://u:p@db:5432/pis',
        PORT: '8080',
        HOST: '0.0.0.0',
        PUBLIC_BASE_URL: 'https://pay.example.com/',
        LINK_SIGNING_SECRET: 's'.repeat(40),
        LOG_LEVEL: 'warn',
        RUN_WORKER: 'false',
        HOSTED_PAGES_ENABLED: '0',
        EMBEDDED_PG_DIR: '',
      },
      await tempDir(),
    );
    expect(config).toMatchObject({
      databaseUrl: 'postgres://u:p@db:5432/pis',
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'https://pay.example.com',
      linkSigningSecret: 's'.repeat(40),
      logLevel: 'warn',
      runWorker: false,
      hostedPagesEnabled: false,
    });
    expect(loadConfig({ PORT: '4000' }, await tempDir()).publicBaseUrl).toBe('http://localhost:4000');
  });

  test('bad values name the variable and never echo a secret', async () => {
    const dataDir = await tempDir();
    for (const env of [
      { PORT: 'eighty' },
      { PORT: '70000' },
      { DATABASE_URL: 'mysql://x' },
      { PUBLIC_BASE_URL: 'ftp://x' },
      { LOG_LEVEL: 'loud' },
      { RUN_WORKER: 'maybe' },
      { LINK_SIGNING_SECRET: 'short-secret-value' },
    ]) {
      const [name] = Object.keys(env);
      expect(() => loadConfig(env, dataDir)).toThrow(ConfigError);
      expect(() => loadConfig(env, dataDir)).toThrow(name);
    }
    expect(() => loadConfig({ LINK_SIGNING_SECRET: 'short-secret-value' }, dataDir)).not.toThrow(
      /short-secret-value/,
    );
  });

  test('with DATABASE_URL (a deployment), a link secret is required; a previous one may sit beside it', async () => {
    const dataDir = await tempDir();
    const database = { DATABASE_URL: 'postgres://u:p@db:5432/pis' };
    expect(() => loadConfig(database, dataDir)).toThrow(
      /LINK_SIGNING_SECRET: is required when DATABASE_URL is set/,
    );
    expect(() => loadConfig({ ...database, LINK_SIGNING_SECRET: '' }, dataDir)).toThrow(ConfigError);
    const rotating = loadConfig(
      { ...database, LINK_SIGNING_SECRET: 'n'.repeat(40), LINK_SIGNING_SECRET_PREVIOUS: 'o'.repeat(40) },
      dataDir,
    );
    expect(rotating).toMatchObject({
      linkSigningSecret: 'n'.repeat(40),
      previousLinkSigningSecret: 'o'.repeat(40),
    });
    expect(() => loadConfig({ LINK_SIGNING_SECRET_PREVIOUS: 'o'.repeat(40) }, dataDir)).toThrow(
      /LINK_SIGNING_SECRET_PREVIOUS: needs LINK_SIGNING_SECRET/,
    );
    expect(() =>
      loadConfig(
        { ...database, LINK_SIGNING_SECRET: 'n'.repeat(40), LINK_SIGNING_SECRET_PREVIOUS: 'short' },
        dataDir,
      ),
    ).toThrow(/LINK_SIGNING_SECRET_PREVIOUS: must be at least 32 characters/);
  });

  test('the server refuses to start with DATABASE_URL and no LINK_SIGNING_SECRET: exit 2, before any connection', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: 'postgres://u:p@127.0.0.1:1/none' };
    delete env.LINK_SIGNING_SECRET;
    const started = await run(process.execPath, [path.join(REPO_ROOT, 'server/src/main.ts')], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(started.code).toBe(2);
    expect(started.stderr).toContain('LINK_SIGNING_SECRET: is required when DATABASE_URL is set');
  });
});

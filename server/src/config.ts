import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The one place that reads the environment. Everything else receives a `Config`.
 * Empty strings count as unset, so `FOO=` in a compose file or CI does not defeat a default.
 */

export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
/** Gitignored folder for local state: the embedded cluster and generated secrets. */
export const DATA_DIR = path.join(REPO_ROOT, '.data');

/** Request bodies above this are refused with 413 (payment bodies are well under 5 KB). */
export const BODY_LIMIT_BYTES = 100 * 1024;
/** Fixed so that the server and the CLI find the same embedded cluster; we fall back to a free port if taken. */
export const DEFAULT_EMBEDDED_PG_PORT = 54329;

const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfEmpty, schema.optional());
const flag = (fallback: boolean) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .optional()
      .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes'].includes(value))),
  );
const count = (fallback: number, min = 1) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).default(fallback));
const port = (fallback: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).default(fallback));

const EnvSchema = z.object({
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')),
  /**
   * Secrets from files (Docker/Kubernetes secrets) rather than the environment, where any process
   * listing or `docker inspect` shows them: the database password (put into DATABASE_URL) and
   * the link signing secret.
   */
  DATABASE_PASSWORD_FILE: optional(z.string()),
  LINK_SIGNING_SECRET_FILE: optional(z.string()),
  /**
   * `false` where the service's database role may not change the schema (it owns none): a
   * separate step (`npm run -w @pis/server migrate`) applies migrations as the owner first.
   */
  MIGRATE_ON_START: flag(true),
  PORT: port(3000),
  HOST: optional(z.string()),
  PUBLIC_BASE_URL: optional(z.url({ protocol: /^https?$/ })),
  LINK_SIGNING_SECRET: optional(z.string().min(32, 'must be at least 32 characters')),
  LINK_SIGNING_SECRET_PREVIOUS: optional(z.string().min(32, 'must be at least 32 characters')),
  LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  RUN_WORKER: flag(true),
  EMBEDDED_PG_DIR: optional(z.string()),
  EMBEDDED_PG_PORT: port(DEFAULT_EMBEDDED_PG_PORT),
  HOSTED_PAGES_ENABLED: flag(true),
  /** `off` for load tests and benchmarks; anything shared between instances is counted in Postgres. */
  RATE_LIMITS: z.preprocess(unsetIfEmpty, z.enum(['on', 'off']).default('on')),
  RATE_LIMIT_WINDOW_SECONDS: count(60),
  RATE_LIMIT_API_READS: count(600),
  RATE_LIMIT_API_WRITES: count(120),
  RATE_LIMIT_PAGES: count(120),
  RATE_LIMIT_DASHBOARD: count(600),
  RATE_LIMIT_WAITS_PER_ORGANIZATION: count(100),
  /** Sign-ups from one client address per hour (TRUST_PROXY: the address behind the load balancer). */
  RATE_LIMIT_SIGN_UPS: count(10),
  /** Password attempts (sign-in, sign-up, reset request, re-authentication) from one client address per 15 minutes. */
  RATE_LIMIT_SIGN_INS: count(30),
  /** Waiting reads this process holds at once, whatever the organizations (memory: at most ~57 KB each, see 044). */
  WAITS_PER_PROCESS: count(2_000),
  /** Open sockets this process accepts; beyond it Node closes new connections at once. */
  MAX_CONNECTIONS: count(10_000),
  TRPC_MAX_BATCH_SIZE: count(10),
  REQUEST_TIMEOUT_MS: count(10_000),
  CONNECTION_TIMEOUT_MS: count(30_000),
  DB_STATEMENT_TIMEOUT_MS: count(5_000),
  DB_POOL_ACQUIRE_TIMEOUT_MS: count(3_000),
  /**
   * On SIGTERM, how long the API keeps serving while `/ready` answers 503, before it stops
   * accepting: long enough for the load balancer's health check to take it out (deploy/haproxy.cfg
   * checks every 1 s and needs 2 failures, so 5 s leaves room). 0 in a setup without one.
   */
  SHUTDOWN_DRAIN_MS: count(5_000, 0),
  /** The merchants' request log (observability/request-log.ts); `off` writes none (an incident lever). */
  REQUEST_LOG: z.preprocess(unsetIfEmpty, z.enum(['on', 'off']).default('on')),
  /** Request-log entries one organization writes a UTC day (a tenth on reduced budgets); past it they are dropped and counted. */
  REQUEST_LOG_ROWS_PER_DAY: count(200_000),
  /** Prometheus metrics (`GET /metrics`) on a listener of their own; unset: no listener. */
  METRICS_PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).optional()),
  /** Loopback unless set (`0.0.0.0` in a container scraped from outside it). */
  METRICS_HOST: optional(z.string()),
  /** Traces over OTLP/HTTP to this base URL (`/v1/traces` is added); unset: tracing off, no SDK loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(z.url({ protocol: /^https?$/ })),
  OTEL_SERVICE_NAME: optional(
    z
      .string()
      .max(100)
      .regex(/^[^\r\n]+$/, 'must be one line'),
  ),
  /**
   * The `obie` provider's sandbox bank connection: the bank's `client.json` (default
   * `$SANDBOX_BANK_DATA_DIR/client.json`, else `.data/sandbox-bank/client.json`, which the sandbox
   * bank writes on every start). `OBIE=off` configures no obie connection at all.
   */
  OBIE: z.preprocess(unsetIfEmpty, z.enum(['on', 'off']).default('on')),
  OBIE_SANDBOX_CLIENT_FILE: optional(z.string()),
  /**
   * The `nextgenpsd2` provider's sandbox bank connection (Sandbox Bank EU): the bank's
   * `xs2a-client.json` beside obie's `client.json`. `NEXTGENPSD2=off` configures none.
   */
  NEXTGENPSD2: z.preprocess(unsetIfEmpty, z.enum(['on', 'off']).default('on')),
  NEXTGENPSD2_SANDBOX_CLIENT_FILE: optional(z.string()),
  SANDBOX_BANK_DATA_DIR: optional(z.string()),
  /** Set by the root `npm start` when it starts the sandbox bank beside the service. */
  SANDBOX_BANK_STARTED_BESIDE: optional(z.string()),
  /**
   * Outgoing mail (account emails): `smtp://user:pass@host:587` or `smtps://...:465`. Unset:
   * `npm start` runs MailDev on loopback (MAILDEV_SMTP_PORT, inbox on MAILDEV_WEB_PORT).
   */
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')),
  MAIL_FROM: optional(
    z
      .string()
      .max(200)
      .regex(/^[^\r\n]+$/, 'must be one line'),
  ),
  MAILDEV_SMTP_PORT: port(1025),
  MAILDEV_WEB_PORT: port(1080),
  /**
   * Behind a load balancer: its addresses/CIDRs (comma-separated) or a hop count, so the client
   * address comes from X-Forwarded-For: per-address rate limits count it, and a bank that asks
   * the customer's address (nextgenpsd2's PSU-IP-Address) is told it. Unset: the socket's
   * address. Prefer the addresses: a hop count too high believes the client's own header.
   */
  TRUST_PROXY: optional(
    z
      .string()
      .regex(/^(\d+|[0-9a-fA-F.:/]+(,\s*[0-9a-fA-F.:/]+)*)$/, 'must be a hop count or addresses/CIDRs'),
  ),
});

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL'];

/** Requests allowed per window, each counted across every instance (see rate-limits/). */
export interface RateLimitConfig {
  enabled: boolean;
  windowSeconds: number;
  /**
   * Per organization, across all its keys and every instance: GETs and writes have budgets of
   * their own (a polling loop does not block creates). The defaults; an organization's own
   * (self-serve sign-up: a tenth, org:set-limits) are in rate-limits/organization-budgets.ts.
   */
  apiReads: number;
  apiWrites: number;
  /** Per client address on the customer pages (/trpc pages.*), which have no key. */
  pages: number;
  /** Per organization, across its dashboard sessions: every signed-in call (a batch counts each call). */
  dashboard: number;
  /**
   * Waiting reads (Prefer: wait, the dashboard's live page) one organization may hold at once
   * across every process on the database, whatever its keys and sessions: a wait holds memory for
   * up to 60 s. The other processes' counts are about a second old (payments/waiting-read-counts.ts).
   * Beyond it (or beyond `waitsPerProcess`) a read answers at once.
   */
  waitsPerOrganization: number;
  /** Waiting reads the whole process holds at once: the ceiling no number of organizations passes. */
  waitsPerProcess: number;
  /** Self-serve sign-ups per client address per hour. */
  signUpsPerAddress: number;
  /**
   * Password attempts per client address per 15 minutes, each kind (sign-in and sign-up,
   * reset requests, two-step codes) counted apart; always on, even with RATE_LIMITS=off.
   */
  signInsPerAddress: number;
}

export interface TimeoutConfig {
  /** Whole request (headers and body) received within this, else 408 and the socket closes. */
  requestMs: number;
  /**
   * A socket with no traffic either way for this long is closed, before its first request and
   * between requests (keep-alive) alike.
   */
  connectionMs: number;
  /** Postgres `statement_timeout` for the service's pool. */
  statementMs: number;
  /** Longest wait for a pooled connection before the request is answered 503. */
  poolAcquireMs: number;
}

export interface MailConfig {
  /** Where mail goes (nodemailer); undefined: nowhere configured (main.ts starts MailDev instead). */
  smtpUrl: string | undefined;
  /** The From header of every mail. */
  from: string;
  /** MailDev's ports when it stands in for SMTP_URL (loopback only). */
  devInbox: { smtpPort: number; webPort: number };
}

export interface Config {
  /** External Postgres; undefined means "start or reuse the embedded cluster". */
  databaseUrl: string | undefined;
  port: number;
  /** 127.0.0.1 by default: a dev machine should not expose the service to its network by accident. */
  host: string;
  /** Origin used in links sent to customers and in the OpenAPI `servers`; no trailing slash. */
  publicBaseUrl: string;
  /** Signs new customer links (and verifies them). */
  linkSigningSecret: string;
  /**
   * During a rotation, the secret that signed links still in customers' hands: they verify until
   * they expire (at most an hour), then the variable can go.
   */
  previousLinkSigningSecret?: string | undefined;
  logLevel: LogLevel;
  runWorker: boolean;
  embeddedPgDir: string;
  embeddedPgPort: number;
  hostedPagesEnabled: boolean;
  /** Apply migrations and install pg-boss's schema on start (the database role must own them). */
  migrateOnStart: boolean;
  rateLimits: RateLimitConfig;
  /** Calls per tRPC batch request; more is a 400. */
  trpcMaxBatchSize: number;
  timeouts: TimeoutConfig;
  /** Open sockets accepted at once (`server.maxConnections`); beyond it a new one is closed. */
  maxConnections: number;
  /** Fastify's `trustProxy`: false, a hop count, or addresses/CIDRs of the proxies. */
  trustProxy: false | number | string[];
  /** SIGTERM: serve this long while not ready, then stop (lifecycle/http-drain.ts). */
  shutdownDrainMs: number;
  /** Whether /api requests are written to the merchants' request log. */
  requestLog: boolean;
  /** Entries one organization may write to it a UTC day (observability/request-log.ts). */
  requestLogRowsPerDay: number;
  /** Where `GET /metrics` listens (observability/metrics-server.ts); undefined: nowhere. */
  metrics: { host: string; port: number } | undefined;
  /** OTLP trace export (OTEL_EXPORTER_OTLP_ENDPOINT); undefined: tracing off. */
  tracing: { endpoint: string; serviceName: string } | undefined;
  /** Built SPA (may be missing: the API still runs). */
  webDistDir: string;
  mail: MailConfig;
  dataDir: string;
  /** The `obie` provider's bank connections, one per ASPSP (an empty list: obie is not configured). */
  obieConnections: ObieConnectionConfig[];
  /** The `nextgenpsd2` provider's bank connections (an empty list: it is not configured). */
  nextgenpsd2Connections: BankConnectionConfig[];
}

/**
 * One ASPSP connection of the `obie` provider. `clientFile` is read (with `readObieClient`) when
 * the adapter first connects, not at start: the sandbox bank started beside the service by
 * `npm start` rewrites it on its own start, which may finish after ours.
 */
export interface BankConnectionConfig {
  /** Our bank id (GET /banks) for this ASPSP. */
  bankId: string;
  name: string;
  clientFile: string;
}
export type ObieConnectionConfig = BankConnectionConfig;

const ObieClientSchema = z.object({
  issuer: z.url(),
  apiBase: z.url(),
  standardVersion: z.string(),
  clientId: z.string().min(1),
  redirectUris: z.array(z.url()).min(1),
  signingKey: z.object({
    kid: z.string().min(1),
    alg: z.literal('PS256'),
    privateJwk: z.record(z.string(), z.unknown()),
  }),
  bankSigningKeys: z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1) }),
  transport: z.object({
    certificatePem: z.string().min(1),
    privateKeyPem: z.string().min(1),
    caCertificatePem: z.string().min(1),
  }),
});
/** An ASPSP connection's client configuration (the sandbox bank's client.json format). */
export type ObieClient = z.infer<typeof ObieClientSchema>;

/** Reads and checks a connection's client file; the error names the file, never its content. */
export function readObieClient(file: string): ObieClient {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`obie connection: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  const parsed = ObieClientSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) {
    throw new ConfigError(
      `obie connection: ${file} is not a client configuration (${parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`,
    );
  }
  return parsed.data;
}

/**
 * The sandbox bank's connection, when there is one to use: its client file exists, or the bank
 * is being started beside the service (root `npm start`, SANDBOX_BANK not off) and writes it.
 */
function sandboxConnection(
  e: z.infer<typeof EnvSchema>,
  dataDir: string,
  fileName: string,
  given: string | undefined,
  bank: Omit<BankConnectionConfig, 'clientFile'>,
): BankConnectionConfig[] {
  const clientFile = path.resolve(
    given ?? path.join(e.SANDBOX_BANK_DATA_DIR ?? path.join(dataDir, 'sandbox-bank'), fileName),
  );
  const bankStartsBeside = e.SANDBOX_BANK_STARTED_BESIDE === '1';
  if (!existsSync(clientFile) && !bankStartsBeside) return [];
  return [{ ...bank, clientFile }];
}

const obieConnectionsOf = (e: z.infer<typeof EnvSchema>, dataDir: string): ObieConnectionConfig[] =>
  e.OBIE === 'off'
    ? []
    : sandboxConnection(e, dataDir, 'client.json', e.OBIE_SANDBOX_CLIENT_FILE, {
        bankId: 'obie-sandbox-bank',
        name: 'Sandbox Bank (Open Banking)',
      });

const nextgenpsd2ConnectionsOf = (e: z.infer<typeof EnvSchema>, dataDir: string): BankConnectionConfig[] =>
  e.NEXTGENPSD2 === 'off'
    ? []
    : sandboxConnection(e, dataDir, 'xs2a-client.json', e.NEXTGENPSD2_SANDBOX_CLIENT_FILE, {
        bankId: 'sandbox-bank-eu',
        name: 'Sandbox Bank EU',
      });

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws ConfigError naming each bad variable (never echoing a value). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, dataDir: string = DATA_DIR): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.LINK_SIGNING_SECRET && e.LINK_SIGNING_SECRET_FILE) {
    throw new ConfigError(
      'Invalid environment:\n  LINK_SIGNING_SECRET_FILE: set it or LINK_SIGNING_SECRET, not both',
    );
  }
  const linkSigningSecret = e.LINK_SIGNING_SECRET_FILE
    ? secretFromFile('LINK_SIGNING_SECRET_FILE', e.LINK_SIGNING_SECRET_FILE, 32)
    : e.LINK_SIGNING_SECRET;
  const databaseUrl = withPasswordFile(e.DATABASE_URL, e.DATABASE_PASSWORD_FILE);
  if (databaseUrl && linkSigningSecret === undefined) {
    // A secret generated into a local folder differs per machine: a link signed by one replica
    // would be refused by the next.
    throw new ConfigError(
      'Invalid environment:\n  LINK_SIGNING_SECRET: is required when DATABASE_URL is set (every instance must sign customer links with the same secret; or LINK_SIGNING_SECRET_FILE)',
    );
  }
  if (e.LINK_SIGNING_SECRET_PREVIOUS && linkSigningSecret === undefined) {
    throw new ConfigError(
      'Invalid environment:\n  LINK_SIGNING_SECRET_PREVIOUS: needs LINK_SIGNING_SECRET (the new secret) beside it',
    );
  }
  return {
    databaseUrl,
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    linkSigningSecret: linkSigningSecret ?? persistedSecret(dataDir, 'link-signing-secret'),
    previousLinkSigningSecret: e.LINK_SIGNING_SECRET_PREVIOUS,
    logLevel: e.LOG_LEVEL,
    runWorker: e.RUN_WORKER,
    embeddedPgDir: path.resolve(e.EMBEDDED_PG_DIR ?? path.join(dataDir, 'postgres')),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    hostedPagesEnabled: e.HOSTED_PAGES_ENABLED,
    migrateOnStart: e.MIGRATE_ON_START,
    rateLimits: {
      enabled: e.RATE_LIMITS === 'on',
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      apiReads: e.RATE_LIMIT_API_READS,
      apiWrites: e.RATE_LIMIT_API_WRITES,
      pages: e.RATE_LIMIT_PAGES,
      dashboard: e.RATE_LIMIT_DASHBOARD,
      waitsPerOrganization: e.RATE_LIMIT_WAITS_PER_ORGANIZATION,
      waitsPerProcess: e.WAITS_PER_PROCESS,
      signUpsPerAddress: e.RATE_LIMIT_SIGN_UPS,
      signInsPerAddress: e.RATE_LIMIT_SIGN_INS,
    },
    trpcMaxBatchSize: e.TRPC_MAX_BATCH_SIZE,
    timeouts: {
      requestMs: e.REQUEST_TIMEOUT_MS,
      connectionMs: e.CONNECTION_TIMEOUT_MS,
      statementMs: e.DB_STATEMENT_TIMEOUT_MS,
      poolAcquireMs: e.DB_POOL_ACQUIRE_TIMEOUT_MS,
    },
    maxConnections: e.MAX_CONNECTIONS,
    trustProxy: trustProxyOf(e.TRUST_PROXY),
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    requestLog: e.REQUEST_LOG === 'on',
    requestLogRowsPerDay: e.REQUEST_LOG_ROWS_PER_DAY,
    metrics:
      e.METRICS_PORT === undefined
        ? undefined
        : { host: e.METRICS_HOST ?? '127.0.0.1', port: e.METRICS_PORT },
    tracing:
      e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
        ? undefined
        : {
            endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
            serviceName: e.OTEL_SERVICE_NAME ?? 'payment-initiation-service',
          },
    webDistDir: path.join(REPO_ROOT, 'web', 'dist'),
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM ?? 'Payment Initiation Service <no-reply@localhost>',
      devInbox: { smtpPort: e.MAILDEV_SMTP_PORT, webPort: e.MAILDEV_WEB_PORT },
    },
    dataDir,
    obieConnections: obieConnectionsOf(e, dataDir),
    nextgenpsd2Connections: nextgenpsd2ConnectionsOf(e, dataDir),
  };
}

/** A secret file's content, trimmed; a ConfigError names the variable, never the content. */
function secretFromFile(variable: string, file: string, minLength = 1): string {
  let value: string;
  try {
    value = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `Invalid environment:\n  ${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (value.length < minLength) {
    throw new ConfigError(
      `Invalid environment:\n  ${variable}: the file must hold at least ${minLength} characters`,
    );
  }
  return value;
}

function withPasswordFile(url: string | undefined, passwordFile: string | undefined): string | undefined {
  if (!passwordFile) return url;
  if (!url) throw new ConfigError('Invalid environment:\n  DATABASE_PASSWORD_FILE: needs DATABASE_URL');
  const parsed = new URL(url);
  if (parsed.password) {
    throw new ConfigError(
      'Invalid environment:\n  DATABASE_PASSWORD_FILE: DATABASE_URL already has a password',
    );
  }
  parsed.password = encodeURIComponent(secretFromFile('DATABASE_PASSWORD_FILE', passwordFile));
  return parsed.toString();
}

function trustProxyOf(value: string | undefined): Config['trustProxy'] {
  if (value === undefined) return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((part) => part.trim());
}

/**
 * A random secret generated on first use and kept in the data folder, so links signed by the
 * server stay valid across restarts and for the CLI/worker. `wx` makes concurrent first starts
 * agree on one value. Production sets the variable instead.
 */
export function persistedSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

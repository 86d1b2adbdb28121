import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
const port = (fallback: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).default(fallback));

const EnvSchema = z.object({
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')),
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
});

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL'];

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
  /** Built SPA (may be missing: the API still runs). */
  webDistDir: string;
  dataDir: string;
}

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
  const linkSigningSecret = e.LINK_SIGNING_SECRET;
  if (e.DATABASE_URL && linkSigningSecret === undefined) {
    // A secret generated into a local folder differs per machine: a link signed by one replica
    // would be refused by the next.
    throw new ConfigError(
      'Invalid environment:\n  LINK_SIGNING_SECRET: is required when DATABASE_URL is set (every instance must sign customer links with the same secret)',
    );
  }
  if (e.LINK_SIGNING_SECRET_PREVIOUS && linkSigningSecret === undefined) {
    throw new ConfigError(
      'Invalid environment:\n  LINK_SIGNING_SECRET_PREVIOUS: needs LINK_SIGNING_SECRET (the new secret) beside it',
    );
  }
  return {
    databaseUrl: e.DATABASE_URL,
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
    webDistDir: path.join(REPO_ROOT, 'web', 'dist'),
    dataDir,
  };
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

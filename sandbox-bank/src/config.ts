import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The bank's one configuration module: nothing else reads `process.env`. The bank shares no
 * code or configuration with the service; it is configured as a separate product would be.
 */

const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `<repo>/.data/sandbox-bank`: beside the service's `.data/`, gitignored. */
export const DEFAULT_DATA_DIR = path.join(PACKAGE_DIR, '..', '.data', 'sandbox-bank');

/** Customer pages on plain http; the provider-facing API (mTLS) on the next port. */
export const DEFAULT_PORT = 3300;
export const DEFAULT_PG_PORT = 54339;
/**
 * Where the service runs (its callback and notification routes, issue 19): by default what
 * `npm start` gives the service, read from the service's own PUBLIC_BASE_URL / PORT variables
 * (names only: the bank shares no code with the service).
 */
export const DEFAULT_CLIENT_BASE_URL = 'http://localhost:3000';

const unset = (value: unknown) => (value === '' ? undefined : value);
const port = (fallback: number) =>
  z.preprocess(unset, z.coerce.number().int().min(0).max(65535).default(fallback));
const millis = (fallback: number) => z.preprocess(unset, z.coerce.number().int().min(0).default(fallback));

const EnvSchema = z.object({
  SANDBOX_BANK_PORT: port(DEFAULT_PORT),
  SANDBOX_BANK_API_PORT: z.preprocess(unset, z.coerce.number().int().min(0).max(65535).optional()),
  SANDBOX_BANK_DATA_DIR: z.preprocess(unset, z.string().optional()),
  SANDBOX_BANK_DATABASE_URL: z.preprocess(
    unset,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
  ),
  DATABASE_URL: z.preprocess(
    unset,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
  ),
  SANDBOX_BANK_PG_PORT: port(DEFAULT_PG_PORT),
  SANDBOX_BANK_CLIENT_BASE_URL: z.preprocess(unset, z.url().optional()),
  PUBLIC_BASE_URL: z.preprocess(unset, z.url().optional()),
  PORT: z.preprocess(unset, z.coerce.number().int().min(1).max(65535).optional()),
  /** Comma-separated; default: the service's `/providers/obie/callback`. */
  SANDBOX_BANK_REDIRECT_URIS: z.preprocess(unset, z.string().optional()),
  /** Where event notifications go; `off` sends none. */
  SANDBOX_BANK_EVENT_URL: z.preprocess(unset, z.string().optional()),
  /** Time between two payment steps (RCVD -> ACSP -> ACSC): 1.5 s each completes in about 3 s. */
  SANDBOX_BANK_STEP_MS: millis(1_500),
  /** The authorisation number in the TPP certificate the bank issues for the service (Sandbox Bank EU). */
  SANDBOX_BANK_TPP_ID: z.preprocess(
    unset,
    z
      .string()
      .regex(
        /^PSD[A-Z]{2}-[A-Z]{2,8}-[A-Za-z0-9.-]{1,64}$/,
        'an authorisation number like PSDDE-BAFIN-123456',
      )
      .default('PSDDE-BAFIN-123456'),
  ),
  SANDBOX_BANK_LOG_LEVEL: z.preprocess(
    unset,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type LogLevel = z.infer<typeof EnvSchema>['SANDBOX_BANK_LOG_LEVEL'];

export interface BankConfig {
  /** Listen address: loopback only, this is a practice bank. */
  host: string;
  port: number;
  apiPort: number;
  dataDir: string;
  /** External Postgres (own schema `sandbox_bank`); undefined: the bank's own embedded cluster. */
  databaseUrl: string | undefined;
  embeddedPgPort: number;
  redirectUris: string[];
  eventUrl: string | undefined;
  stepMs: number;
  logLevel: LogLevel;
  /** The client id the bank registers for the service (the `obie` connection). */
  clientId: string;
  /** Sandbox Bank EU: the authorisation number of the TPP certificate made for the service. */
  tppId: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): BankConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment for the sandbox bank:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const clientBase = (
    e.SANDBOX_BANK_CLIENT_BASE_URL ??
    e.PUBLIC_BASE_URL ??
    (e.PORT ? `http://localhost:${e.PORT}` : DEFAULT_CLIENT_BASE_URL)
  ).replace(/\/+$/, '');
  const redirectUris = (e.SANDBOX_BANK_REDIRECT_URIS ?? `${clientBase}/providers/obie/callback`)
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean);
  const eventUrl = e.SANDBOX_BANK_EVENT_URL ?? `${clientBase}/api/providers/obie/event-notifications`;
  return {
    host: '127.0.0.1',
    port: e.SANDBOX_BANK_PORT,
    apiPort: e.SANDBOX_BANK_API_PORT ?? (e.SANDBOX_BANK_PORT === 0 ? 0 : e.SANDBOX_BANK_PORT + 1),
    dataDir: path.resolve(e.SANDBOX_BANK_DATA_DIR ?? DEFAULT_DATA_DIR),
    databaseUrl: e.SANDBOX_BANK_DATABASE_URL ?? e.DATABASE_URL,
    embeddedPgPort: e.SANDBOX_BANK_PG_PORT,
    redirectUris,
    eventUrl: eventUrl === 'off' ? undefined : eventUrl,
    stepMs: e.SANDBOX_BANK_STEP_MS,
    logLevel: e.SANDBOX_BANK_LOG_LEVEL,
    clientId: 'pis-obie',
    tppId: e.SANDBOX_BANK_TPP_ID,
  };
}

/** `npm start` of the repository starts the bank beside the service unless SANDBOX_BANK=off. */
export function sandboxBankWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SANDBOX_BANK !== 'off';
}

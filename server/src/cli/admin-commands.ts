import { parseArgs } from 'node:util';
import { ApiKeyName, ApiKeyPermission, Email, NewPassword, PAYMENT_MODES, ProviderCode } from '@pis/shared';
import { z } from 'zod';
import { permissionsFrom } from '../auth/api-keys.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * Only the types of the operator actions: the module (and the ORM behind it) is loaded by
 * admin.ts after the command line is valid, so a typo is answered at once.
 */
type AdminActions = typeof import('./admin-actions.ts');

/** A mistake in the command line: printed with the usage, exit code 2, nothing touched. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Run = (
  actions: AdminActions,
  em: EntityManager,
  config: Config,
) => Promise<Record<string, unknown>>;

type Options = Record<string, { type: 'string' }>;

interface Command {
  usage: string;
  options: Options;
  /** Validates everything that needs no database, then returns the action. */
  prepare(values: Record<string, string | undefined>, clock: Clock): Run;
}

const Id = z.string().trim().min(1).max(100);
/** A key id or the key itself (`pis_` + 48 characters). */
const KeyReference = z.string().trim().min(1).max(100);
const Name = z.string().trim().min(1, 'must not be empty').max(200);
const Mode = z.enum(PAYMENT_MODES);
const Bool = z.enum(['true', 'false']).transform((value) => value === 'true');
const PermissionList = z
  .string()
  .transform((text) => text.split(',').map((part) => part.trim()))
  .pipe(z.array(ApiKeyPermission).min(1))
  .transform(permissionsFrom);
/** Comma-separated; an empty value clears the list. */
const OriginList = z.string().transform((text) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== ''),
);
/** A budget: a whole number, or `default` (the configured default again). */
const Budget = z.union([
  z.literal('default').transform(() => null),
  z.coerce.number().int('must be a whole number or "default"').min(1).max(1_000_000_000),
]);
const ExpiresAt = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((text) => new Date(text));

function value<T>(schema: z.ZodType<T>, values: Record<string, string | undefined>, name: string): T {
  const raw = values[name];
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new UsageError(`--${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  return parsed.data;
}

export const COMMANDS: Record<string, Command> = {
  'org:create': {
    usage: 'org:create --name NAME',
    options: { name: { type: 'string' } },
    prepare: (values, clock) => {
      const name = value(Name, values, 'name');
      return (actions, em) => actions.createOrganization(em, name, clock);
    },
  },
  'org:set-active': {
    usage: 'org:set-active --org ID --active true|false',
    options: { org: { type: 'string' }, active: { type: 'string' } },
    prepare: (values) => {
      const org = value(Id, values, 'org');
      const active = value(Bool, values, 'active');
      return (actions, em) => actions.setOrganizationActive(em, org, active);
    },
  },
  'org:set-limits': {
    usage:
      "org:set-limits --org ID [--api-reads N|default] [--api-writes N|default] [--waits N|default]   (lifts a sign-up's reduced budgets)",
    options: {
      org: { type: 'string' },
      'api-reads': { type: 'string' },
      'api-writes': { type: 'string' },
      waits: { type: 'string' },
    },
    prepare: (values) => {
      const org = value(Id, values, 'org');
      const optional = (name: string) =>
        values[name] === undefined ? undefined : value(Budget, values, name);
      const limits = {
        apiReads: optional('api-reads'),
        apiWrites: optional('api-writes'),
        waits: optional('waits'),
      };
      return (actions, em, config) => actions.setOrganizationLimits(em, org, limits, config.rateLimits);
    },
  },
  'org:approve-provider': {
    usage: 'org:approve-provider --org ID --provider CODE',
    options: { org: { type: 'string' }, provider: { type: 'string' } },
    prepare: (values, clock) => {
      const org = value(Id, values, 'org');
      const provider = value(ProviderCode, values, 'provider');
      return (actions, em) => actions.approveProvider(em, org, provider, clock);
    },
  },
  'org:verify': {
    usage:
      'org:verify --org ID [--verified true|false]   (its brand on its customer pages; false: withdraws it)',
    options: { org: { type: 'string' }, verified: { type: 'string' } },
    prepare: (values, clock) => {
      const org = value(Id, values, 'org');
      const verified = values.verified === undefined ? true : value(Bool, values, 'verified');
      return (actions, em) => actions.verifyOrganization(em, org, verified, clock);
    },
  },
  'org:set-return-origins': {
    usage:
      'org:set-return-origins --org ID --origins https://a.example,https://b.example (empty: any origin)',
    options: { org: { type: 'string' }, origins: { type: 'string' } },
    prepare: (values) => {
      const org = value(Id, values, 'org');
      const origins = value(OriginList, values, 'origins');
      // The origins themselves are checked by the domain function (VALIDATION_FAILED, exit 2).
      return (actions, em) => actions.setAllowedReturnOrigins(em, org, origins);
    },
  },
  'key:create': {
    usage:
      'key:create --org ID --permissions read|write|read,write [--name NAME] [--expires-at ISO-8601] [--mode test|live]',
    options: {
      org: { type: 'string' },
      permissions: { type: 'string' },
      name: { type: 'string' },
      'expires-at': { type: 'string' },
      mode: { type: 'string' },
    },
    prepare: (values, clock) => {
      const org = value(Id, values, 'org');
      const permissions = value(PermissionList, values, 'permissions');
      const name = values.name === undefined ? undefined : value(ApiKeyName, values, 'name');
      const expiresAt =
        values['expires-at'] === undefined ? undefined : value(ExpiresAt, values, 'expires-at');
      // Test unless asked; a live key only for an organization approved for a real provider.
      const mode = values.mode === undefined ? undefined : value(Mode, values, 'mode');
      // A past date is allowed on purpose: an already-expired key lets a merchant's tests
      // check their handling of 401 "Invalid API key".
      return (actions, em) =>
        actions.createKey(em, { organizationId: org, permissions, expiresAt, name, mode }, clock);
    },
  },
  'key:list': {
    usage: 'key:list --org ID',
    options: { org: { type: 'string' } },
    prepare: (values, clock) => {
      const org = value(Id, values, 'org');
      return (actions, em) => actions.listKeys(em, org, clock);
    },
  },
  'key:revoke': {
    usage: 'key:revoke --key KEY_ID|API_KEY',
    options: { key: { type: 'string' } },
    prepare: (values, clock) => {
      const key = value(KeyReference, values, 'key');
      return (actions, em) => actions.revokeKey(em, key, clock);
    },
  },
  'user:create': {
    usage: 'user:create --org ID --email EMAIL [--password PASSWORD]',
    options: { org: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    prepare: (values, clock) => {
      const org = value(Id, values, 'org');
      const email = value(Email, values, 'email');
      const password = values.password === undefined ? undefined : value(NewPassword, values, 'password');
      return (actions, em) =>
        actions.createDashboardUser(em, { organizationId: org, email, password }, clock);
    },
  },
  'mail:failures': {
    usage: 'mail:failures [--limit N]   (mail that could not be sent after every retry, newest first)',
    options: { limit: { type: 'string' } },
    prepare: (values) => {
      const limit =
        values.limit === undefined ? 50 : value(z.coerce.number().int().min(1).max(1000), values, 'limit');
      return async (actions, em) => ({ failures: await actions.failedMail(em, limit) });
    },
  },
};

export const USAGE = [
  'Usage: npm run -s admin -- <command> [options]',
  '',
  ...Object.values(COMMANDS).map((command) => `  ${command.usage}`),
  '',
  'Prints one JSON object on stdout. Bad arguments or an unknown organization/key: message on stderr, exit 2.',
].join('\n');

/** Parses and validates a command line; throws UsageError before any database work. */
export function prepareCommand(argv: readonly string[], clock: Clock): Run {
  const [name, ...rest] = argv;
  if (!name) throw new UsageError('a command is required');
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command: ${name}`);
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n  usage: ${command.usage}`);
  }
  return command.prepare(values as Record<string, string | undefined>, clock);
}

import { AppError, MESSAGES, MOCK_PROVIDER, type PaymentMode } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { preparedQuery } from '../db/prepared-query.ts';
import type { Logger } from '../logger.ts';
import { type BudgetSettings, budgetSettingsOfRow } from '../rate-limits/organization-budgets.ts';
import { rateLimitHitCtes } from '../rate-limits/rate-limit-store.ts';
import { type ApiKeyCache, noApiKeyCache } from './api-key-cache.ts';
import { hashApiKey, prefixOf } from './api-key-secret.ts';

export type Permission = 'read' | 'write';

/** Who is calling, as every authenticated procedure sees it. */
export interface Caller {
  organizationId: string;
  apiKeyId: string;
  /** Always contains `mock`, then the operator-approved providers. */
  approvedProviders: string[];
  permissions: Record<Permission, boolean>;
  /** The key's mode: it sees only that mode's payments (docs/decisions/072-live-and-test-modes.md). */
  mode: PaymentMode;
  /** The organization's budget settings (its limits: rate-limits/organization-budgets.ts). */
  budgets: BudgetSettings;
  /** Where its payments may send the customer back (empty: any origin; organizations/return-origins.ts). */
  allowedReturnOrigins: readonly string[];
}

/**
 * A read that rides on the key lookup's round trip (one query instead of two on the hottest
 * read, GET /payments/{id}): a scalar subquery that scopes itself with the key's
 * `k.organization_id`. The lookup is by the key's hash, so the subquery runs only for a key
 * whose whole secret matched: a wrong secret reads no row of the organization (see the
 * auth tests). Its value is handed over only once the key has passed every check.
 */
export interface KeyPreload {
  /** Names the prepared statement; one per distinct `sql`. */
  name: string;
  sql: string;
  values: unknown[];
}

/**
 * Counts the request in the rate-limit store in the same round trip as the key lookup (a
 * data-modifying CTE), and only for a key that passes every check below, permission included:
 * a wrong, revoked or expired key, an inactive organization or a missing permission spends
 * nobody's budget. `key` is the counted key's prefix; the key's organization id follows it (a
 * budget is the organization's, whichever of its keys is used: more keys bring no more requests).
 */
export interface KeyCount {
  key: string;
  windowSeconds: number;
}

/** The count's outcome, as the rate-limit store's `rate_hit` returns it. */
export interface KeyCountHit {
  hits: number;
  reset_seconds: number;
}

/**
 * The spec's Authentication table: no key, unknown, revoked or expired -> 401 `Invalid API key`
 * (one message for all, so a caller learns nothing about which keys exist); inactive
 * organization -> 403; a key without `permission` -> 403.
 * `preloaded` is the preload's value (null when it found nothing), undefined without one;
 * `counted` the count's outcome, undefined without one.
 */
export async function authenticateApiKey(
  em: EntityManager,
  presented: string | string[] | undefined,
  clock: Clock,
  permission: Permission,
  options: {
    preload?: KeyPreload | undefined;
    count?: KeyCount | undefined;
    logger?: Logger | undefined;
    /** Keys proved before (none by default: every request reads its key). */
    cache?: ApiKeyCache | undefined;
    /** Told the organization of a stored key the presented one matched, before any other check. */
    onKeyFound?: ((organizationId: string) => void) | undefined;
  } = {},
): Promise<{ caller: Caller; preloaded: unknown; counted: KeyCountHit | undefined }> {
  const invalid = () => new AppError('UNAUTHORIZED', MESSAGES.invalidApiKey);
  if (typeof presented !== 'string') throw invalid();
  if (!prefixOf(presented)) throw invalid();
  const { preload, count, cache = noApiKeyCache } = options;
  const now = clock.now();

  // Found by the SHA-256 of the whole key (unique index): equality on a hash of 286 random bits
  // leaks nothing usable through timing, and no other row is touched for a wrong key.
  // When the request need not count (RATE_LIMITS=off), a key this process proved since its
  // organization last changed is taken from the cache instead (api-key-cache.ts) and still goes
  // through every check below; a preload is then not run with it (preloaded stays undefined and
  // the procedure reads on its own, without the key's join). A count reads the key afresh in its
  // own statement.
  const keyHash = hashApiKey(presented);
  const proven = count ? undefined : cache.get(keyHash);
  const generation = cache.generation();
  const [key] = proven
    ? [{ ...proven, revoked_at: null, active: true } satisfies KeyRow]
    : await preparedQuery<KeyRow>(
        em,
        {
          name: `api_key_by_hash${preload ? `_with_${preload.name}` : ''}${count ? `_counting_${permission}` : ''}`,
          sql: keyLookupSql(preload?.sql, count ? permission : undefined),
        },
        [
          keyHash,
          ...(count ? [null, count.windowSeconds, count.key, now.toISOString()] : []),
          ...(preload?.values ?? []),
        ],
      );
  if (!key) throw invalid();
  options.onKeyFound?.(key.organization_id);
  if (key.revoked_at || (key.expires_at && new Date(key.expires_at).getTime() <= now.getTime())) {
    throw invalid();
  }
  if (!key.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);
  if (!proven) {
    const { id, can_read, can_write, expires_at, organization_id, providers, mode } = key;
    const { reduced_budgets, budget_api_reads, budget_api_writes, budget_waits, allowed_return_origins } =
      key;
    cache.put(
      keyHash,
      {
        ...{ id, can_read, can_write, expires_at, organization_id, providers, mode },
        ...{ reduced_budgets, budget_api_reads, budget_api_writes, budget_waits, allowed_return_origins },
      },
      generation,
    );
  }
  const caller: Caller = {
    organizationId: key.organization_id,
    apiKeyId: key.id,
    approvedProviders: [MOCK_PROVIDER, ...key.providers],
    permissions: { read: key.can_read, write: key.can_write },
    mode: key.mode,
    budgets: budgetSettingsOfRow(key),
    allowedReturnOrigins: key.allowed_return_origins ?? [],
  };
  recordKeyUse(em, key.id, now, options.logger);
  requirePermission(caller, permission);
  let counted: KeyCountHit | undefined;
  if (count) {
    // The statement counted under the same conditions as the checks above.
    if (key.rate_hits === null || key.rate_reset_seconds === null) {
      throw new Error('a proven key was not counted');
    }
    counted = { hits: Number(key.rate_hits), reset_seconds: Number(key.rate_reset_seconds) };
  }
  return { caller, preloaded: preload && !proven ? key.preloaded : undefined, counted };
}

/**
 * The key, its organization and approvals, read afresh. Counting (`permission` given) repeats
 * the checks of authenticateApiKey in SQL, with the application's clock for the expiry.
 */
const keyLookupSql = (preloadSql: string | undefined, permission: Permission | undefined) => `
  with k as (
    select k.id, k.can_read, k.can_write, k.expires_at, k.revoked_at, k.organization_id, k.mode, o.active,
      o.reduced_budgets, o.budget_api_reads, o.budget_api_writes, o.budget_waits, o.allowed_return_origins
    from api_key k join organization o on o.id = k.organization_id
    where k.key_hash = ?
  )${
    permission
      ? `, ${rateLimitHitCtes(
          '?::text || proven.organization_id',
          `(select k.organization_id from k where k.revoked_at is null
              and (k.expires_at is null or k.expires_at > ?::timestamptz)
              and k.active and k.can_${permission}) as proven`,
        )}`
      : ''
  }
  select k.id, k.can_read, k.can_write, k.expires_at, k.revoked_at, k.organization_id, k.mode, k.active,
    k.reduced_budgets, k.budget_api_reads, k.budget_api_writes, k.budget_waits, k.allowed_return_origins,
    array(
      select op.provider::text from organization_provider op
      where op.organization_id = k.organization_id order by op.provider
    ) as providers${preloadSql ? `, (${preloadSql}) as preloaded` : ''}${
      permission ? ', rate_hit.hits as rate_hits, rate_hit.reset_seconds as rate_reset_seconds' : ''
    }
  from k${permission ? ' left join rate_hit on true' : ''}`;

interface KeyRow {
  id: string;
  can_read: boolean;
  can_write: boolean;
  /** Timestamps as Postgres text (the ORM's driver leaves them unparsed). */
  expires_at: string | null;
  revoked_at: string | null;
  organization_id: string;
  mode: PaymentMode;
  active: boolean;
  providers: string[];
  reduced_budgets: boolean;
  budget_api_reads: number | null;
  budget_api_writes: number | null;
  budget_waits: number | null;
  allowed_return_origins: string[] | null;
  preloaded?: unknown;
  /** The count's (null when the statement did not count). */
  rate_hits?: number | null;
  rate_reset_seconds?: number | null;
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions[permission]) throw new AppError('FORBIDDEN', MESSAGES.lacksPermission(permission));
}

// ---------------------------------------------------------------------------------------------
// Last used

/**
 * "Last used" for the API keys page, off the request's path: at most one write per key per
 * minute. This process skips keys it wrote less than a minute ago (no round trip at all), and
 * the UPDATE itself only changes a row last written over a minute ago, so many instances
 * together still write a key at most about once a minute. Fired without awaiting: a slow or
 * failed write never delays or fails the API call (it is logged).
 */
const EVERY_MS = 60_000;
/** Forget old entries past this many keys, so the map stays small on a busy instance. */
const MAX_REMEMBERED = 10_000;

const writtenAt = new Map<string, number>();
const inFlight = new Set<Promise<unknown>>();

const RECORD_USE = `update api_key set last_used_at = ?
  where id = ? and (last_used_at is null or last_used_at <= ?::timestamptz - interval '1 minute')`;

export function recordKeyUse(em: EntityManager, apiKeyId: string, now: Date, logger?: Logger): void {
  const last = writtenAt.get(apiKeyId);
  if (last !== undefined && now.getTime() - last < EVERY_MS) return;
  if (writtenAt.size >= MAX_REMEMBERED) writtenAt.clear();
  writtenAt.set(apiKeyId, now.getTime());
  const write = em
    .fork()
    .execute(RECORD_USE, [now, apiKeyId, now], 'run')
    .catch((error: unknown) => logger?.warn({ err: error, apiKeyId }, 'could not record API key use'))
    .finally(() => inFlight.delete(write));
  inFlight.add(write);
}

/** For tests (and a graceful stop): wait for the writes already fired. */
export async function settleKeyUseWrites(): Promise<void> {
  await Promise.all([...inFlight]);
}

/** For tests that move the clock: forget which keys this process wrote recently. */
export function forgetKeyUseWrites(): void {
  writtenAt.clear();
}

import type { PaymentMode } from '@pis/shared';
import { ANY_KEY, CHANNELS, type Notifications } from '../db/notifications.ts';

/** What the key lookup proves about a key (see authenticate-api-key.ts), as the cache keeps it. */
export interface ProvenKey {
  id: string;
  can_read: boolean;
  can_write: boolean;
  /** Postgres text, as the lookup returns it; checked against the clock on every request. */
  expires_at: string | null;
  organization_id: string;
  providers: string[];
  mode: PaymentMode;
  /** The organization's budget settings (a change to them notifies like any organization change). */
  reduced_budgets: boolean;
  budget_api_reads: number | null;
  budget_api_writes: number | null;
  budget_waits: number | null;
  /** The organization's allowed return origins (a change to them notifies too). */
  allowed_return_origins: string[] | null;
}

/**
 * Keys this process proved recently, by the hash of the presented secret, so a request that need
 * not count itself (RATE_LIMITS=off) skips the key lookup: a create runs no statement for its key,
 * a GET reads its payment alone instead of joined to the key (issue 9, issue 32;
 * docs/decisions/005-hot-path-performance.md). A request that counts (the default) reads its key
 * afresh in the counting statement.
 *
 * Only good keys are held (a wrong, revoked or expired key or an inactive organization always
 * goes to the database, so guessing fills nothing), and only while the process's listening
 * connection is up and hears its own heartbeat: the `api_key_changed` triggers notify on every
 * change to a key, an organization or its approved providers (a TRUNCATE: all), on commit, and
 * every process drops that organization's keys when it hears it; the revoking process drops
 * them at once. A connection lost and regained (notifications missed in between) empties the
 * cache; while it is down nothing is served from it. What is left is the time a notification
 * takes to arrive: another process may still accept a just-revoked key for that long
 * (milliseconds), and only on a path that does not count.
 */
export interface ApiKeyCache {
  /** The key, when held, proved since the last change to its organization, and fresh. */
  get(keyHash: string): ProvenKey | undefined;
  /** Pass to `put`: a put after any invalidation since (its read may predate it) is dropped. */
  generation(): number;
  put(keyHash: string, key: ProvenKey, generation: number): void;
  /** Drops every held key of the organization (what a revocation in this process calls at once). */
  dropOrganization(organizationId: string): void;
}

/** Holds nothing: every request reads its key (tests' default, and a process that never listens). */
export const noApiKeyCache: ApiKeyCache = {
  get: () => undefined,
  generation: () => 0,
  put: () => {},
  dropOrganization: () => {},
};

/**
 * Backstop only: a notification is never missed while the connection is up, but a connection
 * can die without a word for a while (a half-open socket); no key is trusted longer than this.
 */
export const KEY_CACHE_TTL_MS = 60_000;
/** Bounded: past this, the oldest entries go first. */
const MAX_KEYS = 10_000;

/** A cache fed by this process's listening connection; resolves once it listens. */
export async function startApiKeyCache(notifications: Notifications): Promise<ApiKeyCache> {
  const cache = createApiKeyCache(() => notifications.connection());
  notifications.subscribe(CHANNELS.apiKeyChanged, ANY_KEY, (organizationId, reason) => {
    // '' is a TRUNCATE's: every organization.
    if (reason === 'reconnected' || organizationId === '') cache.clear();
    else cache.dropOrganization(organizationId);
  });
  await notifications.listening(CHANNELS.apiKeyChanged);
  return cache;
}

/**
 * `connection()`: the listening connection's number, new on every reconnect, or undefined while
 * it is down. An entry is good only under the connection it was put under.
 */
export function createApiKeyCache(
  connection: () => number | undefined,
  now: () => number = performance.now.bind(performance),
): ApiKeyCache & { clear(): void } {
  const held = new Map<string, { key: ProvenKey; connection: number; until: number }>();
  let generation = 0;
  const invalidate = (drop: (entry: ProvenKey) => boolean) => {
    generation += 1;
    for (const [hash, entry] of held) if (drop(entry.key)) held.delete(hash);
  };
  return {
    get(keyHash) {
      const entry = held.get(keyHash);
      if (!entry) return undefined;
      if (entry.connection !== connection() || entry.until <= now()) {
        held.delete(keyHash);
        return undefined;
      }
      return entry.key;
    },
    generation: () => generation,
    put(keyHash, key, since) {
      const current = connection();
      if (current === undefined || since !== generation) return;
      if (held.size >= MAX_KEYS && !held.has(keyHash)) held.delete(held.keys().next().value as string);
      held.set(keyHash, { key, connection: current, until: now() + KEY_CACHE_TTL_MS });
    },
    dropOrganization: (organizationId) => invalidate((key) => key.organization_id === organizationId),
    clear: () => invalidate(() => true),
  };
}

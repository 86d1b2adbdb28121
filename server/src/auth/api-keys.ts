import {
  type ApiKeyEntry,
  type ApiKeyPermission,
  type ApiKeyState,
  AppError,
  type PaymentMode,
  randomId,
  validationFailed,
} from '@pis/shared';
import type { Clock } from '../clock.ts';
import { ApiKey } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { loadOrganization } from '../organizations/organization-admin.ts';
import { generateApiKey, hashApiKey, prefixOf } from './api-key-secret.ts';

/**
 * The one place API keys are created, listed and revoked: the operator CLI, the dashboard, the
 * first-start demo seed and the test factories all come here. A key's secret exists in clear
 * only in `createApiKey`'s answer; nothing here ever returns or logs it again.
 */

export interface Permissions {
  read: boolean;
  write: boolean;
}

/** The permissions as people write them (the CLI's `read,write`, the dashboard's checkboxes). */
export const permissionsFrom = (list: readonly ApiKeyPermission[]): Permissions => ({
  read: list.includes('read'),
  write: list.includes('write'),
});

/** Another organization's key is "not found" too: nobody learns which key ids exist. */
export const apiKeyNotFound = () => new AppError('NOT_FOUND', 'API key not found');
const alreadyRevoked = () => new AppError('API_KEY_ALREADY_REVOKED', 'This API key is already revoked');

export const DEFAULT_KEY_NAME = 'API key';

/**
 * Active keys one organization may hold (issue 24): budgets count per organization, and a
 * bounded number of keys keeps a leaked organization's blast radius and the key cache small.
 */
export const MAX_ACTIVE_KEYS = 25;
const tooManyKeys = () =>
  new AppError(
    'FORBIDDEN',
    `This organization already has ${MAX_ACTIVE_KEYS} active API keys, the most it may hold: revoke one it no longer uses, then create the new one`,
  );

export async function createApiKey(
  em: EntityManager,
  input: {
    organizationId: string;
    permissions: Permissions;
    expiresAt?: Date | undefined;
    name?: string | undefined;
    /** test unless the operator makes a live key (admin CLI `--mode live`). */
    mode?: PaymentMode | undefined;
  },
  clock: Clock,
): Promise<{ apiKeyId: string; apiKey: string; entry: ApiKeyEntry }> {
  // Not forked: sign-up and the demo seed create the organization in the same transaction.
  await loadOrganization(em, input.organizationId);
  // Counted and created under the organization's row lock (a savepoint inside a caller's
  // transaction), so two racing creates cannot both be the 25th. Dashboard and CLI both come here.
  const generated = generateApiKey(input.mode ?? 'test');
  const row = await em.transactional(async (tx) => {
    await tx
      .getConnection()
      .execute(
        'select id from organization where id = ? for update',
        [input.organizationId],
        'all',
        tx.getTransactionContext(),
      );
    const now = clock.now();
    const active = await tx.count(ApiKey, {
      organization: input.organizationId,
      revokedAt: null,
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    });
    if (active >= MAX_ACTIVE_KEYS) throw tooManyKeys();
    const created = tx.create(ApiKey, {
      id: randomId('key'),
      organization: input.organizationId,
      name: input.name ?? DEFAULT_KEY_NAME,
      prefix: generated.prefix,
      keyHash: generated.keyHash,
      mode: input.mode ?? 'test',
      canRead: input.permissions.read,
      canWrite: input.permissions.write,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      createdAt: now,
      lastUsedAt: null,
    });
    await tx.persist(created).flush();
    return created;
  });
  return { apiKeyId: row.id, apiKey: generated.apiKey, entry: toApiKeyEntry(row, clock.now()) };
}

/** The dashboard's form: a future expiry (a past one is the CLI's test aid, see admin-commands). */
export function futureExpiry(expiresAt: string | undefined, clock: Clock): Date | undefined {
  if (expiresAt === undefined) return undefined;
  const date = new Date(expiresAt);
  if (date.getTime() <= clock.now().getTime()) {
    throw validationFailed([{ field: 'expiresAt', message: 'must be in the future' }]);
  }
  return date;
}

/** An organization's keys, newest first, with their state at `now`. */
export async function listApiKeys(
  em: EntityManager,
  organizationId: string,
  now: Date,
): Promise<ApiKeyEntry[]> {
  const rows = await em
    .fork()
    .find(ApiKey, { organization: organizationId }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map((row) => toApiKeyEntry(row, now));
}

/**
 * Revokes a key. `organizationId` scopes it (the dashboard: another organization's key is not
 * found); the operator CLI leaves it out. `reference` is a key id or, for the CLI, the key
 * itself (found by its hash). Revoking twice is refused (409), the first time kept.
 * The next API request with the key is 401: authentication reads the key afresh every time.
 */
export async function revokeApiKey(
  em: EntityManager,
  reference: { apiKeyId: string } | { apiKey: string },
  clock: Clock,
  organizationId?: string,
): Promise<{ apiKeyId: string; revoked: true; entry: ApiKeyEntry }> {
  const fork = em.fork();
  const where =
    'apiKeyId' in reference ? { id: reference.apiKeyId } : { keyHash: hashApiKey(reference.apiKey) };
  const row = await fork.findOne(
    ApiKey,
    organizationId === undefined ? where : { ...where, organization: organizationId },
  );
  if (!row) throw apiKeyNotFound();
  const now = clock.now();
  // Conditional, so two concurrent revocations cannot both succeed.
  const changed = await fork.nativeUpdate(ApiKey, { id: row.id, revokedAt: null }, { revokedAt: now });
  if (changed === 0) throw alreadyRevoked();
  row.revokedAt = now;
  return { apiKeyId: row.id, revoked: true, entry: toApiKeyEntry(row, now) };
}

/** What the operator typed after `--key`: a key (`pis_...`) or a key id. */
export const keyReference = (text: string): { apiKeyId: string } | { apiKey: string } =>
  prefixOf(text) ? { apiKey: text } : { apiKeyId: text };

export function apiKeyState(row: Pick<ApiKey, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyState {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The one mapping from a key row to what people see: never the hash, never the secret. */
export function toApiKeyEntry(row: ApiKey, now: Date): ApiKeyEntry {
  const permissions: ApiKeyPermission[] = [];
  if (row.canRead) permissions.push('read');
  if (row.canWrite) permissions.push('write');
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    mode: row.mode,
    permissions,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    state: apiKeyState(row, now),
  };
}

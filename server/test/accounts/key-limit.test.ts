import { AppError } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createApiKey, MAX_ACTIVE_KEYS, revokeApiKey } from '../../src/auth/api-keys.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';

/** Issue 24, item 6: at most 25 active keys per organization, whichever way a key is made. */
const { app, orm, clock } = await createTestApp();

describe('active API keys per organization', () => {
  test('the 26th is refused with a clear message, from the dashboard and the domain the CLI calls; revoking makes room', async () => {
    const b = new DashboardBrowser(app, '198.19.0.1');
    const owner = await b.signUp();
    const organizationId = owner.organization.id;
    // Created concurrently: the organization's row lock keeps the count exact.
    const results = await Promise.allSettled(
      Array.from({ length: MAX_ACTIVE_KEYS + 3 }, (_, i) =>
        createApiKey(
          orm.em.fork(),
          { organizationId, permissions: { read: true, write: false }, name: `k${i}` },
          clock,
        ),
      ),
    );
    const made = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(made).toHaveLength(MAX_ACTIVE_KEYS);
    expect(refused).toHaveLength(3);
    const reason = (refused[0] as PromiseRejectedResult).reason as AppError;
    expect(reason).toBeInstanceOf(AppError);
    expect(reason.message).toMatch(/already has 25 active API keys.*revoke one/);

    const viaDashboard = await b.mutation('apiKeys.create', { name: 'one too many', permissions: ['read'] });
    expect(failure(viaDashboard, 403).message).toMatch(/already has 25 active API keys/);

    const first = (made[0] as PromiseFulfilledResult<{ apiKeyId: string }>).value.apiKeyId;
    await revokeApiKey(orm.em.fork(), { apiKeyId: first }, clock);
    expect(
      data(await b.mutation('apiKeys.create', { name: 'room again', permissions: ['read'] })),
    ).toBeTruthy();
  });
});

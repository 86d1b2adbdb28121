import type { CreatedApiKey, ReturnOriginSettings } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createApiKeyCache } from '../../src/auth/api-key-cache.ts';
import { Organization } from '../../src/db/entities/index.ts';
import { setAllowedReturnOrigins } from '../../src/organizations/return-origins.ts';
import { expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, createPayment, paymentBody } from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

/** The settings page's allowed return origins (issue 13, item 7: "in the dashboard"). */
const { app, orm } = await createTestApp();

let addresses = 0;
const signedIn = async () => {
  const b = new DashboardBrowser(app, `198.51.100.${++addresses}`);
  const session = await b.signUp();
  return { b, organizationId: session.organization.id };
};
const origins = async (b: DashboardBrowser) =>
  data<ReturnOriginSettings>(await b.query('settings.returnOrigins')).allowedReturnOrigins;
const stored = async (organizationId: string) =>
  (await orm.em.fork().findOneOrFail(Organization, { id: organizationId })).allowedReturnOrigins;
const apiKeyOf = async (b: DashboardBrowser) =>
  data<CreatedApiKey>(await b.mutation('apiKeys.create', { name: 'Shop', permissions: ['read', 'write'] }))
    .secret;

describe('allowed return origins on the settings page', () => {
  test("saved: the process that saved them obeys them from the next create, its cached key's too", async () => {
    // A key cache that never hears a notification: only the save itself can drop the key.
    const deaf = await createTestApp({ apiKeyCache: createApiKeyCache(() => 1) });
    const b = new DashboardBrowser(deaf.app, '198.51.100.250');
    await b.signUp();
    const headers = { 'x-api-key': await apiKeyOf(b) };
    // Cached with no origins set: any origin.
    await created(deaf.app, headers, paymentBody({ redirectUrl: 'https://evil.example/' }));
    data(await b.mutation('settings.setReturnOrigins', { origins: ['https://shop.example'] }));
    const [refused] = await expectValidationFailed(
      await createPayment(deaf.app, headers, paymentBody({ redirectUrl: 'https://evil.example/' })),
    );
    expect(refused?.field).toBe('redirectUrl');
  });

  test('set: stored as origins (spelled as URL.origin, duplicates once), and create payments obey them', async () => {
    const { b, organizationId } = await signedIn();
    expect(await origins(b)).toEqual([]);
    const set = data<ReturnOriginSettings>(
      await b.mutation('settings.setReturnOrigins', {
        origins: ['https://Shop.example/', ' http://localhost:8080 ', 'https://shop.example'],
      }),
    );
    expect(set.allowedReturnOrigins).toEqual(['https://shop.example', 'http://localhost:8080']);
    expect(await origins(b)).toEqual(set.allowedReturnOrigins);
    expect(await stored(organizationId)).toEqual(set.allowedReturnOrigins);

    const headers = { 'x-api-key': await apiKeyOf(b) };
    await created(app, headers, paymentBody({ redirectUrl: 'https://shop.example/return?order=7' }));
    expect(
      await expectValidationFailed(
        await createPayment(app, headers, paymentBody({ redirectUrl: 'https://evil.example/' })),
      ),
    ).toEqual([
      {
        field: 'redirectUrl',
        message:
          "must be on one of your organization's allowed return origins (https://shop.example, http://localhost:8080)",
      },
    ]);

    // Cleared: any origin again.
    expect(
      data<ReturnOriginSettings>(await b.mutation('settings.setReturnOrigins', { origins: [] })),
    ).toEqual({ allowedReturnOrigins: [] });
    expect(await stored(organizationId)).toBeNull();
    await created(app, headers, paymentBody({ redirectUrl: 'https://evil.example/' }));
  });

  test('what the operator CLI set is what the page shows: one column, one domain function', async () => {
    const { b, organizationId } = await signedIn();
    await setAllowedReturnOrigins(orm.em.fork(), organizationId, ['https://cli.example']);
    expect(await origins(b)).toEqual(['https://cli.example']);
  });

  test('what is not an origin: 400 VALIDATION_FAILED with one detail each, nothing changed', async () => {
    const { b, organizationId } = await signedIn();
    data(await b.mutation('settings.setReturnOrigins', { origins: ['https://kept.example'] }));
    const refused = failure(
      await b.mutation('settings.setReturnOrigins', {
        origins: [
          'https://ok.example',
          'https://shop.example/path',
          'shop.example',
          'https://user@shop.example',
        ],
      }),
      400,
    );
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.details?.map((detail) => detail.field)).toEqual(['origins.1', 'origins.2', 'origins.3']);
    expect(refused.details?.[0]?.message).toBe(
      'must be an origin such as https://shop.example (scheme, host and optional port only)',
    );
    const tooMany = failure(
      await b.mutation('settings.setReturnOrigins', {
        origins: Array.from({ length: 21 }, (_, i) => `https://shop${i}.example`),
      }),
      400,
    );
    expect(tooMany.details).toEqual([{ field: 'origins', message: 'must list at most 20 origins' }]);
    // Not a list of strings at all: refused by the input schema.
    failure(await b.mutation('settings.setReturnOrigins', { origins: 'https://a.example' }), 400);
    expect(await stored(organizationId)).toEqual(['https://kept.example']);
  });

  test('needs a session, and its CSRF token to change anything; scoped to the own organization', async () => {
    const { b, organizationId } = await signedIn();
    const other = await signedIn();
    data(await other.b.mutation('settings.setReturnOrigins', { origins: ['https://other.example'] }));

    for (const csrf of [null, 'f'.repeat(64), String(other.b.csrfToken)]) {
      const refused = failure(
        await b.mutation('settings.setReturnOrigins', { origins: ['https://evil.example'] }, { csrf }),
        403,
      );
      expect(refused.message).toBe('Missing or invalid CSRF token: reload the page and try again');
    }
    expect(await stored(organizationId)).toBeNull();

    const anonymous = new DashboardBrowser(app, '198.51.100.250');
    expect(failure(await anonymous.query('settings.returnOrigins'), 401).message).toBe('Not signed in');
    failure(await anonymous.mutation('settings.setReturnOrigins', { origins: [] }), 401);

    // Each sees and sets its own organization's list only.
    expect(await origins(b)).toEqual([]);
    data(await b.mutation('settings.setReturnOrigins', { origins: ['https://mine.example'] }));
    expect(await origins(other.b)).toEqual(['https://other.example']);
    expect(await stored(other.organizationId)).toEqual(['https://other.example']);
  });
});

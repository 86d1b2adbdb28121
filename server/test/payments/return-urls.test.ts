import { describe, expect, test } from 'vitest';
import { setAllowedReturnOrigins } from '../../src/organizations/return-origins.ts';
import { expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, createPayment, paymentBody } from './payment-fixtures.ts';

/** Return URLs that cannot deceive the customer (issue 13, item 7). */
const { app, factories, orm, config } = await createTestApp();
const merchant = await factories.createMerchant();

const refusal = async (redirectUrl: string, headers = merchant.headers) =>
  expectValidationFailed(await createPayment(app, headers, paymentBody({ redirectUrl })));

describe('redirectUrl', () => {
  test('user information is refused, whatever the host looks like', async () => {
    for (const redirectUrl of [
      'https://bank.example@evil.example/',
      'https://user:pass@shop.example/return',
      'http://:secret@shop.example/',
    ]) {
      expect(await refusal(redirectUrl), redirectUrl).toEqual([
        { field: 'redirectUrl', message: 'must not contain user information (the user:password@ part)' },
      ]);
    }
  });

  test("this service's own pages are refused (any path on its public origin); plain http elsewhere is fine", async () => {
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    for (const redirectUrl of [
      'http://localhost:3000/mock-bank/abc',
      'http://localhost:3000/',
      'http://LOCALHOST:3000/pay/x',
      // The fully qualified spelling (trailing dot) names the same host: a different origin
      // string, the same pages.
      'http://localhost.:3000/mock-bank/abc',
      // Other spellings of this machine (issue 24's review): parsed and normalized, they reach
      // the same pages.
      'http://2130706433:3000/pay/x',
      'http://127.1:3000/pay/x',
      'http://[::1]:3000/pay/x',
      'https://localhost:3000/pay/x',
    ]) {
      expect(await refusal(redirectUrl), redirectUrl).toEqual([
        {
          field: 'redirectUrl',
          message: "must point at the merchant's site, not at this payment service's pages",
        },
      ]);
    }
    await created(app, merchant.headers, paymentBody({ redirectUrl: 'http://localhost:3001/done' }));
    await created(app, merchant.headers, paymentBody({ redirectUrl: 'http://shop.example./done' }));
    await created(app, merchant.headers, paymentBody({ redirectUrl: 'http://shop.example/done' }));
  });

  test('allowed return origins: when set, any other origin is refused; cleared, any origin again', async () => {
    const shop = await factories.createMerchant();
    await setAllowedReturnOrigins(orm.em.fork(), shop.organizationId, [
      'https://shop.example',
      'http://localhost:8080',
    ]);
    await created(app, shop.headers, paymentBody({ redirectUrl: 'https://shop.example/return?order=1' }));
    await created(app, shop.headers, paymentBody({ redirectUrl: 'http://localhost:8080/back' }));
    // No redirectUrl at all is still allowed.
    await created(app, shop.headers, paymentBody({ redirectUrl: undefined }));
    for (const redirectUrl of [
      'https://evil.example/',
      'http://shop.example/return',
      'https://shop.example:444/',
      'https://sub.shop.example/',
    ]) {
      expect(await refusal(redirectUrl, shop.headers), redirectUrl).toEqual([
        {
          field: 'redirectUrl',
          message:
            "must be on one of your organization's allowed return origins (https://shop.example, http://localhost:8080)",
        },
      ]);
    }
    // Another organization's list does not apply to this one.
    await created(app, merchant.headers, paymentBody({ redirectUrl: 'https://evil.example/' }));
    await setAllowedReturnOrigins(orm.em.fork(), shop.organizationId, []);
    await created(app, shop.headers, paymentBody({ redirectUrl: 'https://evil.example/' }));
  });

  test('setAllowedReturnOrigins refuses what is not an origin, with one detail each', async () => {
    const error = await setAllowedReturnOrigins(orm.em.fork(), merchant.organizationId, [
      'https://ok.example',
      'https://shop.example/path',
      'shop.example',
      'https://user@shop.example',
      'javascript:alert(1)',
    ]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'VALIDATION_FAILED' });
    expect((error as { details: { field: string }[] }).details.map((detail) => detail.field)).toEqual([
      'origins.1',
      'origins.2',
      'origins.3',
      'origins.4',
    ]);
    await expect(setAllowedReturnOrigins(orm.em.fork(), 'org_missing', [])).rejects.toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});

import { describe, expect, test } from 'vitest';
import { openCustomerLink } from '../../src/links/customer-links.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  getPayment,
  HOUR,
  MINUTE,
  type PaymentData,
  paymentBody,
  post,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcQuery,
} from './payment-fixtures.ts';

const { app, factories, clock, config } = await createTestApp();
const merchant = await factories.createMerchant();
const { headers } = merchant;
const other = await factories.createMerchant();

interface LinkData {
  redirectUrl: string;
  expiresAt: string;
}
const newLink = (paymentId: string, as = headers) => post(app, as, `/api/payments/${paymentId}/link`);
const hostedSession = (url: string) => trpcQuery(app, 'pages.hostedSession', { token: tokenOf(url) });

describe('POST /api/payments/{paymentId}/link', () => {
  test('a hosted payment: 201 with a fresh 1-hour link; the first link keeps its own expiry', async () => {
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const first = openCustomerLink(config, tokenOf(payment.redirectUrl), 'hosted', clock.now());
    clock.advance(50 * MINUTE);
    const link = expectSuccess<LinkData>(await newLink(payment.paymentId), 201);
    expect(new URL(link.redirectUrl).pathname).toMatch(/^\/pay\//);
    expect(Date.parse(link.expiresAt)).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + HOUR);
    const claims = openCustomerLink(config, tokenOf(link.redirectUrl), 'hosted', clock.now());
    expect(claims).toMatchObject({ paymentId: payment.paymentId, purpose: 'hosted' });
    expect(claims.expiresAt.toISOString()).toBe(link.expiresAt);

    // Twenty minutes on, the first link has expired and the new one still opens the page.
    clock.advance(20 * MINUTE);
    expect(trpcFailure(await hostedSession(payment.redirectUrl as string), 410).code).toBe('LINK_EXPIRED');
    expect(first.expiresAt.getTime()).toBeLessThan(clock.now().getTime());
    expect(trpcData<{ paymentId: string }>(await hostedSession(link.redirectUrl)).paymentId).toBe(
      payment.paymentId,
    );
    // Nothing about the payment changed.
    expect(expectSuccess<PaymentData>(await getPayment(app, headers, payment.paymentId)).status).toBe(
      'PENDING',
    );
  });

  test('a mock API_ONLY payment: a new Mock bank link of 30 minutes', async () => {
    const payment = await created(app, headers);
    const link = expectSuccess<LinkData>(await newLink(payment.paymentId), 201);
    expect(new URL(link.redirectUrl).pathname).toMatch(/^\/mock-bank\//);
    expect(Date.parse(link.expiresAt)).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + 30 * MINUTE);
    expect(openCustomerLink(config, tokenOf(link.redirectUrl), 'mock-bank', clock.now()).paymentId).toBe(
      payment.paymentId,
    );
  });

  test('a finished payment: 409 PAYMENT_FINISHED, nothing changed', async () => {
    const cancelled = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    await post(app, headers, `/api/payments/${cancelled.paymentId}/cancel`);
    const completed = await created(app, headers);
    await post(app, headers, `/api/payments/${completed.paymentId}/mock-bank/approve`, {});
    for (const id of [cancelled.paymentId, completed.paymentId]) {
      const failure = expectFailure(await newLink(id), 409);
      expect(failure.code).toBe('PAYMENT_FINISHED');
      expect(failure.message).toMatch(
        /^Payment is (CANCELLED|COMPLETED): a customer link would lead nowhere/,
      );
    }
    // Expired by time, even before the worker has seen it.
    const late = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    clock.advance(25 * HOUR);
    expect(expectFailure(await newLink(late.paymentId), 409)).toMatchObject({
      code: 'PAYMENT_FINISHED',
      message: expect.stringContaining('EXPIRED'),
    });
  });

  test("permission write; another organization's payment is 404; a key is required", async () => {
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const reader = await factories.createKey(merchant.organizationId, 'read');
    expect(expectFailure(await newLink(payment.paymentId, { 'x-api-key': reader.apiKey }), 403).message).toBe(
      'API key lacks write permission',
    );
    expect(expectFailure(await newLink(payment.paymentId, other.headers), 404).message).toBe(
      'Payment not found',
    );
    expectFailure(await app.inject({ method: 'POST', url: `/api/payments/${payment.paymentId}/link` }), 401);
    expectFailure(await newLink('pay_doesnotexist'), 404);
  });
});

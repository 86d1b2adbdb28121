import { describe, expect, test } from 'vitest';
import { prefixOf } from '../../src/auth/api-key-secret.ts';
import { DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, HOUR, type PaymentData, post, readPayment } from './payment-fixtures.ts';

const { app, clock, factories } = await createTestApp();

/** Who made each entry, in order: `type` or `type:name`. */
const actors = (payment: PaymentData) =>
  payment.statusHistory.map((entry) => {
    const actor = (entry as { actor?: { type: string; name?: string } }).actor;
    return actor ? [actor.type, actor.name].filter(Boolean).join(':') : null;
  });

describe('the timeline names who acted (stored on each entry when it is made)', () => {
  test('an API key by its prefix, then the bank for its later steps', async () => {
    const { headers, apiKey } = await factories.createMerchant();
    const prefix = prefixOf(apiKey);
    const { paymentId } = await created(app, headers);
    await post(app, headers, `/api/payments/${paymentId}/mock-bank/approve`, { preset: 'realistic' });
    clock.advance(60_000);
    const payment = await readPayment(app, headers, paymentId);
    expect(payment.status).toBe('COMPLETED');
    // RCVD, PDNG (created with the key), ACTC (approved with the key), ACCP, ACSP, ACSC (the bank).
    expect(actors(payment)).toEqual([
      `api_key:${prefix}`,
      `api_key:${prefix}`,
      `api_key:${prefix}`,
      'bank',
      'bank',
      'bank',
    ]);
    expect(JSON.stringify(payment)).not.toContain(apiKey);
  });

  test('the expiry, and a cancel by a key', async () => {
    const { headers, apiKey } = await factories.createMerchant();
    const expiring = await created(app, headers);
    const cancelled = await created(app, headers);
    expectSuccess(await post(app, headers, `/api/payments/${cancelled.paymentId}/cancel`));
    clock.advance(24 * HOUR);
    expect(actors(await readPayment(app, headers, expiring.paymentId)).at(-1)).toBe('expiry');
    expect(actors(await readPayment(app, headers, cancelled.paymentId)).at(-1)).toBe(
      `api_key:${prefixOf(apiKey)}`,
    );
  });

  test('a dashboard member by email, for what they do on its pages', async () => {
    const b = new DashboardBrowser(app, '192.0.2.120');
    const session = await b.signUp();
    const key = await factories.createKey(session.organization.id);
    const headers = { 'x-api-key': key.apiKey };
    const approvedHere = await created(app, headers);
    const cancelledHere = await created(app, headers);
    data(
      await b.mutation('payments.approve', {
        paymentId: approvedHere.paymentId,
        scenario: { preset: 'instant' },
      }),
    );
    data(await b.mutation('payments.cancel', { paymentId: cancelledHere.paymentId }));
    const member = `member:${session.user.email}`;
    expect(actors(await readPayment(app, headers, approvedHere.paymentId)).at(-1)).toBe(member);
    expect(actors(await readPayment(app, headers, cancelledHere.paymentId)).at(-1)).toBe(member);
  });

  test('entries made by a test clock keep the bank and the expiry as their actors', async () => {
    const { headers } = await factories.createMerchant();
    const { paymentId } = await created(app, headers);
    const payment = expectSuccess<PaymentData>(
      await post(app, headers, `/api/payments/${paymentId}/mock-bank/advance`, { seconds: 86_400 }),
    );
    expect(payment.statusHistory.at(-1)).toMatchObject({ simulated: true, actor: { type: 'expiry' } });
  });
});

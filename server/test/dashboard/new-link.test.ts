import type { CreatedApiKey, DashboardPayment, NewCustomerLink } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { openCustomerLink } from '../../src/links/customer-links.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  HOUR,
  MINUTE,
  paymentBody,
  post,
  readPayment,
  tokenOf,
} from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

/** Issue 23 item 5, the dashboard's half: "New customer link" is POST /payments/{id}/link's function. */
const { app, clock, config, factories, orm } = await createTestApp();

let addresses = 0;
async function merchant() {
  const b = new DashboardBrowser(app, `192.0.2.${100 + ++addresses}`);
  const session = await b.signUp();
  const key = data<CreatedApiKey>(
    await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
  );
  return { b, session, headers: { 'x-api-key': key.secret } };
}

const setRole = (userId: string, role: string) =>
  orm.em.fork().getConnection().execute('update dashboard_user set role = ? where id = ?', [role, userId]);

interface AuditEntries {
  entries: { action: string; actor: string; target: string | null }[];
}

describe('dashboard.payments.newLink', () => {
  test('a hosted payment: a fresh 1-hour link to the hosted page, audited; the payment is unchanged', async () => {
    const { b, session, headers } = await merchant();
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const before = await readPayment(app, headers, payment.paymentId);
    // Within the session's idle time; enough for the new link to outlive the first.
    clock.advance(10 * MINUTE);

    const link = data<NewCustomerLink>(
      await b.mutation('payments.newLink', { paymentId: payment.paymentId }),
    );
    expect(link.redirectUrl).not.toBe(payment.redirectUrl);
    expect(new URL(link.redirectUrl).pathname).toMatch(/^\/pay\//);
    expect(Date.parse(link.expiresAt)).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + HOUR);
    expect(openCustomerLink(config, tokenOf(link.redirectUrl), 'hosted', clock.now()).paymentId).toBe(
      payment.paymentId,
    );
    expect(await readPayment(app, headers, payment.paymentId)).toEqual(before);

    const audit = data<AuditEntries>(await b.query('logs.audit')).entries;
    expect(audit.find((entry) => entry.action === 'payment.link_sent')).toMatchObject({
      actor: session.user.email,
      target: payment.paymentId,
    });
  });

  test('a mock API_ONLY payment: a new Mock bank link of 30 minutes', async () => {
    const { b, headers } = await merchant();
    const payment = await created(app, headers);
    const link = data<NewCustomerLink>(
      await b.mutation('payments.newLink', { paymentId: payment.paymentId }),
    );
    expect(new URL(link.redirectUrl).pathname).toMatch(/^\/mock-bank\//);
    expect(Date.parse(link.expiresAt)).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + 30 * MINUTE);
  });

  test('finished: 409 PAYMENT_FINISHED as the API, and the page offers no button', async () => {
    const { b, headers } = await merchant();
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    await post(app, headers, `/api/payments/${payment.paymentId}/cancel`);
    const refused = failure(await b.mutation('payments.newLink', { paymentId: payment.paymentId }), 409);
    expect(refused.code).toBe('PAYMENT_FINISHED');
    expect(refused.message).toMatch(/^Payment is CANCELLED: a customer link would lead nowhere/);
    const page = data<DashboardPayment>(await b.query('payments.get', { paymentId: payment.paymentId }));
    expect(page.actions.link).toBe(false);
    const audit = data<AuditEntries>(await b.query('logs.audit')).entries;
    expect(audit.some((entry) => entry.action === 'payment.link_sent')).toBe(false);
  });

  test('Support may, Viewer may not; CSRF needed; another organization and bad ids answer as the API', async () => {
    const { b, session, headers } = await merchant();
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const paymentId = payment.paymentId;

    expect(failure(await b.mutation('payments.newLink', { paymentId }, { csrf: null }), 403).status).toBe(
      403,
    );

    await setRole(session.user.id, 'viewer');
    const viewer = failure(await b.mutation('payments.newLink', { paymentId }), 403);
    expect(viewer.message).toMatch(/^Your role \(Viewer\) cannot do this: it needs .*Support/);

    await setRole(session.user.id, 'support');
    data<NewCustomerLink>(await b.mutation('payments.newLink', { paymentId }));

    const other = await factories.createMerchant();
    const theirs = await created(app, other.headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    expect(failure(await b.mutation('payments.newLink', { paymentId: theirs.paymentId }), 404).message).toBe(
      'Payment not found',
    );
    const tooLong = failure(await b.mutation('payments.newLink', { paymentId: 'p'.repeat(201) }), 400);
    expect(tooLong.code).toBe('VALIDATION_FAILED');
    expect(tooLong.details?.map((detail) => detail.field)).toEqual(['paymentId']);
  });
});

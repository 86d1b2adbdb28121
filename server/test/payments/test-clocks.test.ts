import { describe, expect, test } from 'vitest';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import {
  created,
  HOUR,
  type PaymentData,
  paymentBody,
  post,
  readPayment,
  SECOND,
} from './payment-fixtures.ts';
import { controllableProvider } from './test-provider.ts';

const flaky = controllableProvider('flaky');
const { app, factories, clock, orm } = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), flaky.provider]),
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'flaky');
const { headers } = merchant;

const advance = (paymentId: string, body: unknown, as = headers) =>
  app.inject({
    method: 'POST',
    url: `/api/payments/${paymentId}/mock-bank/advance`,
    headers: as,
    payload: body as Record<string, unknown>,
  });
const advanced = async (paymentId: string, seconds: number) =>
  expectSuccess<PaymentData>(await advance(paymentId, { seconds }));

const approveRealistic = async () => {
  const { paymentId } = await created(app, headers);
  await post(app, headers, `/api/payments/${paymentId}/mock-bank/approve`, { preset: 'realistic' });
  return paymentId;
};

const nextDueAt = async (paymentId: string) => {
  const [row] = await orm.em
    .fork()
    .execute<{ next_due_at: string | null }[]>('select next_due_at from payment where id = ?', [paymentId]);
  return row?.next_due_at ? new Date(row.next_due_at) : null;
};

describe('POST /api/payments/{paymentId}/mock-bank/advance (a test clock per payment)', () => {
  test('the timeline steps that fall due apply, marked simulated, at their time on the payment clock', async () => {
    const paymentId = await approveRealistic();
    const approvedAt = Date.parse((await readPayment(app, headers, paymentId)).updatedAt);
    // realistic: ACTC at 0 s, ACCP 5 s, ACSP 15 s, ACSC 60 s after approval.
    const first = await advanced(paymentId, 20);
    expect(first.status).toBe('ACCEPTED');
    expect(first.statusHistory.map((entry) => [entry.isoStatus.code, entry.simulated ?? false])).toEqual([
      ['RCVD', false],
      ['PDNG', false],
      ['ACTC', false],
      ['ACCP', true],
      ['ACSP', true],
    ]);
    expect(first.statusHistory.at(-1)?.timestamp).toBe(new Date(approvedAt + 15 * SECOND).toISOString());
    // The rest is due 60 s after approval on the payment's clock: 40 s from now on the real one.
    expect((await nextDueAt(paymentId))?.toISOString()).toBe(
      new Date(approvedAt + 40 * SECOND).toISOString(),
    );

    const done = await advanced(paymentId, 40);
    expect(done.status).toBe('COMPLETED');
    expect(done.completedAt).toBe(new Date(approvedAt + 60 * SECOND).toISOString());
    expect(done.statusHistory.at(-1)).toMatchObject({ status: 'COMPLETED', simulated: true });
    expect(await nextDueAt(paymentId)).toBeNull();

    const finished = expectFailure(await advance(paymentId, { seconds: 1 }), 409);
    expect(finished.code).toBe('PAYMENT_FINISHED');
    expect(await readPayment(app, headers, paymentId)).toEqual(
      expectSuccess(await app.inject({ method: 'GET', url: `/api/payments/${paymentId}`, headers })),
    );
    expect((await readPayment(app, headers, paymentId)).statusHistory).toHaveLength(6);
  });

  test('the 24-hour expiry happens; a clock moved part way stays ahead, and other payments keep the real time', async () => {
    const { paymentId, expiresAt } = await created(app, headers);
    const bystander = await created(app, headers);
    const halfway = await advanced(paymentId, 23 * 60 * 60);
    expect(halfway.status).toBe('AUTHORIZING');
    // Nothing fell due, yet the clock moved: the expiry is due an hour from now on the real clock.
    expect((await nextDueAt(paymentId))?.getTime()).toBe(Date.parse(expiresAt) - 23 * HOUR);

    clock.advance(HOUR);
    const expired = await readPayment(app, headers, paymentId);
    expect(expired.status).toBe('EXPIRED');
    // Made by real time passing (on the advanced clock): not simulated.
    expect(expired.statusHistory.at(-1)).toMatchObject({ timestamp: expiresAt, isoStatus: { code: 'RJCT' } });
    expect(expired.statusHistory.at(-1)).not.toHaveProperty('simulated');
    expect((await readPayment(app, headers, bystander.paymentId)).status).toBe('AUTHORIZING');

    const another = await created(app, headers);
    const whole = await advanced(another.paymentId, 86_400);
    expect(whole.status).toBe('EXPIRED');
    expect(whole.statusHistory.at(-1)).toMatchObject({ timestamp: another.expiresAt, simulated: true });
    expect(expectFailure(await advance(another.paymentId, { seconds: 5 }), 409).code).toBe(
      'PAYMENT_FINISHED',
    );
  });

  test('seconds of 0, negative, fractional, huge, text or missing: 400 VALIDATION_FAILED, nothing changed', async () => {
    const { paymentId } = await created(app, headers);
    const before = await readPayment(app, headers, paymentId);
    for (const body of [
      { seconds: 0 },
      { seconds: -60 },
      { seconds: 1.5 },
      { seconds: 86_401 },
      { seconds: 1e308 },
      { seconds: '60' },
      { seconds: null },
      {},
    ]) {
      const details = expectValidationFailed(await advance(paymentId, body));
      expect(details.length).toBeGreaterThan(0);
      expect(new Set(details.map((detail) => detail.field))).toEqual(new Set(['seconds']));
    }
    expect(await readPayment(app, headers, paymentId)).toEqual(before);
    expect(await nextDueAt(paymentId)).toEqual(new Date(before.expiresAt));
  });

  test('Mock bank payments of the caller only: 400 MOCK_BANK_ONLY, 404 elsewhere, 403 without write', async () => {
    flaky.state.down = false;
    const live = await created(app, headers, paymentBody({ provider: 'flaky' }));
    expect(expectFailure(await advance(live.paymentId, { seconds: 60 }), 400).code).toBe('MOCK_BANK_ONLY');
    expect(
      (await readPayment(app, headers, live.paymentId)).statusHistory.every((e) => !('simulated' in e)),
    ).toBe(true);
    const { paymentId } = await created(app, headers);
    const outsider = await factories.createMerchant();
    expectFailure(await advance(paymentId, { seconds: 60 }, outsider.headers), 404);
    const reader = await factories.createKey(merchant.organizationId, 'read');
    expectFailure(await advance(paymentId, { seconds: 60 }, { 'x-api-key': reader.apiKey }), 403);
  });

  test('approve, cancel and reject after an advance happen on the payment clock', async () => {
    const { paymentId, createdAt } = await created(app, headers);
    await advanced(paymentId, 3600);
    const cancelled = expectSuccess<PaymentData>(
      await post(app, headers, `/api/payments/${paymentId}/cancel`),
    );
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.statusHistory.at(-1)?.timestamp).toBe(
      new Date(Date.parse(createdAt) + HOUR).toISOString(),
    );
  });

  test('the OpenAPI document has the operation and the simulated field of a history entry', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    expect(document.paths['/payments/{paymentId}/mock-bank/advance']?.post?.requestBody).toBeDefined();
    expect(document.components.schemas.HistoryEntry?.properties.simulated?.description).toMatch(/test clock/);
  });

  test('"Advance time" on the dashboard is the same call, for the signed-in organization', async () => {
    const b = new DashboardBrowser(app, '192.0.2.90');
    const session = await b.signUp();
    const key = await factories.createKey(session.organization.id);
    const { paymentId } = await created(app, { 'x-api-key': key.apiKey });
    const payment = data<PaymentData>(await b.mutation('payments.advance', { paymentId, seconds: 86_400 }));
    expect(payment.status).toBe('EXPIRED');
    const foreign = await b.mutation('payments.advance', { paymentId: merchantPayment, seconds: 1 });
    expect(foreign.statusCode).toBe(404);
  });
});

const merchantPayment = (await created(app, headers)).paymentId;

import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CreatePaymentInput, PaymentsApiError, PaymentsClient } from '../../src/index.ts';
import { createMockApi } from '../../src/msw/index.ts';

/** The kit as the `obie` provider (issue 19 item 6): an authorization at the bank, then the bank's timeline. */
const baseUrl = 'https://pis.test';
const { handlers, controls } = createMockApi({
  baseUrl,
  apiKey: 'pis_test_key',
  approvedProviders: ['obie'],
});
const server = setupServer(...handlers);
const client = new PaymentsClient({ apiKey: 'pis_test_key', baseUrl });

const order: CreatePaymentInput = {
  toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  amount: { value: '10.50', currency: 'GBP' },
  reference: 'Order 42',
  redirectUrl: 'https://shop.example/return',
  provider: 'obie',
  bankId: 'obie-sandbox-bank',
};

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => controls.reset());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('the kit as the obie provider', () => {
  it('lists obie and its bank, with providerSupport and recommendedProvider', async () => {
    expect((await client.providers.list()).map((provider) => provider.id)).toEqual(['mock', 'obie']);
    const banks = await client.banks.list({ provider: 'obie' });
    expect(banks.banks).toEqual([
      expect.objectContaining({ id: 'obie-sandbox-bank', recommendedProvider: 'obie' }),
    ]);
  });

  it('an approval at the bank: AUTHORIZED, SUBMITTED, then the bank’s timeline to COMPLETED', async () => {
    const created = await client.payments.create(order);
    expect(created).toMatchObject({ status: 'AUTHORIZING', provider: 'obie', bankId: 'obie-sandbox-bank' });
    expect(created.redirectUrl).toContain('/providers/obie/authorize/');
    expect(controls.authorizeAtBank(created.paymentId, { action: 'approve', stepMs: 2_000 }).status).toBe(
      'SUBMITTED',
    );
    controls.advanceTime(2_000);
    expect((await client.payments.get(created.paymentId)).status).toBe('ACCEPTED');
    controls.advanceTime(2_000);
    const done = await client.payments.get(created.paymentId);
    expect(done).toMatchObject({ status: 'COMPLETED', isoStatus: { code: 'ACSC' } });
    expect(done.statusHistory?.map((entry) => entry.status)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'SUBMITTED',
      'ACCEPTED',
      'COMPLETED',
    ]);
    expect(controls.returnUrlFor(created.paymentId)).toBe(
      `https://shop.example/return?paymentId=${created.paymentId}&status=COMPLETED`,
    );
  });

  it('a refusal at the bank is FAILED / RJCT / CUST; too little money is RJCT / AM04', async () => {
    const refused = await client.payments.create(order);
    expect(controls.authorizeAtBank(refused.paymentId, { action: 'reject' })).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'CUST' } },
    });
    const poor = await client.payments.create(order);
    controls.authorizeAtBank(poor.paymentId, { action: 'approve', insufficientFunds: true });
    controls.advanceTime(1_000);
    expect(await client.payments.get(poor.paymentId)).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'AM04' } },
      error: { code: 'AM04' },
    });
    expect(() => controls.authorizeAtBank(poor.paymentId, { action: 'approve' })).toThrow();
  });

  it('API_ONLY without bankId is 400 naming bankId; a new link is ours to give (30 minutes), as the service’s', async () => {
    const error = await client.payments.create({ ...order, bankId: undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect((error as PaymentsApiError).code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify((error as PaymentsApiError).details)).toContain('bankId');
    const created = await client.payments.create(order);
    const link = await client.payments.newLink(created.paymentId);
    expect(link.redirectUrl).toContain('/providers/obie/authorize/');
    const lifetime = Date.parse(link.expiresAt) - Date.parse(created.createdAt);
    expect(lifetime).toBeGreaterThan(29 * 60_000);
    // Whole seconds from the link's own instant: a second boundary between create and link adds up to 1 s.
    expect(lifetime).toBeLessThanOrEqual(30 * 60_000 + 1_000);
  });

  it('without approvedProviders the kit refuses obie as the service would (403)', async () => {
    const plain = createMockApi({ baseUrl: 'https://plain.test', apiKey: 'k' });
    server.use(...plain.handlers);
    const other = new PaymentsClient({ apiKey: 'k', baseUrl: 'https://plain.test' });
    const error = await other.payments.create(order).catch((e: unknown) => e);
    expect((error as PaymentsApiError).code).toBe('PROVIDER_NOT_APPROVED');
  });
});

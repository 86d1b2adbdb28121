import { CreatePaymentInput as CreatePaymentBody, MOCK_PROVIDER, PROVIDERS } from '@pis/shared';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CreatePaymentInput, PaymentsApiError, PaymentsClient } from '../../src/index.ts';
import { createMockApi } from '../../src/msw/index.ts';
import { emulatedBank } from '../../src/msw/mock-provider-banks.ts';
import { MockStore } from '../../src/msw/mock-store.ts';

/**
 * The kit as the `nextgenpsd2` provider (Berlin Group NextGenPSD2 through Sandbox Bank EU): the
 * payment made at the bank (RCVD) when created, the customer's SCA at the bank, then the bank's
 * timeline, all read through the shared status table.
 */
const baseUrl = 'https://pis.test';
const { handlers, controls } = createMockApi({
  baseUrl,
  apiKey: 'pis_test_key',
  approvedProviders: ['obie', 'nextgenpsd2'],
});
const server = setupServer(...handlers);
const client = new PaymentsClient({ apiKey: 'pis_test_key', baseUrl });

const order: CreatePaymentInput = {
  toAccount: { accountName: 'Berlin Shop GmbH', iban: 'DE89 3704 0044 0532 0130 00' },
  amount: { value: '25.00', currency: 'EUR' },
  reference: 'Bestellung 42',
  redirectUrl: 'https://shop.example/return',
  provider: 'nextgenpsd2',
  bankId: 'sandbox-bank-eu',
};

const refusal = async (input: CreatePaymentInput) => {
  const error = await client.payments.create(input).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PaymentsApiError);
  return error as PaymentsApiError;
};

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => controls.reset());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('the kit as the nextgenpsd2 provider', () => {
  it('lists nextgenpsd2 beside obie, and Sandbox Bank EU as its bank', async () => {
    expect((await client.providers.list()).map((provider) => provider.id)).toEqual([
      'mock',
      'obie',
      'nextgenpsd2',
    ]);
    expect(await client.banks.providers()).toEqual(['mock', 'obie', 'nextgenpsd2']);
    const banks = await client.banks.list({ provider: 'nextgenpsd2' });
    expect(banks.banks).toEqual([
      expect.objectContaining({
        id: 'sandbox-bank-eu',
        name: 'Sandbox Bank EU',
        recommendedProvider: 'nextgenpsd2',
      }),
    ]);
  });

  it('a euro payment approved at the bank: AUTHORIZED (ACTC), then ACCEPTED (ACSP) and COMPLETED (ACSC)', async () => {
    const created = await client.payments.create(order);
    expect(created).toMatchObject({
      status: 'AUTHORIZING',
      provider: 'nextgenpsd2',
      bankId: 'sandbox-bank-eu',
    });
    expect(created.redirectUrl).toContain('/providers/nextgenpsd2/authorize/');

    expect(controls.authorizeAtBank(created.paymentId, { action: 'approve', stepMs: 2_000 })).toMatchObject({
      status: 'AUTHORIZED',
      isoStatus: { code: 'ACTC' },
    });
    controls.advanceTime(2_000);
    expect(await client.payments.get(created.paymentId)).toMatchObject({
      status: 'ACCEPTED',
      isoStatus: { code: 'ACSP' },
    });
    controls.advanceTime(2_000);
    const done = await client.payments.get(created.paymentId);
    expect(done).toMatchObject({ status: 'COMPLETED', isoStatus: { code: 'ACSC' } });
    expect(done.statusHistory?.map((entry) => entry.status)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'ACCEPTED',
      'COMPLETED',
    ]);
    expect(controls.returnUrlFor(created.paymentId)).toBe(
      `https://shop.example/return?paymentId=${created.paymentId}&status=COMPLETED`,
    );
  });

  it('a refusal at the bank is FAILED / RJCT / CUST, with the SCA failed', async () => {
    const created = await client.payments.create(order);
    expect(controls.authorizeAtBank(created.paymentId, { action: 'reject' })).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'CUST' } },
      error: { code: 'CUST' },
    });
    expect(() => controls.authorizeAtBank(created.paymentId, { action: 'approve' })).toThrow(
      expect.objectContaining({ code: 'PAYMENT_ALREADY_DECIDED' }),
    );
  });

  it('too little money is AUTHORIZED, then FAILED / RJCT / AM04 at the bank’s first step', async () => {
    const created = await client.payments.create(order);
    // A long step: the kit's clock is the real one too, and this test must not race it.
    const decision = { action: 'approve', insufficientFunds: true, stepMs: 60_000 } as const;
    expect(controls.authorizeAtBank(created.paymentId, decision).status).toBe('AUTHORIZED');
    controls.advanceTime(30_000);
    expect((await client.payments.get(created.paymentId)).status).toBe('AUTHORIZED');
    controls.advanceTime(30_000);
    const poor = await client.payments.get(created.paymentId);
    expect(poor).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'AM04' } },
      error: { code: 'AM04' },
    });
    expect(poor.statusHistory?.map((entry) => entry.status)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'FAILED',
    ]);
  });

  it('what Sandbox Bank EU cannot take is refused by the shared create rules (400 naming the field)', async () => {
    const pounds = await refusal({ ...order, amount: { value: '25.00', currency: 'GBP' } });
    expect(pounds.status).toBe(400);
    expect(pounds.code).toBe('VALIDATION_FAILED');
    expect(pounds.details).toEqual([expect.objectContaining({ field: 'amount.currency' })]);

    const sortCode = await refusal({
      ...order,
      toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    });
    expect(sortCode.status).toBe(400);
    expect(sortCode.code).toBe('VALIDATION_FAILED');
    expect(sortCode.details).toEqual([expect.objectContaining({ field: 'toAccount.sortCode' })]);

    const noBank = await refusal({ ...order, bankId: undefined });
    expect(noBank.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(noBank.details)).toContain('bankId');
    expect(controls.payments()).toEqual([]);
  });

  it('a new link is ours to give, for as long as obie’s (30 minutes)', async () => {
    const created = await client.payments.create(order);
    const link = await client.payments.newLink(created.paymentId);
    expect(link.redirectUrl).toContain('/providers/nextgenpsd2/authorize/');
    const lifetime = Date.parse(link.expiresAt) - Date.parse(created.createdAt);
    expect(lifetime).toBeGreaterThan(29 * 60_000);
    // Whole seconds from the link's own instant: a second boundary between create and link adds up to 1 s.
    expect(lifetime).toBeLessThanOrEqual(30 * 60_000 + 1_000);
  });

  it('approved for obie only, the kit refuses nextgenpsd2 as the service would (403)', async () => {
    const obieOnly = createMockApi({
      baseUrl: 'https://obie-only.test',
      apiKey: 'k',
      approvedProviders: ['obie'],
    });
    server.use(...obieOnly.handlers);
    const other = new PaymentsClient({ apiKey: 'k', baseUrl: 'https://obie-only.test' });
    const error = await other.payments.create(order).catch((e: unknown) => e);
    expect((error as PaymentsApiError).code).toBe('PROVIDER_NOT_APPROVED');
    expect((await other.banks.list({ provider: 'nextgenpsd2' })).banks).toEqual([]);
  });

  it('plays the bank of every real provider the service knows', () => {
    const real = PROVIDERS.map((descriptor) => descriptor.code).filter((code) => code !== MOCK_PROVIDER);
    expect(real.filter((code) => !emulatedBank(code))).toEqual([]);
  });
});

describe('the bank’s statuses the kit keeps for a nextgenpsd2 payment (the service’s provider_status)', () => {
  const command = CreatePaymentBody.parse({ ...order, flowType: 'API_ONLY' });
  const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms);
  const storeWithPayment = () => {
    const store = new MockStore(baseUrl, ['nextgenpsd2']);
    const { paymentId } = store.create(command, undefined, at(0));
    return { store, paymentId };
  };

  it('RCVD when created; ACTC, ACSP, ACSC as the bank reports them', () => {
    const { store, paymentId } = storeWithPayment();
    expect(store.get(paymentId, at(0)).status).toBe('AUTHORIZING');
    expect(store.providerStatus(paymentId, at(0))).toEqual({ transaction: 'RCVD' });
    store.authorizeAtBank(paymentId, { action: 'approve' }, at(0));
    expect(store.providerStatus(paymentId, at(0))).toEqual({ transaction: 'ACTC' });
    expect(store.providerStatus(paymentId, at(1_000))).toEqual({ transaction: 'ACSP' });
    expect(store.providerStatus(paymentId, at(2_000))).toEqual({ transaction: 'ACSC' });
    expect(store.get(paymentId, at(2_000)).status).toBe('COMPLETED');
  });

  it('a refusal keeps the SCA failed; no funds keeps RJCT', () => {
    const refused = storeWithPayment();
    refused.store.authorizeAtBank(refused.paymentId, { action: 'reject' }, at(0));
    expect(refused.store.providerStatus(refused.paymentId, at(0))).toEqual({
      transaction: 'RJCT',
      sca: 'failed',
    });
    const poor = storeWithPayment();
    poor.store.authorizeAtBank(poor.paymentId, { action: 'approve', insufficientFunds: true }, at(0));
    expect(poor.store.providerStatus(poor.paymentId, at(1_000))).toEqual({ transaction: 'RJCT' });
    expect(poor.store.get(poor.paymentId, at(1_000))).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'AM04' } },
    });
  });
});

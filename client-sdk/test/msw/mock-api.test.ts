import { MESSAGES } from '@pis/shared';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CreatePaymentInput, PaymentsApiError, PaymentsClient } from '../../src/index.ts';
import { createMockApi } from '../../src/msw/index.ts';

const baseUrl = 'https://pis.test';
const { handlers, controls } = createMockApi({ baseUrl, apiKey: 'pis_test_key' });
const server = setupServer(...handlers);
const client = new PaymentsClient({ apiKey: 'pis_test_key', baseUrl });

const order: CreatePaymentInput = {
  toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  amount: { value: 10.5, currency: 'GBP' },
  reference: 'Order 42',
  redirectUrl: 'https://shop.example/return',
};

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => {
      if (!(error instanceof PaymentsApiError)) throw error;
      return { status: error.status, code: error.code, message: error.message, details: error.details };
    },
  );

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => controls.reset());
afterEach(() => {
  vi.useRealTimers();
  server.resetHandlers();
});
afterAll(() => server.close());

describe('payments', () => {
  it('creates an API_ONLY Mock bank payment waiting for the customer', async () => {
    const created = await client.payments.create(order);
    expect(created).toMatchObject({
      status: 'AUTHORIZING',
      isoStatus: { code: 'PDNG' },
      provider: 'mock',
      amount: { value: '10.5', currency: 'GBP' },
    });
    expect(created.redirectUrl).toMatch(/^https:\/\/pis\.test\/mock-bank\//);
    const payment = await client.payments.get(created.paymentId);
    expect(payment.statusHistory?.map((entry) => entry.status)).toEqual(['PENDING', 'AUTHORIZING']);
    expect(payment).toMatchObject({
      toAccount: { sortCode: '040004' },
      reference: { reference: 'Order 42' },
      flowType: 'API_ONLY',
      redirectUrl: 'https://shop.example/return',
    });
  });

  it('without a reference the bank reads the merchant’s name and a short code, as the service gives it', async () => {
    const { reference: _none, ...withoutReference } = order;
    const created = await client.payments.create(withoutReference);
    const payment = await client.payments.get(created.paymentId);
    expect(payment.reference.reference).toMatch(/^Mock Merchant [0-9A-HJKMNP-TV-Z]{6}$/);
  });

  it('validates with the service’s schemas and messages', async () => {
    const failure = await errorOf(
      client.payments.create({ ...order, amount: { value: '-1', currency: 'GBP' } }),
    );
    expect(failure).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: MESSAGES.validationFailed,
      details: [{ field: 'amount.value', message: MESSAGES.amount }],
    });
    expect(await errorOf(client.payments.list({ limit: 500 }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'limit' }],
    });
  });

  it('answers 401 without the right key, with no code', async () => {
    const stranger = new PaymentsClient({ apiKey: 'wrong', baseUrl });
    expect(await errorOf(stranger.payments.list())).toEqual({
      status: 401,
      code: undefined,
      message: MESSAGES.invalidApiKey,
      details: undefined,
    });
  });

  it('applies the provider rules', async () => {
    expect(
      await errorOf(client.payments.create({ ...order, provider: 'acme', mockBank: { preset: 'slow' } })),
    ).toMatchObject({
      status: 400,
      code: 'MOCK_BANK_ONLY',
    });
    expect(await errorOf(client.payments.create({ ...order, provider: 'acme' }))).toMatchObject({
      status: 403,
      code: 'PROVIDER_NOT_APPROVED',
    });
  });

  it('replays a create with the same idempotency key and refuses it with another body', async () => {
    const first = await client.payments.create(order, { idempotencyKey: 'order-42' });
    const again = await client.payments.create(order, { idempotencyKey: 'order-42' });
    expect(again.paymentId).toBe(first.paymentId);
    expect(controls.payments()).toHaveLength(1);
    expect(
      await errorOf(
        client.payments.create({ ...order, reference: 'Order 43' }, { idempotencyKey: 'order-42' }),
      ),
    ).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('cancels an unfinished payment once', async () => {
    const { paymentId } = await client.payments.create(order);
    const cancelled = await client.payments.cancel(paymentId);
    expect(cancelled).toMatchObject({
      status: 'CANCELLED',
      isoStatus: { code: 'CANC', reason: { code: 'CUST' } },
    });
    expect(await errorOf(client.payments.cancel(paymentId))).toMatchObject({
      status: 409,
      code: 'PAYMENT_NOT_CANCELLABLE',
    });
  });

  it('404s an unknown payment', async () => {
    expect(await errorOf(client.payments.get('pay_000000000000000000000000'))).toEqual({
      status: 404,
      code: undefined,
      message: MESSAGES.paymentNotFound,
      details: undefined,
    });
  });

  it('lists newest first with filters and pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await client.payments.create(order)).paymentId);
      controls.advanceTime(1_000);
    }
    controls.reject(ids[0] ?? '');
    const page = await client.payments.list({ limit: 2, offset: 1 });
    expect(page.total).toBe(5);
    expect(page.payments.map((p) => p.paymentId)).toEqual([ids[3], ids[2]]);
    const failed = await client.payments.list({ status: 'FAILED' });
    expect(failed.payments.map((p) => p.paymentId)).toEqual([ids[0]]);
    const all: string[] = [];
    for await (const payment of client.payments.listAll({ limit: 2 })) all.push(payment.paymentId);
    expect(all).toEqual([...ids].reverse());
  });
});

describe('find, export and re-send (issue 23)', () => {
  it('lists by search, created range and currency, with the exact total', async () => {
    const first = await client.payments.create({
      ...order,
      reference: { reference: 'INV-100%', endToEndId: 'E2E-1' },
    });
    controls.advanceTime(60_000);
    const second = await client.payments.create({
      ...order,
      reference: 'inv_200',
      amount: { value: '3', currency: 'EUR' },
      toAccount: { accountName: 'Bolt & Sons', iban: 'DE89370400440532013000' },
    });
    const ids = async (filters: Parameters<typeof client.payments.list>[0]) => {
      const page = await client.payments.list(filters);
      expect(page.total).toBe(page.payments.length);
      return page.payments.map((payment) => payment.paymentId);
    };
    expect(await ids({ search: 'inv' })).toEqual([second.paymentId, first.paymentId]);
    expect(await ids({ search: '100%' })).toEqual([first.paymentId]);
    expect(await ids({ search: 'INV_' })).toEqual([second.paymentId]);
    expect(await ids({ search: 'E2E-1' })).toEqual([first.paymentId]);
    expect(await ids({ search: first.paymentId })).toEqual([first.paymentId]);
    expect(await ids({ search: 'bolt' })).toEqual([second.paymentId]);
    expect(await ids({ currency: 'EUR' })).toEqual([second.paymentId]);
    expect(await ids({ createdTo: first.createdAt })).toEqual([first.paymentId]);
    expect(await ids({ createdFrom: second.createdAt })).toEqual([second.paymentId]);
    expect(
      await errorOf(client.payments.list({ createdFrom: second.createdAt, createdTo: first.createdAt })),
    ).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'createdFrom', message: 'must not be after createdTo' }],
    });
    expect(await errorOf(client.payments.list({ search: 'x'.repeat(101) }))).toMatchObject({
      status: 400,
      details: [{ field: 'search' }],
    });
  });

  it('exports the filtered payments as CSV, formulas made inert', async () => {
    const plain = await client.payments.create(order);
    controls.advanceTime(1_000);
    const risky = await client.payments.create({
      ...order,
      reference: '=1+1',
      amount: { value: '7.50', currency: 'GBP' },
    });
    const csv = await new Response(await client.payments.exportCsv()).text();
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'paymentId,createdAt,updatedAt,completedAt,expiresAt,status,isoStatus,isoReason,amount,currency,reference,endToEndId,payeeName,payeeAccount,provider,bankId',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`${risky.paymentId},`);
    expect(lines[1]).toContain(",7.50,GBP,'=1+1,");
    expect(lines[2]).toContain(`${plain.paymentId},${plain.createdAt},`);
    const filtered = await new Response(await client.payments.exportCsv({ search: '=1+1' })).text();
    expect(filtered.trimEnd().split('\n')).toHaveLength(2);
    expect(await errorOf(client.payments.exportCsv({ currency: 'XXX' }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
  });

  it('sends a new customer link for an unfinished payment, 409 PAYMENT_FINISHED once finished', async () => {
    const { paymentId } = await client.payments.create({ ...order, flowType: 'HOSTED_PAGES' });
    controls.advanceTime(30 * 60_000);
    const link = await client.payments.newLink(paymentId);
    expect(link.redirectUrl).toMatch(/^https:\/\/pis\.test\/pay\//);
    expect(Date.parse(link.expiresAt) - controls.now().getTime()).toBeGreaterThan(59 * 60_000);
    await client.payments.cancel(paymentId);
    expect(await errorOf(client.payments.newLink(paymentId))).toMatchObject({
      status: 409,
      code: 'PAYMENT_FINISHED',
    });
  });
});

describe('the Mock bank and time', () => {
  it('approve (instant by default) completes at once', async () => {
    const { paymentId } = await client.payments.create(order);
    expect(controls.approve(paymentId)).toMatchObject({ status: 'COMPLETED', isoStatus: { code: 'ACSC' } });
    const payment = await client.payments.get(paymentId);
    expect(payment.completedAt).toBeDefined();
  });

  it('follows the realistic timeline as time advances', async () => {
    const { paymentId } = await client.payments.create(order);
    controls.approve(paymentId, { preset: 'realistic' });
    const statusAfter = async (ms: number) => {
      controls.advanceTime(ms);
      return (await client.payments.get(paymentId)).status;
    };
    expect(await statusAfter(0)).toBe('AUTHORIZED');
    expect(await statusAfter(5_000)).toBe('SUBMITTED');
    expect(await statusAfter(10_000)).toBe('ACCEPTED');
    expect(await statusAfter(45_000)).toBe('COMPLETED');
    const history = (await client.payments.get(paymentId)).statusHistory?.map((entry) => entry.status);
    expect(history).toEqual(['PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED']);
  });

  it('uses the scenario given at creation when the approval names none', async () => {
    const { paymentId } = await client.payments.create({ ...order, mockBank: { completeAfterSeconds: 20 } });
    controls.approve(paymentId);
    // Well before the 20 s boundary: the kit's clock is real time plus the advance, and real
    // milliseconds pass between these lines on a busy machine.
    controls.advanceTime(19_000);
    expect(controls.getPayment(paymentId).status).toBe('ACCEPTED');
    controls.advanceTime(1_000);
    expect(controls.getPayment(paymentId).status).toBe('COMPLETED');
  });

  it('works with vitest fake timers: waitForFinalStatus sees the timeline at the exact reads', async () => {
    // MSW 3 in Node completes a request through setImmediate and I/O: let the fake clock jump to
    // the next timer by itself instead of advancing it by hand past requests still in flight.
    vi.useFakeTimers();
    vi.setTimerTickMode('nextTimerAsync');
    const start = Date.now();
    const { paymentId } = await client.payments.create(order);
    await client.sandbox.approve(paymentId, { preset: 'realistic' });
    const seen: Array<[number, string]> = [];
    const payment = await client.payments.waitForFinalStatus(paymentId, {
      onUpdate: (p) => void seen.push([(Date.now() - start) / 1000, p.status]),
    });
    expect(payment.status).toBe('COMPLETED');
    // realistic: SUBMITTED at 5 s, ACCEPTED at 15 s, COMPLETED at 60 s; the kit holds each read
    // (Prefer: wait) until the step falls due, so each is seen at its very second.
    expect(seen).toEqual([
      [0, 'AUTHORIZED'],
      [5, 'SUBMITTED'],
      [15, 'ACCEPTED'],
      [60, 'COMPLETED'],
    ]);
  });

  it('rejects with the reason given, else the creation’s, else CUST', async () => {
    const a = await client.payments.create(order);
    const b = await client.payments.create({ ...order, mockBank: { rejectReason: 'AC04' } });
    const c = await client.payments.create(order);
    expect(await client.sandbox.reject(a.paymentId, 'AM04')).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'AM04', name: 'InsufficientFunds' } },
      error: { code: 'AM04' },
    });
    expect(controls.reject(b.paymentId).isoStatus.reason?.code).toBe('AC04');
    expect(controls.reject(c.paymentId).isoStatus.reason?.code).toBe('CUST');
  });

  it('refuses a second decision with PAYMENT_ALREADY_DECIDED', async () => {
    const { paymentId } = await client.payments.create(order);
    await client.sandbox.approve(paymentId);
    expect(await errorOf(client.sandbox.reject(paymentId))).toMatchObject({
      status: 409,
      code: 'PAYMENT_ALREADY_DECIDED',
    });
    expect(() => controls.approve(paymentId)).toThrow(/already/);
  });

  it('validates the sandbox scenario', async () => {
    const { paymentId } = await client.payments.create(order);
    expect(await errorOf(client.sandbox.approve(paymentId, { completeAfterSeconds: 0 }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'completeAfterSeconds' }],
    });
  });

  it('expires an unanswered payment 24 hours after creation', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // a still clock, so "1 ms before" means it
    const { paymentId } = await client.payments.create(order);
    controls.advanceTime(24 * 60 * 60 * 1000 - 1);
    expect((await client.payments.get(paymentId)).status).toBe('AUTHORIZING');
    controls.advanceTime(1);
    expect(await client.payments.get(paymentId)).toMatchObject({
      status: 'EXPIRED',
      isoStatus: { code: 'RJCT', reason: { code: 'NOAS' } },
    });
  });

  it('hosted pages: PENDING until the customer chooses a bank', async () => {
    const created = await client.payments.create({ ...order, flowType: 'HOSTED_PAGES' });
    expect(created.status).toBe('PENDING');
    expect(created.redirectUrl).toMatch(/^https:\/\/pis\.test\/pay\//);
    expect(await errorOf(client.sandbox.approve(created.paymentId))).toMatchObject({
      status: 409,
      code: 'BANK_NOT_CHOSEN',
    });
    expect(controls.chooseBank(created.paymentId, 'mock-gb-albion')).toMatchObject({
      status: 'AUTHORIZING',
      bankId: 'mock-gb-albion',
    });
  });
});

describe('banks and providers', () => {
  it('serves the sandbox catalogue through the shared filters', async () => {
    const page = await client.banks.list({ search: 'albion' });
    expect(page.banks.map((bank) => bank.id)).toEqual(['mock-gb-albion']);
    expect(page.banks[0]?.logoUrl).toBe('https://pis.test/bank-logos/mock-gb-albion.svg');
    expect((await client.banks.get('mock-gb-albion')).name).toBe('Albion Sandbox Bank');
    expect(await errorOf(client.banks.get('mock-gb-nope'))).toMatchObject({
      status: 404,
      message: MESSAGES.bankNotFound,
    });
    expect(await client.banks.providers()).toEqual(['mock']);
    expect(await client.providers.list()).toEqual([
      { id: 'mock', name: 'Mock bank', supportsPayments: true },
    ]);
  });
});

describe('failure injection', () => {
  it('fails the next request with a status and code; the client retries reads', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    controls.failNext({ status: 503, times: 2 });
    const page = await client.payments.list();
    expect(page.total).toBe(0);

    controls.failNext({
      status: 502,
      code: 'PROVIDER_UNAVAILABLE',
      message: 'Bank unreachable',
      path: /\/sync$/,
    });
    const { paymentId } = await client.payments.create(order);
    expect(
      await errorOf(
        new PaymentsClient({ apiKey: 'pis_test_key', baseUrl, maxRetries: 0 }).payments.sync(paymentId),
      ),
    ).toEqual({
      status: 502,
      code: 'PROVIDER_UNAVAILABLE',
      message: 'Bank unreachable',
      details: undefined,
    });
    vi.restoreAllMocks();
  });

  it('simulates a network failure', async () => {
    controls.failNext({ networkError: true, method: 'POST' });
    const noRetry = new PaymentsClient({ apiKey: 'pis_test_key', baseUrl, maxRetries: 0 });
    expect(await errorOf(noRetry.payments.cancel('pay_000000000000000000000000'))).toMatchObject({
      status: 0,
      code: 'NETWORK_ERROR',
    });
  });

  it('unknown routes under /api answer 404 in the envelope', async () => {
    const response = await fetch(`${baseUrl}/api/nothing-here`, { headers: { 'x-api-key': 'pis_test_key' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ success: false, error: { message: 'Not found' } });
  });
});

describe('seeded banks', () => {
  const definition = {
    id: 'test-bank-1',
    uuid: '00000000-0000-4000-8000-000000000001',
    name: 'Test Seeded Bank',
    displayName: 'Seeded',
    country: 'GB',
    paymentMethods: ['FASTER_PAYMENTS'],
    active: true,
    features: { accountAccess: true, accountBalance: true, transactions: true, payments: true },
    brandColor: '#000000',
  };

  it('serves the seeded catalogue instead of the sandbox one, until reset', async () => {
    controls.seedBanks([definition]);
    expect((await client.banks.list()).banks.map((bank) => bank.id)).toEqual(['test-bank-1']);
    expect((await client.payments.create({ ...order, bankId: 'test-bank-1' })).bankId).toBe('test-bank-1');
    controls.reset();
    expect(await errorOf(client.banks.get('test-bank-1'))).toMatchObject({ status: 404 });
  });
});

describe('waiting reads (If-None-Match + Prefer: wait), as the service', () => {
  const read = (paymentId: string, headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/api/payments/${paymentId}`, { headers: { 'x-api-key': 'pis_test_key', ...headers } });

  it('answers an ETag; a current one with Prefer: wait is held until a control changes the payment', async () => {
    const { paymentId } = await client.payments.create(order);
    const first = await read(paymentId);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('preference-applied')).toBeNull();
    let answered = false;
    const held = read(paymentId, { 'if-none-match': etag, prefer: 'wait=30' }).then((response) => {
      answered = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    controls.approve(paymentId);
    const response = await held;
    expect(response.headers.get('preference-applied')).toBe('wait=30');
    expect(response.headers.get('etag')).not.toBe(etag);
    expect(((await response.json()) as { data: { status: string } }).data.status).toBe('COMPLETED');
  });

  it('moving fake time wakes a waiter when a timeline step falls due, and ends a wait that runs out', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const { paymentId } = await client.payments.create(order);
    controls.approve(paymentId, { preset: 'realistic' });
    const etag = (await read(paymentId)).headers.get('etag') as string;
    const held = read(paymentId, { 'if-none-match': etag, prefer: 'wait=60' });
    await vi.advanceTimersByTimeAsync(5_000);
    const stepped = await held;
    expect(((await stepped.json()) as { data: { status: string } }).data.status).toBe('SUBMITTED');
    // Nothing more until 15 s: a 2 s wait runs out and answers the same ETag.
    const next = stepped.headers.get('etag') as string;
    const timedOut = read(paymentId, { 'if-none-match': next, prefer: 'wait=2' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await timedOut).headers.get('etag')).toBe(next);
  });

  it('a stale ETag answers at once; wait above 60 is capped and said; unknown payment 404', async () => {
    const { paymentId } = await client.payments.create(order);
    const stale = (await read(paymentId)).headers.get('etag') as string;
    controls.approve(paymentId);
    const answer = await read(paymentId, { 'if-none-match': stale, prefer: 'wait=600' });
    expect(answer.headers.get('preference-applied')).toBe('wait=60');
    expect(answer.status).toBe(200);
    const missing = await read('pay_ZYXWVUTSRQPONMLKJIHGFEDC', { 'if-none-match': stale, prefer: 'wait=5' });
    expect(missing.status).toBe(404);
  });

  it('the SDK waits on the kit: one read per change', async () => {
    const { paymentId } = await client.payments.create(order);
    const seen: string[] = [];
    let reads = 0;
    server.events.on('request:start', ({ request }) => {
      if (request.method === 'GET' && request.url.endsWith(paymentId)) reads += 1;
    });
    const waiting = client.payments.waitForFinalStatus(paymentId, {
      onUpdate: (payment) => {
        seen.push(payment.status);
      },
    });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
    await pause();
    // SUBMITTED at 2 s, ACCEPTED at 8 s, COMPLETED at 20 s; each move of the kit's clock wakes the read.
    controls.approve(paymentId, { completeAfterSeconds: 20 });
    for (const ms of [2_000, 6_000, 12_000]) {
      await pause();
      controls.advanceTime(ms);
    }
    const final = await waiting;
    server.events.removeAllListeners();
    expect(final.status).toBe('COMPLETED');
    expect(seen).toEqual(['AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED']);
    // The first read, then one held read per change (four): a polling client reads 9 times by 20 s.
    expect(reads).toBe(5);
  });
});

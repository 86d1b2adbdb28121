import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  PaymentsApiError,
  PaymentsClient,
  PaymentsConnectionError,
  PaymentsTimeoutError,
} from '../src/index.ts';
import { fail, fakeFetch, networkError, ok } from './fake-fetch.ts';
import { API_KEY, BASE_URL, OTHER_PAYMENT_ID, PAYMENT_ID, paymentFixture, settle } from './fixtures.ts';

const client = (
  fetch: ReturnType<typeof fakeFetch>['fetch'],
  options: { maxRetries?: number; timeoutMs?: number } = {},
) => new PaymentsClient({ apiKey: API_KEY, baseUrl: `${BASE_URL}/`, fetch, ...options });

const createInput = {
  toAccount: { accountName: 'Acme Ltd', iban: 'GB33BUKB20201555555555' },
  amount: { value: 10.5, currency: 'GBP' },
};

beforeEach(() => {
  vi.useFakeTimers();
  // Full jitter draws uniformly from [0, ceiling): pin it at the ceiling to see the ceilings.
  vi.spyOn(Math, 'random').mockReturnValue(0.999_999);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('requests', () => {
  it('sends the key, builds the URL and unwraps the envelope', async () => {
    const { fetch, requests } = fakeFetch(ok({ payments: [], total: 0, limit: 5, offset: 10 }));
    const page = await client(fetch).payments.list({ status: 'COMPLETED', limit: 5, offset: 10 });
    expect(page).toEqual({ payments: [], total: 0, limit: 5, offset: 10 });
    const [request] = requests;
    expect(request?.method).toBe('GET');
    expect(request?.url.href).toBe(`${BASE_URL}/api/payments?status=COMPLETED&limit=5&offset=10`);
    expect(request?.headers.get('x-api-key')).toBe(API_KEY);
    expect(request?.headers.get('content-type')).toBeNull();
  });

  it('sends the search, created range and currency; exports as a stream; asks for a new link', async () => {
    const { fetch, requests } = fakeFetch(
      ok({ payments: [], total: 0, limit: 20, offset: 0 }),
      new Response('paymentId,createdAt\npay_1,2026-11-01T00:00:00.000Z\n', {
        status: 200,
        headers: { 'content-type': 'text/csv; charset=utf-8' },
      }),
      fail(400, { message: 'Validation failed', code: 'VALIDATION_FAILED', details: [] }),
      ok({ redirectUrl: 'https://pis.test/pay/t', expiresAt: '2026-11-25T16:00:00.000Z' }, 201),
    );
    const c = client(fetch, { maxRetries: 0 });
    const filters = {
      search: 'INV 100%',
      createdFrom: '2026-11-01T00:00:00Z',
      createdTo: '2026-11-30T23:59:59+01:00',
      currency: 'EUR',
    };
    await c.payments.list(filters);
    expect(requests[0]?.url.href).toBe(
      `${BASE_URL}/api/payments?currency=EUR&createdFrom=2026-11-01T00%3A00%3A00Z&createdTo=2026-11-30T23%3A59%3A59%2B01%3A00&search=INV+100%25`,
    );
    const csv = await c.payments.exportCsv({ status: 'COMPLETED' });
    expect(await new Response(csv).text()).toBe('paymentId,createdAt\npay_1,2026-11-01T00:00:00.000Z\n');
    expect(requests[1]?.url.href).toBe(`${BASE_URL}/api/payments/export?status=COMPLETED`);
    expect(requests[1]?.headers.get('accept')).toBe('text/csv');
    const failure = await settle(c.payments.exportCsv({ currency: 'EUR' }));
    expect(failure).toBeInstanceOf(PaymentsApiError);
    expect((failure as PaymentsApiError).code).toBe('VALIDATION_FAILED');
    expect(await c.payments.newLink(PAYMENT_ID)).toEqual({
      redirectUrl: 'https://pis.test/pay/t',
      expiresAt: '2026-11-25T16:00:00.000Z',
    });
    expect(requests[3]?.method).toBe('POST');
    expect(requests[3]?.url.href).toBe(`${BASE_URL}/api/payments/${PAYMENT_ID}/link`);
  });

  it('maps each endpoint to its method and path', async () => {
    const { fetch, requests } = fakeFetch(
      ok(paymentFixture()),
      ok(paymentFixture('CANCELLED')),
      ok({ bank: { id: 'mock-gb-albion' } }),
      ok({ providers: ['mock'] }),
      ok({ providers: [{ id: 'mock', name: 'Mock bank', supportsPayments: true }] }),
      ok({ banks: [], pagination: { total: 0, page: 2, limit: 10, pages: 0 } }),
      ok(paymentFixture('COMPLETED')),
      ok(paymentFixture('FAILED')),
    );
    const c = client(fetch);
    await c.payments.sync(PAYMENT_ID);
    await c.payments.cancel(PAYMENT_ID);
    expect(await c.banks.get('mock-gb-albion')).toEqual({ id: 'mock-gb-albion' });
    expect(await c.banks.providers()).toEqual(['mock']);
    expect(await c.providers.list()).toEqual([{ id: 'mock', name: 'Mock bank', supportsPayments: true }]);
    await c.banks.list({ country: 'DE', search: 'sand', page: 2, limit: 10 });
    await c.sandbox.approve(PAYMENT_ID, { preset: 'realistic' });
    await c.sandbox.reject(PAYMENT_ID, 'AM04');
    expect(requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      `POST /api/payments/${PAYMENT_ID}/sync`,
      `POST /api/payments/${PAYMENT_ID}/cancel`,
      'GET /api/banks/mock-gb-albion',
      'GET /api/banks/providers',
      'GET /api/payments/providers',
      'GET /api/banks?country=DE&search=sand&page=2&limit=10',
      `POST /api/payments/${PAYMENT_ID}/mock-bank/approve`,
      `POST /api/payments/${PAYMENT_ID}/mock-bank/reject`,
    ]);
    expect(requests[6]?.body).toEqual({ preset: 'realistic' });
    expect(requests[7]?.body).toEqual({ reason: 'AM04' });
  });
});

describe('errors', () => {
  it('throws PaymentsApiError with status, code, message and details', async () => {
    const details = [
      { field: 'amount.value', message: 'must be a positive decimal with at most 4 decimal places' },
    ];
    const { fetch } = fakeFetch(
      fail(400, { message: 'Validation failed', code: 'VALIDATION_FAILED', details }),
    );
    const error = await client(fetch)
      .payments.create(createInput)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Validation failed',
      details,
    });
  });

  it('leaves code undefined where the service gives none (404)', async () => {
    const { fetch, requests } = fakeFetch(fail(404, { message: 'Payment not found' }));
    const error = await client(fetch)
      .payments.get(OTHER_PAYMENT_ID)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, code: undefined, message: 'Payment not found' });
    expect(requests).toHaveLength(1);
  });

  it('reports a non-envelope body (a proxy page) by its status', async () => {
    const { fetch } = fakeFetch(
      new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const error = await settle(client(fetch, { maxRetries: 0 }).payments.get(PAYMENT_ID));
    expect(error).toMatchObject({ status: 502, code: undefined, message: 'HTTP 502 Bad Gateway' });
  });

  it('reports a 2xx without the envelope as INVALID_RESPONSE', async () => {
    const { fetch } = fakeFetch(new Response('{"paymentId":"p1"}', { status: 200 }));
    const error = await client(fetch)
      .payments.get(PAYMENT_ID)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
  });

  it('network failures and timeouts are the same family, told apart by class and code', async () => {
    const down = await settle(
      client(fakeFetch(networkError()).fetch, { maxRetries: 0 }).payments.get(PAYMENT_ID),
    );
    expect(down).toBeInstanceOf(PaymentsConnectionError);
    expect(down).toBeInstanceOf(PaymentsApiError);
    expect(down).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
    expect((down as Error).cause).toBeInstanceOf(TypeError);

    const slow = await settle(
      client(fakeFetch('hang').fetch, { maxRetries: 0, timeoutMs: 1_000 }).payments.get(PAYMENT_ID),
    );
    expect(slow).toBeInstanceOf(PaymentsTimeoutError);
    expect(slow).toBeInstanceOf(PaymentsConnectionError);
    expect(slow).toMatchObject({ status: 0, code: 'TIMEOUT' });
  });
});

describe('retries', () => {
  it('retries a read on 5xx with exponential backoff and full jitter', async () => {
    const { fetch, requests } = fakeFetch(
      fail(503, { message: 'down' }),
      fail(500, { message: 'oops', code: 'INTERNAL_ERROR' }),
      ok(paymentFixture()),
    );
    const start = Date.now();
    const payment = await settle(client(fetch).payments.get(PAYMENT_ID));
    expect(payment).toMatchObject({ paymentId: PAYMENT_ID });
    // Random pinned near 1: waits just under 0.5 s then 1 s (ceilings 500 * 2^attempt).
    expect(requests.map((r) => r.at - start)).toEqual([0, 499, 1498]);
  });

  it('draws each wait uniformly below the ceiling', async () => {
    vi.mocked(Math.random).mockReturnValue(0.5);
    const { fetch, requests } = fakeFetch(
      networkError(),
      networkError(),
      networkError(),
      ok(paymentFixture()),
    );
    const start = Date.now();
    await settle(client(fetch, { maxRetries: 3 }).payments.get(PAYMENT_ID));
    expect(requests.map((r) => r.at - start)).toEqual([0, 250, 750, 1750]);
  });

  it('gives up after maxRetries and throws the last failure', async () => {
    const { fetch, requests } = fakeFetch(fail(503, { message: 'still down' }));
    const error = await settle(client(fetch, { maxRetries: 2 }).payments.list());
    expect(error).toMatchObject({ status: 503, message: 'still down' });
    expect(requests).toHaveLength(3);
  });

  it('does not retry a 4xx', async () => {
    const { fetch, requests } = fakeFetch(fail(401, { message: 'Invalid API key' }));
    const error = await settle(client(fetch).payments.get(PAYMENT_ID));
    expect(error).toMatchObject({ status: 401 });
    expect(requests).toHaveLength(1);
  });

  it('honours Retry-After (seconds) on 429', async () => {
    const { fetch, requests } = fakeFetch(
      fail(429, { message: 'Slow down', code: 'RATE_LIMITED' }, { 'retry-after': '7' }),
      ok(paymentFixture()),
    );
    const start = Date.now();
    await settle(client(fetch).payments.get(PAYMENT_ID));
    expect(requests.map((r) => r.at - start)).toEqual([0, 7_000]);
  });

  it('throws instead of sleeping through a Retry-After over 60 s', async () => {
    const { fetch, requests } = fakeFetch(fail(503, { message: 'maintenance' }, { 'retry-after': '3600' }));
    const error = await settle(client(fetch).payments.get(PAYMENT_ID));
    expect(error).toMatchObject({ status: 503, retryAfterMs: 3_600_000 });
    expect(requests).toHaveLength(1);
  });

  it('retries a timed-out read', async () => {
    const { fetch, requests } = fakeFetch('hang', ok(paymentFixture()));
    const start = Date.now();
    const payment = await settle(client(fetch, { timeoutMs: 2_000 }).payments.get(PAYMENT_ID));
    expect(payment).toMatchObject({ status: 'AUTHORIZING' });
    expect(requests.map((r) => r.at - start)).toEqual([0, 2_499]);
  });

  it('retries create with one idempotency key across attempts', async () => {
    const { fetch, requests } = fakeFetch(
      networkError(),
      fail(502, { message: 'gw' }),
      ok({ paymentId: PAYMENT_ID }, 201),
    );
    const created = await settle(client(fetch).payments.create(createInput));
    expect(created).toEqual({ paymentId: PAYMENT_ID });
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(requests[0]?.body).toEqual(createInput);
    expect(requests[0]?.headers.get('content-type')).toBe('application/json');
  });

  it('uses the caller’s idempotency key, and a fresh one per create call', async () => {
    const { fetch, requests } = fakeFetch(ok({ paymentId: PAYMENT_ID }, 201));
    const c = client(fetch);
    await c.payments.create(createInput, { idempotencyKey: 'order-42' });
    await c.payments.create(createInput);
    await c.payments.create(createInput);
    const [mine, first, second] = requests.map((r) => r.headers.get('idempotency-key'));
    expect(mine).toBe('order-42');
    expect(first).not.toBe(second);
  });

  it('surfaces 409 IDEMPOTENCY_KEY_REUSED without retrying', async () => {
    const { fetch, requests } = fakeFetch(
      fail(409, { message: 'Idempotency key reused with another body', code: 'IDEMPOTENCY_KEY_REUSED' }),
    );
    const error = await settle(client(fetch).payments.create(createInput, { idempotencyKey: 'k' }));
    expect(error).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(requests).toHaveLength(1);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_PROGRESS on create with the same key until the first payment answers', async () => {
    const { fetch, requests } = fakeFetch(
      fail(409, { message: 'still being processed', code: 'IDEMPOTENCY_KEY_IN_PROGRESS' }),
      ok({ paymentId: PAYMENT_ID }, 201),
    );
    const created = await settle(client(fetch).payments.create(createInput, { idempotencyKey: 'k' }));
    expect(created).toMatchObject({ paymentId: PAYMENT_ID });
    expect(requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['k', 'k']);
  });

  it('never retries cancel: not on 5xx, not on network failure, not on 409', async () => {
    for (const reply of [
      fail(503, { message: 'down' }),
      networkError(),
      fail(409, { message: 'Payment is COMPLETED', code: 'PAYMENT_NOT_CANCELLABLE' }),
    ]) {
      const { fetch, requests } = fakeFetch(reply);
      const error = await settle(client(fetch).payments.cancel(PAYMENT_ID));
      expect(error).toBeInstanceOf(PaymentsApiError);
      expect(requests).toHaveLength(1);
    }
  });

  it('never retries sandbox decisions', async () => {
    const { fetch, requests } = fakeFetch(fail(503, { message: 'down' }));
    await settle(client(fetch).sandbox.approve(PAYMENT_ID));
    await settle(client(fetch).sandbox.reject(PAYMENT_ID));
    expect(requests).toHaveLength(2);
  });

  it('maxRetries 0 turns retries off', async () => {
    const { fetch, requests } = fakeFetch(networkError());
    await settle(client(fetch, { maxRetries: 0 }).payments.get(PAYMENT_ID));
    expect(requests).toHaveLength(1);
  });
});

describe('abort', () => {
  it('rejects with the signal’s reason and stops retrying', async () => {
    const { fetch, requests } = fakeFetch('hang');
    const controller = new AbortController();
    const call = client(fetch)
      .payments.get(PAYMENT_ID, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('user left'));
    expect(await call).toEqual(new Error('user left'));
    await vi.runAllTimersAsync();
    expect(requests).toHaveLength(1);
  });

  it('aborts during a backoff wait', async () => {
    const { fetch, requests } = fakeFetch(networkError());
    const controller = new AbortController();
    const call = client(fetch)
      .payments.get(PAYMENT_ID, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect((await call) as Error).toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(1);
  });
});

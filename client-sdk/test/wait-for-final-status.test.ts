import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Payment, type PaymentStatus, PaymentsClient, PaymentsWaitTimeoutError } from '../src/index.ts';
import { fail, fakeFetch, ok, type SeenRequest } from './fake-fetch.ts';
import { API_KEY, BASE_URL, PAYMENT_ID, paymentFixture, settle } from './fixtures.ts';

let start = 0;

beforeEach(() => {
  vi.useFakeTimers();
  start = Date.now();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A server whose payment takes the given statuses at the given seconds after the wait began. */
const timeline = (steps: Array<[seconds: number, status: PaymentStatus]>) => (request: SeenRequest) => {
  const elapsed = (request.at - start) / 1000;
  const [, status] = steps.filter(([at]) => at <= elapsed).at(-1) ?? [0, 'AUTHORIZING'];
  return ok(paymentFixture(status));
};

const clientFor = (fetch: ReturnType<typeof fakeFetch>['fetch']) =>
  new PaymentsClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });

const secondsOf = (requests: SeenRequest[]) => requests.map((r) => (r.at - start) / 1000);

describe('waitForFinalStatus schedule', () => {
  it('reads at once, every 3 s for the first minute, then every 60 s, and stops at a final status', async () => {
    // Mock bank `slow` approved at t = 0: AUTHORIZED, SUBMITTED 30 s, ACCEPTED 2 min, COMPLETED 10 min.
    const { fetch, requests } = fakeFetch(
      timeline([
        [0, 'AUTHORIZED'],
        [30, 'SUBMITTED'],
        [120, 'ACCEPTED'],
        [600, 'COMPLETED'],
      ]),
    );
    const result = await settle(clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID));

    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(secondsOf(requests)).toEqual([
      0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 120, 180, 240, 300, 360,
      420, 480, 540, 600,
    ]);
    expect(
      requests.every((r) => r.method === 'GET' && r.url.pathname === `/api/payments/${PAYMENT_ID}`),
    ).toBe(true);
  });

  it('returns after the first read when the payment is already final', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('FAILED')));
    const result = await settle(clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID));
    expect(result).toMatchObject({ status: 'FAILED' });
    expect(secondsOf(requests)).toEqual([0]);
  });

  it('calls onUpdate once per status change, first read included', async () => {
    const { fetch } = fakeFetch(
      timeline([
        [0, 'AUTHORIZED'],
        [5, 'SUBMITTED'],
        [15, 'ACCEPTED'],
        [60, 'COMPLETED'],
      ]),
    );
    const seen: Array<[number, PaymentStatus]> = [];
    await settle(
      clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID, {
        onUpdate: (payment: Payment) => {
          seen.push([(Date.now() - start) / 1000, payment.status]);
        },
      }),
    );
    expect(seen).toEqual([
      [0, 'AUTHORIZED'],
      [6, 'SUBMITTED'],
      [15, 'ACCEPTED'],
      [60, 'COMPLETED'],
    ]);
  });

  it('rejects with PaymentsWaitTimeoutError carrying the last payment after timeoutMs', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING')));
    const error = await settle(
      clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID, { timeoutMs: 10_000 }),
    );
    expect(error).toBeInstanceOf(PaymentsWaitTimeoutError);
    expect(error).toMatchObject({ code: 'WAIT_TIMEOUT', payment: { status: 'AUTHORIZING' } });
    expect(secondsOf(requests)).toEqual([0, 3, 6, 9]);
    expect(Date.now() - start).toBe(10_000);
  });

  it('the default timeout is 15 minutes, reads strictly before it', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING')));
    const error = await settle(clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID));
    expect(error).toBeInstanceOf(PaymentsWaitTimeoutError);
    expect(secondsOf(requests).at(-1)).toBe(840);
    expect(Date.now() - start).toBe(900_000);
  });

  it('cuts a read still hanging at the deadline', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING')), 'hang');
    const error = await settle(
      clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID, { timeoutMs: 5_000 }),
    );
    expect(error).toBeInstanceOf(PaymentsWaitTimeoutError);
    expect(secondsOf(requests)).toEqual([0, 3]);
    expect(Date.now() - start).toBe(5_000);
  });

  it('stops when the signal aborts, with its reason', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING')));
    const controller = new AbortController();
    const wait = clientFor(fetch)
      .payments.waitForFinalStatus(PAYMENT_ID, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(7_000);
    controller.abort(new Error('customer closed the tab'));
    expect(await wait).toEqual(new Error('customer closed the tab'));
    await vi.runAllTimersAsync();
    expect(secondsOf(requests)).toEqual([0, 3, 6]);
  });

  it('skips a read that keeps failing transiently and goes on with the schedule', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let reads = 0;
    const { fetch, requests } = fakeFetch(() => {
      reads += 1;
      // The second scheduled read (t = 3 s) fails all three attempts.
      if (reads >= 2 && reads <= 4) return fail(503, { message: 'down' });
      return ok(paymentFixture(reads > 5 ? 'COMPLETED' : 'AUTHORIZING'));
    });
    const result = await settle(clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID));
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(secondsOf(requests)).toEqual([0, 3, 3, 3, 6, 9]);
  });

  it('ends on a failure that retrying cannot fix (404)', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()), fail(404, { message: 'Payment not found' }));
    const error = await settle(clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID));
    expect(error).toMatchObject({ status: 404 });
    expect(requests).toHaveLength(2);
  });
});

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

/**
 * A server that implements waiting reads: the payment takes `steps` at the given seconds after
 * the wait began; a read with the current ETag and `Prefer: wait=N` is held (on the fake clock)
 * until the next step or N seconds. `honours: false`: it sends ETags but never waits.
 */
const waitingServer = (steps: Array<[seconds: number, status: PaymentStatus]>, honours = true) => {
  const requests: SeenRequest[] = [];
  const statusAt = (ms: number) => steps.filter(([at]) => at * 1000 <= ms - start).at(-1)?.[1] ?? 'PENDING';
  const answer = (status: PaymentStatus, waited: string | undefined) =>
    new Response(JSON.stringify({ success: true, data: paymentFixture(status) }), {
      headers: {
        'content-type': 'application/json',
        etag: `"${status}"`,
        ...(waited ? { 'preference-applied': waited } : {}),
      },
    });
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const headers = new Headers(init.headers);
    requests.push({
      method: 'GET',
      url: new URL(input),
      headers,
      body: undefined,
      redirect: init.redirect,
      at: Date.now(),
    });
    const status = statusAt(Date.now());
    const ifNoneMatch = headers.get('if-none-match');
    const wait = /wait=(\d+)/.exec(headers.get('prefer') ?? '')?.[1];
    if (!honours || !ifNoneMatch || !wait) return answer(status, undefined);
    const applied = `wait=${Math.min(Number(wait), 60)}`;
    if (ifNoneMatch !== `"${status}"`) return answer(status, applied);
    const until = Date.now() + Math.min(Number(wait), 60) * 1000;
    const nextStep = steps.map(([at]) => start + at * 1000).find((at) => at > Date.now()) ?? Infinity;
    await new Promise((resolve) => setTimeout(resolve, Math.min(until, nextStep) - Date.now()));
    return answer(statusAt(Date.now()), applied);
  };
  return { fetch, requests };
};

/** Every status, one step each: PENDING at once, COMPLETED after 90 s. */
const SIX_STEPS: Array<[number, PaymentStatus]> = [
  [0, 'PENDING'],
  [2, 'AUTHORIZING'],
  [4, 'AUTHORIZED'],
  [9, 'SUBMITTED'],
  [19, 'ACCEPTED'],
  [90, 'COMPLETED'],
];

describe('waitForFinalStatus with a server that waits (Prefer: wait)', () => {
  it('reads once per change, each answered the moment it happens: 7 reads for six steps over 90 s', async () => {
    const server = waitingServer(SIX_STEPS);
    const seen: Array<[number, PaymentStatus]> = [];
    const result = await settle(
      clientFor(server.fetch).payments.waitForFinalStatus(PAYMENT_ID, {
        onUpdate: (payment: Payment) => {
          seen.push([(Date.now() - start) / 1000, payment.status]);
        },
      }),
    );
    expect(result).toMatchObject({ status: 'COMPLETED' });
    // Every step seen at the very second it happened.
    expect(seen).toEqual(SIX_STEPS);
    // The first read, one per change, and one wait of 60 s that ran out between 19 s and 90 s
    // (against 41 reads on the spec's schedule).
    expect(secondsOf(server.requests)).toEqual([0, 0, 2, 4, 9, 19, 79]);
    expect(server.requests[0]?.headers.get('prefer')).toBeNull();
    expect(server.requests[1]?.headers.get('if-none-match')).toBe('"PENDING"');
    expect(server.requests[1]?.headers.get('prefer')).toBe('wait=60');
  });

  it('never asks to wait longer than its own timeout leaves', async () => {
    const server = waitingServer([[0, 'AUTHORIZED']]);
    const error = await settle(
      clientFor(server.fetch).payments.waitForFinalStatus(PAYMENT_ID, { timeoutMs: 10_500 }),
    );
    expect(error).toBeInstanceOf(PaymentsWaitTimeoutError);
    // With half a second left after the wait, a last plain read.
    expect(server.requests.map((r) => r.headers.get('prefer'))).toEqual([null, 'wait=10', null]);
  });

  it.each([
    ['the same ETag', (_count: number) => '"AUTHORIZED"'],
    ['a new ETag each time', (count: number) => `"v${count}"`],
  ])(
    'never reads faster than the spec schedule from a server that claims to wait but answers at once with %s',
    async (_name, etagOf) => {
      // Hostile or broken: Preference-Applied on every answer, no status change, no wait at all.
      const requests: number[] = [];
      const fetch = async (_input: string, _init: RequestInit): Promise<Response> => {
        requests.push(Date.now());
        // A guard so the test ends even if the client spins (fake timers never advance then).
        const status = requests.length > 500 ? 'COMPLETED' : 'AUTHORIZED';
        return new Response(JSON.stringify({ success: true, data: paymentFixture(status) }), {
          headers: {
            'content-type': 'application/json',
            etag: etagOf(requests.length),
            'preference-applied': 'wait=60',
          },
        });
      };
      const error = await settle(
        clientFor(fetch).payments.waitForFinalStatus(PAYMENT_ID, { timeoutMs: 125_000 }),
      );
      expect(error).toBeInstanceOf(PaymentsWaitTimeoutError);
      // The first read, the one that finds out at once, then every 3 s to 60 s and each minute.
      expect(requests.map((at) => (at - start) / 1000)).toEqual([
        0, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 120,
      ]);
    },
  );

  it("falls back to the spec's schedule when the server sends ETags but does not wait", async () => {
    const server = waitingServer(SIX_STEPS, false);
    const seen: PaymentStatus[] = [];
    const result = await settle(
      clientFor(server.fetch).payments.waitForFinalStatus(PAYMENT_ID, {
        onUpdate: (payment: Payment) => {
          seen.push(payment.status);
        },
      }),
    );
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(seen).toEqual(SIX_STEPS.map(([, status]) => status));
    // One waiting read at once finds out, then the schedule: every 3 s to 60 s, then each minute.
    expect(secondsOf(server.requests)).toEqual([
      0, 0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 120,
    ]);
    expect(server.requests.slice(2).every((r) => r.headers.get('prefer') === null)).toBe(true);
  });
});

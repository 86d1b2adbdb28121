import { describe, expect, it } from 'vitest';
import { type Payment, PaymentMismatchError, PaymentsClient, parseReturnUrl } from '../src/index.ts';
import { fakeFetch, ok, type SeenRequest } from './fake-fetch.ts';
import { API_KEY, BASE_URL, OTHER_PAYMENT_ID, PAYMENT_ID, paymentFixture } from './fixtures.ts';

const clientFor = (fetch: ReturnType<typeof fakeFetch>['fetch']) =>
  new PaymentsClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch });

/** A list endpoint over `all`, honouring limit and offset like the service. */
const listOf = (all: () => Payment[]) => (request: SeenRequest) => {
  const limit = Number(request.url.searchParams.get('limit') ?? 20);
  const offset = Number(request.url.searchParams.get('offset') ?? 0);
  const items = all();
  return ok({ payments: items.slice(offset, offset + limit), total: items.length, limit, offset });
};

const payments = (n: number) =>
  Array.from({ length: n }, (_, i) => paymentFixture('COMPLETED', `pay_${i + 1}`));

describe('payments.listAll', () => {
  it('walks every page with for await, passing the filters on', async () => {
    const all = payments(250);
    const { fetch, requests } = fakeFetch(listOf(() => all));
    const ids: string[] = [];
    for await (const payment of clientFor(fetch).payments.listAll({ status: 'COMPLETED' }))
      ids.push(payment.paymentId);
    expect(ids).toEqual(all.map((p) => p.paymentId));
    expect(requests.map((r) => r.url.search)).toEqual([
      '?status=COMPLETED&limit=100&offset=0',
      '?status=COMPLETED&limit=100&offset=100',
      '?status=COMPLETED&limit=100&offset=200',
    ]);
  });

  it('uses the given page size and starting offset; an empty list is one request', async () => {
    const all = payments(5);
    const { fetch, requests } = fakeFetch(listOf(() => all));
    const ids: string[] = [];
    for await (const payment of clientFor(fetch).payments.listAll({ limit: 2, offset: 1 }))
      ids.push(payment.paymentId);
    expect(ids).toEqual(['pay_2', 'pay_3', 'pay_4', 'pay_5']);
    expect(requests).toHaveLength(2);

    const none = fakeFetch(listOf(() => []));
    for await (const _ of clientFor(none.fetch).payments.listAll()) throw new Error('nothing to yield');
    expect(none.requests).toHaveLength(1);
  });

  it('fetches lazily: breaking out stops requesting pages', async () => {
    const { fetch, requests } = fakeFetch(listOf(() => payments(500)));
    for await (const payment of clientFor(fetch).payments.listAll({ limit: 10 })) {
      if (payment.paymentId === 'pay_15') break;
    }
    expect(requests).toHaveLength(2);
  });

  it('does not repeat a payment when a new one shifts the pages (newest first)', async () => {
    let all = payments(4);
    const { fetch } = fakeFetch((request) => {
      const reply = listOf(() => all)(request);
      all = [paymentFixture('AUTHORIZING', `new_${all.length}`), ...all]; // a payment arrives between pages
      return reply;
    });
    const ids: string[] = [];
    for await (const payment of clientFor(fetch).payments.listAll({ limit: 2 })) ids.push(payment.paymentId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 2)).toEqual(['pay_1', 'pay_2']);
  });
});

describe('payments.verifyReturn', () => {
  const returnUrl = (query: string) => `https://shop.example/checkout/return?order=9&${query}`;

  it("reads the order's own payment and ignores the status the URL claims", async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING')));
    const payment = await clientFor(fetch).payments.verifyReturn(
      returnUrl(`paymentId=${PAYMENT_ID}&status=COMPLETED`),
      { expectedPaymentId: PAYMENT_ID },
    );
    expect(payment.status).toBe('AUTHORIZING');
    expect(requests.map((r) => r.url.pathname)).toEqual([`/api/payments/${PAYMENT_ID}`]);
  });

  it('accepts a path-only URL (req.url) and a URL object', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    const payments = clientFor(fetch).payments;
    const expected = { expectedPaymentId: PAYMENT_ID };
    await payments.verifyReturn(`/checkout/return?paymentId=${PAYMENT_ID}&status=FAILED`, expected);
    await payments.verifyReturn(new URL(returnUrl(`paymentId=${PAYMENT_ID}`)), expected);
    expect(requests).toHaveLength(2);
  });

  it("refuses another payment's id with PaymentMismatchError, reading nothing", async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('COMPLETED', OTHER_PAYMENT_ID)));
    const error = await clientFor(fetch)
      .payments.verifyReturn(returnUrl(`paymentId=${OTHER_PAYMENT_ID}&status=COMPLETED`), {
        expectedPaymentId: PAYMENT_ID,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentMismatchError);
    expect(error).toMatchObject({ expectedPaymentId: PAYMENT_ID, returnedPaymentId: OTHER_PAYMENT_ID });
    expect(requests).toHaveLength(0);
  });

  it('requires expectedPaymentId at run time too (plain JavaScript)', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    const verifyReturn = clientFor(fetch).payments.verifyReturn.bind(clientFor(fetch).payments) as (
      ...args: unknown[]
    ) => Promise<unknown>;
    const url = returnUrl(`paymentId=${PAYMENT_ID}`);
    for (const options of [undefined, {}, { expectedPaymentId: 42 }, { expectedPaymentId: '' }, null]) {
      await expect(verifyReturn(url, options), JSON.stringify(options)).rejects.toThrow(TypeError);
    }
    await expect(verifyReturn(url)).rejects.toThrow(/expectedPaymentId/);
    expect(requests).toHaveLength(0);
  });

  it('refuses malformed return URLs with a TypeError before any request', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    const verify = (url: unknown) =>
      clientFor(fetch).payments.verifyReturn(url as string, { expectedPaymentId: PAYMENT_ID });
    const cases: Array<[unknown, RegExp]> = [
      [returnUrl('status=COMPLETED'), /no paymentId/],
      [returnUrl(`paymentId=${PAYMENT_ID}&paymentId=${OTHER_PAYMENT_ID}`), /2 paymentId/],
      [returnUrl(`paymentId=${PAYMENT_ID}&paymentId=${PAYMENT_ID}`), /2 paymentId/],
      [returnUrl('paymentId='), /is not a payment id/],
      [returnUrl('paymentId=..'), /is not a payment id/],
      [returnUrl('paymentId=.'), /is not a payment id/],
      [returnUrl(`paymentId=${PAYMENT_ID}%2F..%2Fproviders`), /is not a payment id/],
      [returnUrl('paymentId=providers'), /is not a payment id/],
      [42, /must be a string or a URL/],
      ['http://[oops', /not a URL/],
    ];
    for (const [url, message] of cases) {
      await expect(verify(url), String(url)).rejects.toThrow(message);
      await expect(verify(url)).rejects.toBeInstanceOf(TypeError);
    }
    expect(requests).toHaveLength(0);
    expect(parseReturnUrl(`/r?paymentId=${PAYMENT_ID}&status=COMPLETED`)).toEqual({
      paymentId: PAYMENT_ID,
      claimedStatus: 'COMPLETED',
    });
  });
});

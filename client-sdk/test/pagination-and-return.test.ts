import { describe, expect, it } from 'vitest';
import { type Payment, PaymentsClient, parseReturnUrl } from '../src/index.ts';
import { fakeFetch, ok, type SeenRequest } from './fake-fetch.ts';
import { API_KEY, BASE_URL, paymentFixture } from './fixtures.ts';

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
  it('reads the payment named in the URL and ignores the status the URL claims', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture('AUTHORIZING', 'pay_42')));
    const payment = await clientFor(fetch).payments.verifyReturn(
      'https://shop.example/checkout/return?order=9&paymentId=pay_42&status=COMPLETED',
    );
    expect(payment.status).toBe('AUTHORIZING');
    expect(requests.map((r) => r.url.pathname)).toEqual(['/api/payments/pay_42']);
  });

  it('accepts a path-only URL (req.url) and a URL object', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    await clientFor(fetch).payments.verifyReturn('/checkout/return?paymentId=pay_7&status=FAILED');
    await clientFor(fetch).payments.verifyReturn(new URL('https://shop.example/r?paymentId=pay_8'));
    expect(requests.map((r) => r.url.pathname)).toEqual(['/api/payments/pay_7', '/api/payments/pay_8']);
  });

  it('refuses a URL without paymentId before any request', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    expect(() => clientFor(fetch).payments.verifyReturn('https://shop.example/r?status=COMPLETED')).toThrow(
      TypeError,
    );
    expect(requests).toHaveLength(0);
    expect(parseReturnUrl('/r?paymentId=p&status=COMPLETED')).toEqual({
      paymentId: 'p',
      claimedStatus: 'COMPLETED',
    });
  });
});

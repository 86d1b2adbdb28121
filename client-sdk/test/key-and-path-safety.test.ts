import { describe, expect, it } from 'vitest';
import { PaymentsApiError, PaymentsClient } from '../src/index.ts';
import { fakeFetch, ok } from './fake-fetch.ts';
import { API_KEY, BASE_URL, PAYMENT_ID, paymentFixture } from './fixtures.ts';

// Issue 13 items 2 and 3 with a scripted fetch; test/contract/safety.test.ts proves the same
// against real sockets and the real server.

const clientFor = (fetch: ReturnType<typeof fakeFetch>['fetch']) =>
  new PaymentsClient({ apiKey: API_KEY, baseUrl: BASE_URL, fetch, maxRetries: 3 });

describe('baseUrl', () => {
  const make = (baseUrl: unknown, allowInsecureHttp?: boolean) => () =>
    new PaymentsClient({ apiKey: API_KEY, baseUrl: baseUrl as string, allowInsecureHttp });

  it('accepts https anywhere and plain http on loopback only', () => {
    for (const ok of [
      'https://payments.example.com',
      'https://payments.example.com/pis/',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://127.8.9.10',
      'http://[::1]:3000',
    ]) {
      expect(make(ok), ok).not.toThrow();
    }
  });

  it('refuses plain http elsewhere with a TypeError that says why and how', () => {
    for (const insecure of [
      'http://payments.example.com',
      'http://10.0.0.5:3000',
      'http://128.0.0.1',
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io',
      'http://[::2]',
    ]) {
      expect(make(insecure), insecure).toThrow(TypeError);
      expect(make(insecure)).toThrow(/plain http.*allowInsecureHttp/);
    }
  });

  it('allows plain http on a test network only when asked explicitly', () => {
    expect(make('http://pis:3000', true)).not.toThrow();
    expect(make('ftp://pis', true)).toThrow(TypeError);
  });

  it('refuses what is not a usable base address', () => {
    for (const bad of [
      '',
      'payments.example.com',
      'file:///etc',
      'https://user:pw@p.example',
      'https://p.example/?a=1',
      42,
    ]) {
      expect(make(bad), String(bad)).toThrow(TypeError);
    }
  });
});

describe('redirects', () => {
  it('are never followed: a 3xx is a PaymentsApiError naming the Location, never the key', async () => {
    const location = `https://elsewhere.example/api/payments/${PAYMENT_ID}?k=${API_KEY}`;
    for (const status of [301, 302, 303, 307, 308]) {
      const { fetch, requests } = fakeFetch(new Response(null, { status, headers: { location } }));
      const error = await clientFor(fetch)
        .payments.get(PAYMENT_ID)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentsApiError);
      expect(error).toMatchObject({ status, code: 'UNEXPECTED_REDIRECT' });
      const message = (error as Error).message;
      expect(message).toContain('https://elsewhere.example/api/payments/');
      expect(message).not.toContain(API_KEY);
      // One request, not retried, and fetch was told not to follow.
      expect(requests).toHaveLength(1);
      expect(requests[0]?.redirect).toBe('manual');
    }
  });

  it("a browser's opaque redirect is refused the same way", async () => {
    const opaque = new Response(null, { status: 200 });
    Object.defineProperty(opaque, 'type', { value: 'opaqueredirect' });
    Object.defineProperty(opaque, 'status', { value: 0 });
    Object.defineProperty(opaque, 'clone', { value: () => opaque });
    const { fetch } = fakeFetch(opaque);
    await expect(clientFor(fetch).payments.list()).rejects.toMatchObject({ code: 'UNEXPECTED_REDIRECT' });
  });

  it('every call asks fetch not to follow redirects', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    const c = clientFor(fetch);
    await c.payments.create({
      toAccount: { accountName: 'A', iban: 'GB33BUKB20201555555555' },
      amount: { value: 1, currency: 'GBP' },
    });
    await c.payments.get(PAYMENT_ID);
    await c.payments.cancel(PAYMENT_ID);
    await c.sandbox.approve(PAYMENT_ID);
    expect(requests.map((r) => r.redirect)).toEqual(['manual', 'manual', 'manual', 'manual']);
  });
});

describe('ids in paths', () => {
  const hostile = [
    '',
    '.',
    '..',
    'providers',
    'a/b',
    '%2e%2e',
    `${PAYMENT_ID}/cancel`,
    ` ${PAYMENT_ID}`,
    'pay_short',
  ];

  it('anything but the shape the service issues is a TypeError before any request', async () => {
    const { fetch, requests } = fakeFetch(ok(paymentFixture()));
    const c = clientFor(fetch);
    const calls = (id: unknown) => {
      const s = id as string;
      return [
        c.payments.get(s),
        c.payments.sync(s),
        c.payments.cancel(s),
        c.payments.waitForFinalStatus(s),
        c.sandbox.approve(s),
        c.sandbox.reject(s),
      ];
    };
    for (const id of [...hostile, 42, null, undefined, { toString: () => PAYMENT_ID }]) {
      for (const call of calls(id)) await expect(call, String(id)).rejects.toBeInstanceOf(TypeError);
    }
    for (const id of [...hostile, 'MOCK-GB-ALBION', 'mock_gb', 'albion']) {
      await expect(c.banks.get(id), id).rejects.toBeInstanceOf(TypeError);
    }
    expect(requests).toHaveLength(0);
  });

  it('the message names the argument and what it should look like', async () => {
    const { fetch } = fakeFetch(ok(paymentFixture()));
    await expect(clientFor(fetch).payments.get('..')).rejects.toThrow(
      'paymentId ".." is not a payment id (pay_ and 24 letters or digits)',
    );
    await expect(clientFor(fetch).banks.get('providers')).rejects.toThrow(
      'bankId "providers" is not a bank id',
    );
  });
});

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../server/test/helpers/test-app.ts';
import { type FetchLike, PaymentMismatchError, PaymentsApiError, PaymentsClient } from '../../src/index.ts';
import { order } from './scenarios.ts';

// Issue 13 items 1-3 against the real server and real sockets (the global fetch, no doubles).

const { app, factories } = await createTestApp();
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const { apiKey } = await factories.createMerchant();

/** The global fetch, counting what it is asked to send. */
const countingFetch = () => {
  const sent: string[] = [];
  const fetch: FetchLike = (input, init) => {
    sent.push(`${init.method} ${input}`);
    return globalThis.fetch(input, init);
  };
  return { fetch, sent };
};

/** A plain HTTP server on loopback that records what reaches it. */
const listen = async (answer: (port: number) => { status: number; headers?: Record<string, string> }) => {
  const seen: Array<{ method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders }> =
    [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    const { status, headers } = answer((server.address() as AddressInfo).port);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ success: true, data: { paymentId: 'from-elsewhere' } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
};

describe('item 1: the return check is bound to the order', () => {
  it('a cheap paid payment swapped into an expensive order is refused, and nothing is read', async () => {
    const client = new PaymentsClient({ apiKey, baseUrl, maxRetries: 0 });
    const cheap = await client.payments.create({
      ...order,
      amount: { value: '0.01', currency: 'GBP' },
      redirectUrl: 'https://shop.example/return?order=1',
    });
    const dear = await client.payments.create({
      ...order,
      amount: { value: '999.00', currency: 'GBP' },
      redirectUrl: 'https://shop.example/return?order=2',
    });
    expect((await client.sandbox.approve(cheap.paymentId)).status).toBe('COMPLETED');

    const counted = countingFetch();
    const guarded = new PaymentsClient({ apiKey, baseUrl, fetch: counted.fetch, maxRetries: 0 });
    const swapped = `https://shop.example/return?order=2&paymentId=${cheap.paymentId}&status=COMPLETED`;
    const error = await guarded.payments
      .verifyReturn(swapped, { expectedPaymentId: dear.paymentId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentMismatchError);
    expect(error).toMatchObject({ expectedPaymentId: dear.paymentId, returnedPaymentId: cheap.paymentId });
    expect(counted.sent).toEqual([]);

    // The honest return reads the expensive order's own payment: not paid.
    const own = await guarded.payments.verifyReturn(
      `https://shop.example/return?order=2&paymentId=${dear.paymentId}&status=COMPLETED`,
      { expectedPaymentId: dear.paymentId },
    );
    expect(own).toMatchObject({ paymentId: dear.paymentId, status: 'AUTHORIZING' });
    expect(counted.sent).toEqual([`GET ${baseUrl}/api/payments/${dear.paymentId}`]);
  });
});

describe('item 2: the API key never leaves its origin', () => {
  it('a 307 to another local port is an error; that port never sees the key or the body', async () => {
    const elsewhere = await listen(() => ({ status: 200 }));
    const redirector = await listen(() => ({
      status: 307,
      headers: { location: `${elsewhere.url}/api/payments` },
    }));

    // Without the fix this is what happens: fetch follows, header and body included.
    await globalThis.fetch(`${redirector.url}/api/payments`, {
      method: 'POST',
      headers: { 'x-api-key': 'canary' },
      body: '{}',
    });
    expect(elsewhere.seen.map((r) => r.headers['x-api-key'])).toEqual(['canary']);
    elsewhere.seen.length = 0;
    redirector.seen.length = 0;

    const client = new PaymentsClient({ apiKey, baseUrl: redirector.url });
    for (const call of [() => client.payments.create(order), () => client.payments.list()]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentsApiError);
      expect(error).toMatchObject({ status: 307, code: 'UNEXPECTED_REDIRECT' });
      expect((error as Error).message).toContain(`${elsewhere.url}/api/payments`);
      expect((error as Error).message).not.toContain(apiKey);
    }
    expect(redirector.seen).toHaveLength(2); // one attempt each: a redirect is not retried
    expect(redirector.seen[0]?.headers['x-api-key']).toBe(apiKey);
    expect(elsewhere.seen).toEqual([]);
  });

  it('a redirect loop is one request and a typed error', async () => {
    const loop = await listen((port) => ({
      status: 302,
      headers: { location: `http://127.0.0.1:${port}/api/banks` },
    }));
    const client = new PaymentsClient({ apiKey, baseUrl: loop.url });
    await expect(client.banks.list()).rejects.toMatchObject({ status: 302, code: 'UNEXPECTED_REDIRECT' });
    expect(loop.seen).toHaveLength(1);
  });
});

describe('item 3: ids cannot change the endpoint', () => {
  it("'.', '..', 'providers' and friends never send a request", async () => {
    // Without the check: '.' survives encodeURIComponent and reads the whole payment list.
    const raw = await globalThis.fetch(`${baseUrl}/api/payments/${encodeURIComponent('.')}`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(((await raw.json()) as { data: object }).data).toHaveProperty('payments');

    const { fetch, sent } = countingFetch();
    const client = new PaymentsClient({ apiKey, baseUrl, fetch, maxRetries: 0 });
    for (const id of ['.', '..', 'providers', 'a/b', '', '%2e', '../banks']) {
      await expect(client.payments.get(id), id).rejects.toBeInstanceOf(TypeError);
      await expect(client.payments.sync(id), id).rejects.toBeInstanceOf(TypeError);
      await expect(client.payments.cancel(id), id).rejects.toBeInstanceOf(TypeError);
      await expect(client.sandbox.approve(id), id).rejects.toBeInstanceOf(TypeError);
      await expect(client.banks.get(id), id).rejects.toBeInstanceOf(TypeError);
      await expect(
        client.payments.verifyReturn(`?paymentId=${encodeURIComponent(id)}`, {
          expectedPaymentId: 'pay_000000000000000000000000',
        }),
        id,
      ).rejects.toBeInstanceOf(TypeError);
    }
    expect(sent).toEqual([]);
  });
});

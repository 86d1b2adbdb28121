import { describe, expect, test } from 'vitest';
import { appRouter } from '../src/app-router.ts';
import { expectValidationFailed } from './helpers/expect-envelope.ts';
import { createTestApp } from './helpers/test-app.ts';
import { created, tokenOf } from './payments/payment-fixtures.ts';

/** Issue 24's review: the public tRPC endpoint answers one JSON document, never a stream. */
const { app, factories } = await createTestApp();
const merchant = await factories.createMerchant();
const payment = await created(app, merchant.headers);
const token = tokenOf(payment.redirectUrl);
const batchUrl = `/trpc/pages.mockBankSession,pages.mockBankSession?batch=1&input=${encodeURIComponent(
  JSON.stringify({ 0: { token }, 1: { token } }),
)}`;

describe('/trpc transport', () => {
  test('a batch without streaming headers is answered as one JSON array (the control)', async () => {
    const response = await app.inject({ method: 'GET', url: batchUrl });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toHaveLength(2);
  });

  test('trpc-accept: application/jsonl (httpBatchStreamLink) is refused before tRPC streams anything', async () => {
    const response = await app.inject({
      method: 'GET',
      url: batchUrl,
      headers: { 'trpc-accept': 'application/jsonl' },
    });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['transfer-encoding']).toBeUndefined();
    expect(await expectValidationFailed(response)).toEqual([
      { field: 'trpc-accept', message: 'is not supported: streamed responses are not offered, omit it' },
    ]);
  });

  test('Accept naming a stream type, and the subscription parameters, are refused too', async () => {
    for (const accept of ['application/jsonl', 'text/html, application/jsonl;q=0.9', 'text/event-stream']) {
      const response = await app.inject({ method: 'GET', url: batchUrl, headers: { accept } });
      expect((await expectValidationFailed(response))[0]?.field, accept).toBe('accept');
    }
    const withParams = await app.inject({
      method: 'GET',
      url: `/trpc/pages.mockBankSession?input=${encodeURIComponent(JSON.stringify({ token }))}&connectionParams=1`,
    });
    expect((await expectValidationFailed(withParams))[0]?.field).toBe('connectionParams');
    // A mutation asking for a stream is refused the same way.
    const post = await app.inject({
      method: 'POST',
      url: '/trpc/pages.approve',
      headers: { 'trpc-accept': 'application/jsonl', 'content-type': 'application/json' },
      payload: { token },
    });
    expect((await expectValidationFailed(post))[0]?.field).toBe('trpc-accept');
  });

  test('the router has no subscription procedure (nothing to hold a connection open)', () => {
    const procedures = Object.entries(
      (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def
        .procedures,
    );
    expect(procedures.length).toBeGreaterThan(10);
    expect(procedures.filter(([, procedure]) => procedure._def.type === 'subscription')).toEqual([]);
  });

  test('/api is untouched by the rule (its own content negotiation)', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/api/payments/${payment.paymentId}`,
      headers: { ...merchant.headers, 'trpc-accept': 'application/jsonl' },
    });
    expect(response.statusCode).toBe(200);
  });
});

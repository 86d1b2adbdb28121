import { describe, expect, test } from 'vitest';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, type Headers, type PaymentData } from '../payments/payment-fixtures.ts';

// Four waits per organization, twelve in the process: five organizations asking for six each
// (thirty) are over both. Request budgets far out of reach.
const rateLimits = {
  ...testConfig().rateLimits,
  enabled: true,
  apiReads: 10_000,
  apiWrites: 10_000,
  waitsPerOrganization: 4,
  waitsPerProcess: 12,
};
const { app, factories, waiters } = await createTestApp({ waiting: true, config: { rateLimits } });

const get = (headers: Headers, id: string, extra: Headers = {}) =>
  app.inject({ method: 'GET', url: `/api/payments/${id}`, headers: { ...headers, ...extra } });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string) {
  for (let tries = 0; tries < 1_000 && !condition(); tries += 1) await pause(10);
  expect(condition(), what).toBe(true);
}

interface Held {
  headers: Headers;
  paymentId: string;
  etag: string;
  answer: ReturnType<typeof get>;
  /** Set when the answer arrived. */
  answered?: Awaited<ReturnType<typeof get>>;
}

async function paymentWithEtag(headers: Headers) {
  const { paymentId } = await created(app, headers);
  const etag = (await get(headers, paymentId)).headers.etag as string;
  return { paymentId, etag };
}

/** A waiting read (30 s) on a payment's current ETag; `answered` is filled in when it answers. */
function startWait(headers: Headers, paymentId: string, etag: string): Held {
  const held: Held = {
    headers,
    paymentId,
    etag,
    answer: get(headers, paymentId, { 'if-none-match': etag, prefer: 'wait=30' }),
  };
  void held.answer.then((answer) => {
    held.answered = answer;
  });
  return held;
}

describe('waits the whole process holds at once (WAITS_PER_PROCESS)', () => {
  test('five organizations over their allowances: the ceiling holds, and other merchants are answered', async () => {
    const merchants = await Promise.all(Array.from({ length: 5 }, () => factories.createMerchant()));
    const payments = await Promise.all(
      merchants.map(async (merchant) => {
        const own = [];
        for (let i = 0; i < 6; i++) own.push(await paymentWithEtag(merchant.headers));
        return own;
      }),
    );

    // Thirty asks, round robin, all at once.
    const asked: Held[] = [];
    for (let i = 0; i < 6; i++) {
      merchants.forEach((merchant, m) => {
        const payment = payments[m]?.[i];
        if (payment) asked.push(startWait(merchant.headers, payment.paymentId, payment.etag));
      });
    }
    // Twelve wait; the other eighteen answer at once, as reads that did not ask.
    await until(() => asked.filter((held) => held.answered).length === 18, '18 answered at once');
    await until(() => waiters?.waiting === 12, '12 waiting');
    await pause(200);
    expect(waiters?.waiting).toBe(12);
    const answeredAtOnce = asked.filter((held) => held.answered);
    expect(answeredAtOnce).toHaveLength(18);
    for (const held of answeredAtOnce) {
      const answer = held.answered as Awaited<ReturnType<typeof get>>;
      // Unchanged, and answered anyway: it did not wait for a change.
      expectSuccess<PaymentData>(answer);
      expect(answer.headers.etag).toBe(held.etag);
      expect(answer.headers['preference-applied']).toBeUndefined();
    }
    // No organization holds more than its own four.
    for (const merchant of merchants) {
      expect(waiters?.waitingFor(merchant.organizationId)).toBeLessThanOrEqual(4);
    }

    // Another merchant, under its own allowance, is still answered: creates, reads and lists
    // go through; its wait answers at once (the process is full) and says it did not wait.
    const other = await factories.createMerchant();
    const theirs = await paymentWithEtag(other.headers);
    expectSuccess(await app.inject({ method: 'GET', url: '/api/payments', headers: other.headers }));
    const started = performance.now();
    const refused = await get(other.headers, theirs.paymentId, {
      'if-none-match': theirs.etag,
      prefer: 'wait=30',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expectSuccess<PaymentData>(refused);
    expect(refused.headers['preference-applied']).toBeUndefined();

    // One wait ends (its payment changes): the freed place is the other merchant's.
    const waiting = asked.filter((held) => !held.answered);
    const first = waiting[0] as Held;
    await app.inject({
      method: 'POST',
      url: `/api/payments/${first.paymentId}/cancel`,
      headers: first.headers,
    });
    expect(expectSuccess<PaymentData>(await first.answer).status).toBe('CANCELLED');
    await until(() => waiters?.waiting === 11, '11 waiting');
    const admitted = startWait(other.headers, theirs.paymentId, theirs.etag);
    await until(() => waiters?.waiting === 12, 'the other merchant waits');

    // Everything held answers as usual once its payment changes.
    for (const held of [...waiting.slice(1), admitted]) {
      await app.inject({
        method: 'POST',
        url: `/api/payments/${held.paymentId}/cancel`,
        headers: held.headers,
      });
      const done = await held.answer;
      expect(expectSuccess<PaymentData>(done).status).toBe('CANCELLED');
      expect(done.headers['preference-applied']).toBe('wait=30');
    }
    await until(() => waiters?.waiting === 0, 'none waiting');
  });
});

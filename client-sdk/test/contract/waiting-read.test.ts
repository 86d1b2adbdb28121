import { describe, expect, it } from 'vitest';
import { mswTarget, serverTarget, type Target } from './targets.ts';

// Waiting reads (If-None-Match + Prefer: wait) behave the same on the real service and the
// MSW kit: the same observations, with how long each read was held rounded to whole seconds.

const server = await serverTarget();
const msw = mswTarget();

const order = {
  toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  amount: { value: 10.5, currency: 'GBP' },
  reference: 'Order 42',
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function observe(target: Target) {
  const { client, apiKey } = await target.merchant();
  const read = async (paymentId: string, headers: Record<string, string> = {}) => {
    const started = performance.now();
    const response = await fetch(`${target.baseUrl}/api/payments/${paymentId}`, {
      headers: { 'x-api-key': apiKey, ...headers },
    });
    const body = (await response.json()) as { data?: { status: string } };
    return {
      status: response.status,
      paymentStatus: body.data?.status,
      etag: response.headers.get('etag'),
      applied: response.headers.get('preference-applied'),
      heldSeconds: Math.round((performance.now() - started) / 1000),
    };
  };
  const log: unknown[] = [];
  const { paymentId } = await client.payments.create(order);
  const first = await read(paymentId);
  log.push({ plain: { ...first, etag: first.etag ? 'present' : null } });

  // A wrong ETag, and a wait above 60: at once, capped, said.
  log.push({
    wrong: { ...(await read(paymentId, { 'if-none-match': '"nope"', prefer: 'wait=600' })), etag: '-' },
  });

  // A current ETag: held for the wait (1 s of the target's time: moved for the kit), then the same ETag.
  const timingOut = read(paymentId, { 'if-none-match': first.etag as string, prefer: 'wait=1' });
  await pause(500);
  target.advance(1_000);
  const timedOut = await timingOut;
  log.push({ timedOut: { ...timedOut, sameEtag: timedOut.etag === first.etag, etag: '-' } });

  // A change (the customer approves) answers the held read at once, with the new state.
  const held = read(paymentId, { 'if-none-match': first.etag as string, prefer: 'wait=30' });
  await pause(300);
  await client.sandbox.approve(paymentId, { preset: 'instant' });
  const woken = await held;
  log.push({ woken: { ...woken, changed: woken.etag !== first.etag, etag: '-' } });

  // Unknown payment: 404 at once.
  log.push({
    missing: (await read('pay_ZYXWVUTSRQPONMLKJIHGFEDC', { 'if-none-match': '"x"', prefer: 'wait=30' }))
      .status,
  });

  // The SDK on top: a final payment is one read.
  log.push({ sdk: (await client.payments.waitForFinalStatus(paymentId)).status });
  return log;
}

describe('waiting reads: the MSW kit answers as the service does', () => {
  it('ETag, Prefer: wait, Preference-Applied, time-out, wake on change, 404', async () => {
    const real = await observe(server);
    expect(real).toEqual([
      {
        plain: { status: 200, paymentStatus: 'AUTHORIZING', etag: 'present', applied: null, heldSeconds: 0 },
      },
      { wrong: { status: 200, paymentStatus: 'AUTHORIZING', etag: '-', applied: 'wait=60', heldSeconds: 0 } },
      {
        timedOut: {
          status: 200,
          paymentStatus: 'AUTHORIZING',
          etag: '-',
          applied: 'wait=1',
          heldSeconds: 1,
          sameEtag: true,
        },
      },
      {
        woken: {
          status: 200,
          paymentStatus: 'COMPLETED',
          etag: '-',
          applied: 'wait=30',
          heldSeconds: 0,
          changed: true,
        },
      },
      { missing: 404 },
      { sdk: 'COMPLETED' },
    ]);
    expect(await observe(msw)).toEqual(real);
  });
});

// The README's example: testing a checkout with the MSW kit, no server running.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { PaymentsClient } from '../../src/index.ts';
import { createMockApi } from '../../src/msw/index.ts';
import { createCheckout } from './checkout.ts';

const api = createMockApi({ baseUrl: 'https://pis.test' });
const server = setupServer(...api.handlers);
const checkout = createCheckout(
  new PaymentsClient({ apiKey: 'test-key', baseUrl: 'https://pis.test' }),
  'https://shop.example/checkout/return',
);

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => api.controls.reset());
afterEach(() => vi.useRealTimers());
afterAll(() => server.close());

const paymentIdOf = (bankUrl: string) =>
  api.controls.payments().find((p) => bankUrl.includes(p.paymentId))!.paymentId;

it('a customer who approves at the bank has paid', async () => {
  const bankUrl = await checkout.startPayment({ id: '42', totalPence: 1999 });
  const paymentId = paymentIdOf(bankUrl);

  api.controls.approve(paymentId); // the customer clicks "Approve" (instant)
  const outcome = await checkout.handleReturn(api.controls.returnUrlFor(paymentId)!);

  expect(outcome).toBe('paid');
  expect(api.controls.getPayment(paymentId).amount).toEqual({ value: '19.99', currency: 'GBP' });
});

it('waits while the bank is still settling, with fake timers', async () => {
  vi.useFakeTimers();
  vi.setTimerTickMode('nextTimerAsync'); // the clock jumps to each poll by itself
  const paymentId = paymentIdOf(await checkout.startPayment({ id: '43', totalPence: 500 }));

  api.controls.approve(paymentId, { preset: 'realistic' }); // COMPLETED 60 s after approval
  const returnUrl = api.controls.returnUrlFor(paymentId)!;
  expect(returnUrl).toContain('status=AUTHORIZED');

  expect(await checkout.handleReturn(returnUrl)).toBe('paid');
});

it('a rejected payment is not paid, whatever the return URL claims', async () => {
  const paymentId = paymentIdOf(await checkout.startPayment({ id: '44', totalPence: 500 }));
  api.controls.reject(paymentId, 'AM04');

  const tampered = `https://shop.example/checkout/return?order=44&paymentId=${paymentId}&status=COMPLETED`;
  expect(await checkout.handleReturn(tampered)).toBe('not-paid');
});

it("another order's paid payment does not pay for this one", async () => {
  const cheap = paymentIdOf(await checkout.startPayment({ id: '47', totalPence: 1 }));
  await checkout.startPayment({ id: '48', totalPence: 99_900 });
  api.controls.approve(cheap);
  // The customer swaps the cheap payment's id into the expensive order's return URL.
  const swapped = api.controls.returnUrlFor(cheap)!.replace('order=47', 'order=48');
  expect(swapped).toContain(`order=48&paymentId=${cheap}&status=COMPLETED`);
  expect(await checkout.handleReturn(swapped)).toBe('not-paid');
  expect(await checkout.handleReturn(api.controls.returnUrlFor(cheap)!)).toBe('paid');
});

it('one order makes one payment, even when the customer clicks twice', async () => {
  const first = await checkout.startPayment({ id: '45', totalPence: 500 });
  const second = await checkout.startPayment({ id: '45', totalPence: 500 });
  expect(second).toBe(first);
  expect(api.controls.payments()).toHaveLength(1);
});

it('survives a flaky network: reads are retried', async () => {
  const paymentId = paymentIdOf(await checkout.startPayment({ id: '46', totalPence: 500 }));
  api.controls.approve(paymentId);
  api.controls.failNext({ status: 503 });
  api.controls.failNext({ networkError: true });
  expect(await checkout.handleReturn(api.controls.returnUrlFor(paymentId)!)).toBe('paid');
});

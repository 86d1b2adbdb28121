import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { CreatedPayment } from '../src/dashboard/api/dashboard-api.ts';
import { PaymentLinkCard } from '../src/dashboard/payments/PaymentLinkCard.tsx';
import { server } from './msw/server.ts';
import { trpcQuery } from './msw/trpc-handlers.ts';

/**
 * New payment's result at a counter (issue 34 item 5): the code first, once; the card follows
 * the payment by itself (waiting reads) and turns into "Paid" with the amount, or says it failed.
 */
const LINK = 'http://localhost:3000/pay/v1.token-abc';
const created = {
  paymentId: 'pay_counter',
  status: 'PENDING',
  isoStatus: { code: 'RCVD', name: 'Received', description: 'Received' },
  redirectUrl: LINK,
  provider: 'mock',
  amount: { value: '18.40', currency: 'GBP' },
  createdAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
} as unknown as CreatedPayment;

type Step = { status: string; reason?: { code: string; name: string } };

/** The payment as the server answers each read: whatever `now()` says at the time. */
function paymentReads(now: () => Step) {
  const reads: unknown[] = [];
  server.use(
    trpcQuery('dashboard.payments.get', (input) => {
      reads.push(input);
      const step = now();
      return {
        payment: {
          ...created,
          status: step.status,
          isoStatus: {
            code: 'X',
            name: 'X',
            description: 'X',
            ...(step.reason ? { reason: step.reason } : {}),
          },
          ...(step.status === 'COMPLETED' ? { completedAt: new Date().toISOString() } : {}),
        },
        etag: `"${step.status}"`,
        actions: { cancel: true, decide: false, link: true },
        customerLink: { url: LINK, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      };
    }),
  );
  return reads;
}

const renderCard = () =>
  render(
    <MemoryRouter>
      <PaymentLinkCard created={created} onAnother={() => {}} />
    </MemoryRouter>,
  );

describe('the New payment result at a counter', () => {
  it('shows one QR code first, then turns “Paid £18.40” by itself; the later reads wait on the server', async () => {
    let step: Step = { status: 'PENDING' };
    const reads = paymentReads(() => step);
    renderCard();
    const codes = await screen.findAllByRole('img', { name: 'QR code of the link to pay £18.40' });
    expect(codes).toHaveLength(1);
    expect((screen.getByLabelText('Customer link') as HTMLInputElement).value).toBe(LINK);
    // The customer pays.
    step = { status: 'COMPLETED' };
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Paid £18.40' }, { timeout: 8000 }),
    ).toBeTruthy();
    expect(screen.queryByRole('img', { name: /QR code/ })).toBeNull();
    expect(screen.getByTestId('counter-result').textContent).toContain('£18.40');
    expect(reads[0]).toEqual({ paymentId: 'pay_counter' });
    expect(reads[1]).toMatchObject({ paymentId: 'pay_counter', ifNoneMatch: '"PENDING"', waitSeconds: 25 });
  });

  it('says a failed payment failed, with its reason and the amount', async () => {
    paymentReads(() => ({ status: 'FAILED', reason: { code: 'AM04', name: 'InsufficientFunds' } }));
    renderCard();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Payment failed: £18.40' }, { timeout: 8000 }),
    ).toBeTruthy();
    expect(screen.getByText('InsufficientFunds')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'New payment' })).toBeTruthy();
  });
});

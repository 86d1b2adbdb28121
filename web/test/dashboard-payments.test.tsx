import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { payment, paymentList, paymentView, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

const PAYMENTS = Array.from({ length: 20 }, (_, n) =>
  payment({ paymentId: `pay_${n}`, amount: { value: `${n + 1}.00`, currency: 'GBP' } }),
);

describe('payments list', () => {
  it('asks for the filters and page from the address and shows the same data the REST list gives', async () => {
    const user = userEvent.setup();
    const queries: unknown[] = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', (input) => {
        queries.push(input);
        return paymentList(PAYMENTS, 45, Number(input.offset ?? 0));
      }),
    );
    renderAt('/dashboard/payments?status=COMPLETED');
    const table = await screen.findByRole('table');
    expect(within(table).getAllByRole('row')).toHaveLength(21);
    expect(screen.getByText('1–20 of 45')).toBeTruthy();
    expect(queries.at(-1)).toEqual({ status: 'COMPLETED', limit: 20, offset: 0 });
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('COMPLETED');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(queries.at(-1)).toEqual({ status: 'COMPLETED', limit: 20, offset: 20 }));
    expect(await screen.findByText('21–40 of 45')).toBeTruthy();

    await user.selectOptions(screen.getByLabelText('Provider'), 'mock');
    await waitFor(() =>
      expect(queries.at(-1)).toEqual({ status: 'COMPLETED', provider: 'mock', limit: 20, offset: 0 }),
    );
    await user.selectOptions(screen.getByLabelText('Status'), '');
    await waitFor(() => expect(queries.at(-1)).toEqual({ provider: 'mock', limit: 20, offset: 0 }));
  });

  it('ignores a status in the address that is not one', async () => {
    const queries: unknown[] = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', (input) => {
        queries.push(input);
        return paymentList([]);
      }),
    );
    renderAt('/dashboard/payments?status=DROP%20TABLE&page=-3');
    expect(await screen.findByText('No payments match.')).toBeTruthy();
    expect(queries).toEqual([{ limit: 20, offset: 0 }]);
  });

  it('links each payment to its page', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', () => paymentList([payment()])),
      trpcQuery('dashboard.payments.get', () => paymentView()),
    );
    const user = userEvent.setup();
    renderAt('/dashboard/payments');
    await user.click(await screen.findByRole('link', { name: '£12.50' }));
    expect(await screen.findByText('E2E-42')).toBeTruthy();
  });
});

describe('payment page', () => {
  it('shows amount, accounts, reference, end-to-end id, flow, provider, statuses and the whole timeline', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () =>
        paymentView({
          payment: payment({
            status: 'FAILED',
            isoStatus: {
              code: 'RJCT',
              name: 'Rejected',
              description:
                'Payment initiation or individual transaction included in the payment initiation has been rejected.',
              reason: { code: 'AM04', name: 'InsufficientFunds' },
            },
            bankId: 'mock-gb-barclays',
            error: { code: 'AM04', message: 'Not enough money' },
          }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false },
        }),
      ),
    );
    renderAt('/dashboard/payments/pay_1');
    const heading = await screen.findByRole('heading', { level: 1 });
    expect(heading.textContent).toContain('£12.50');
    expect(heading.textContent).toContain('FAILED');
    const details = document.querySelector('dl') as HTMLElement;
    for (const text of [
      'Acme Ltd · 040004 12345678',
      'Order 42',
      'E2E-42',
      'API_ONLY',
      'mock-gb-barclays',
      'RJCT Rejected · reason AM04 InsufficientFunds',
      'AM04: Not enough money',
    ]) {
      expect(details.textContent).toContain(text);
    }
    const timeline = screen.getByRole('list', { name: 'Status history' });
    const steps = within(timeline).getAllByRole('listitem');
    expect(steps.map((step) => step.textContent?.slice(0, 20))).toEqual([
      expect.stringContaining('PENDING'),
      expect.stringContaining('AUTHORIZING'),
    ]);
    expect(steps[1]?.getAttribute('aria-current')).toBe('step');
    expect(screen.queryByRole('button', { name: /Approve|Reject|Cancel/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /customer/ })).toBeNull();
  });

  it('approves a waiting Mock bank payment with the chosen scenario and shows the new status', async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    let view = paymentView();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => view),
      trpcMutation('dashboard.payments.approve', (input) => {
        sent.push(input);
        view = paymentView({
          payment: payment({
            status: 'COMPLETED',
            isoStatus: { code: 'ACSC', name: 'AcceptedSettlementCompleted', description: 'Settled' },
          }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false },
        });
        return view.payment;
      }),
    );
    renderAt('/dashboard/payments/pay_1');
    expect(await screen.findByRole('link', { name: 'Open the customer’s page' })).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: 'Custom' }));
    const seconds = screen.getByLabelText(/Complete after/);
    await user.clear(seconds);
    await user.type(seconds, '20');
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    await waitFor(() =>
      expect(sent).toEqual([{ paymentId: 'pay_1', scenario: { completeAfterSeconds: 20 } }]),
    );
    expect(await screen.findByText('Status COMPLETED')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('rejects with a reason, and cancels', async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => paymentView()),
      trpcMutation('dashboard.payments.reject', (input) => {
        sent.push(['reject', input]);
        return payment();
      }),
      trpcMutation('dashboard.payments.cancel', (input) => {
        sent.push(['cancel', input]);
        return payment();
      }),
    );
    renderAt('/dashboard/payments/pay_1');
    await user.selectOptions(await screen.findByLabelText('Reason for rejecting'), 'AM04');
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel payment' }));
    await waitFor(() =>
      expect(sent).toEqual([
        ['reject', { paymentId: 'pay_1', reason: 'AM04' }],
        ['cancel', { paymentId: 'pay_1' }],
      ]),
    );
  });

  it('shows the server’s refusal of an action', async () => {
    const user = userEvent.setup();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => paymentView()),
      trpcMutation('dashboard.payments.cancel', () => ({
        kind: 'PAYMENT_NOT_CANCELLABLE',
        httpStatus: 409,
        message: 'Payment cannot be cancelled in status COMPLETED',
      })),
    );
    renderAt('/dashboard/payments/pay_1');
    await user.click(await screen.findByRole('button', { name: 'Cancel payment' }));
    expect(await screen.findByText('Payment cannot be cancelled in status COMPLETED')).toBeTruthy();
  });

  it('says "not found" for a payment of another organization', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => ({
        kind: 'NOT_FOUND',
        httpStatus: 404,
        message: 'Payment not found',
      })),
    );
    renderAt('/dashboard/payments/pay_other');
    expect(await screen.findByRole('heading', { level: 1, name: 'Payment not found' })).toBeTruthy();
  });
});

describe('payment page, live', () => {
  it('each read after the first waits on the server (etag + waitSeconds); the status moves on its own', async () => {
    const inputs: Array<Record<string, unknown>> = [];
    const authorized = paymentView({ payment: payment({ status: 'AUTHORIZED' }) });
    const completed = paymentView({
      payment: payment({ status: 'COMPLETED' }),
      customerLink: null,
      actions: { cancel: false, approve: false, reject: false },
    });
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', async (input) => {
        inputs.push(input as Record<string, unknown>);
        if (inputs.length === 1) return authorized;
        // The server holds the read until the payment changes.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return completed;
      }),
    );
    renderAt('/dashboard/payments/pay_1');
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toContain('AUTHORIZED');
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('COMPLETED'));
    expect(inputs[0]).toEqual({ paymentId: 'pay_1' });
    expect(inputs[1]).toEqual({ paymentId: 'pay_1', ifNoneMatch: authorized.etag, waitSeconds: 25 });
    // Final: no more reads.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(inputs).toHaveLength(2);
  });
});

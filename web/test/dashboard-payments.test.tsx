import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { payment, paymentList, paymentView, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

const PAYMENTS = Array.from({ length: 20 }, (_, n) =>
  payment({ paymentId: `pay_${n}`, amount: { value: `${n + 1}.00`, currency: 'GBP' } }),
);

/** Signed in with one payment to list; returns the list's inputs as the page asks for them. */
function listQueries(): Record<string, unknown>[] {
  const queries: Record<string, unknown>[] = [];
  server.use(
    signedIn(),
    trpcQuery('dashboard.payments.list', (input) => {
      queries.push(input);
      return paymentList([payment()]);
    }),
  );
  return queries;
}

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

  it('finds by search and days, kept in the address, and exports the same filters as CSV', async () => {
    const user = userEvent.setup();
    const queries = listQueries();
    renderAt('/dashboard/payments?search=INV&from=2026-11-01&to=2026-11-30');
    await screen.findByRole('table');
    // The days are the merchant's own: midnight of the first, the last millisecond of the last.
    expect(queries.at(-1)).toEqual({
      search: 'INV',
      createdFrom: new Date(2026, 10, 1).toISOString(),
      createdTo: new Date(new Date(2026, 11, 1).getTime() - 1).toISOString(),
      limit: 20,
      offset: 0,
    });
    expect((screen.getByLabelText('Search') as HTMLInputElement).value).toBe('INV');
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('2026-11-01');

    const search = screen.getByLabelText('Search');
    await user.clear(search);
    await user.type(search, 'coffee 50%');
    await user.clear(screen.getByLabelText('To'));
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() =>
      expect(queries.at(-1)).toEqual({
        search: 'coffee 50%',
        createdFrom: new Date(2026, 10, 1).toISOString(),
        limit: 20,
        offset: 0,
      }),
    );
    expect(window.location.search).toBe('?search=coffee+50%25&from=2026-11-01');
    const exportLink = screen.getByRole('link', { name: 'Export CSV' });
    const href = new URL(exportLink.getAttribute('href') ?? '', 'http://x');
    expect(href.pathname).toBe('/api/dashboard/payments/export');
    expect(Object.fromEntries(href.searchParams)).toEqual({
      search: 'coffee 50%',
      createdFrom: new Date(2026, 10, 1).toISOString(),
    });
  });

  it('days typed while an emptied search is still reaching the address are kept and searched for', async () => {
    const user = userEvent.setup();
    const queries = listQueries();
    renderAt('/dashboard/payments?search=INV');
    await screen.findByRole('table');
    // A quick merchant: the search emptied (the list shows every payment at once, so the address
    // changes) and both days typed before the page re-rendered with that address.
    act(() => {
      fireEvent.change(screen.getByLabelText('Search'), { target: { value: '' } });
      fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
      fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-30' } });
    });
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('2026-11-01');
    expect((screen.getByLabelText('To') as HTMLInputElement).value).toBe('2026-11-30');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() =>
      expect(queries.at(-1)).toEqual({
        createdFrom: new Date(2026, 10, 1).toISOString(),
        createdTo: new Date(new Date(2026, 11, 1).getTime() - 1).toISOString(),
        limit: 20,
        offset: 0,
      }),
    );
    expect(window.location.search).toBe('?from=2026-11-01&to=2026-11-30');
  });

  it('a day that is not one, or a range that ends before it starts, resets the list and says so', async () => {
    const queries = listQueries();
    renderAt('/dashboard/payments?from=2026-11-30&to=2026-11-01&search=x');
    expect(
      await screen.findByText(
        'The address asked for a range from 2026-11-30 to 2026-11-01, which ends before it starts, which this list cannot show, so it shows every payment from the first page.',
      ),
    ).toBeTruthy();
    await waitFor(() => expect(queries.at(-1)).toEqual({ limit: 20, offset: 0 }));
    expect(queries.some((query) => 'createdFrom' in query || 'createdTo' in query)).toBe(false);
    expect(window.location.search).toBe('');
  });

  it('filters that match nothing offer the way back to every payment', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', () => paymentList([])),
    );
    renderAt('/dashboard/payments?status=EXPIRED');
    expect(await screen.findByText('No payments match these filters.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Show all payments' }).getAttribute('href')).toBe(
      '/dashboard/payments',
    );
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
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
        }),
      ),
    );
    renderAt('/dashboard/payments/pay_1');
    const heading = await screen.findByRole('heading', { level: 1 });
    expect(heading.textContent).toContain('£12.50');
    expect(heading.textContent).toContain('Failed');
    const details = document.querySelector('dl') as HTMLElement;
    for (const text of [
      'Acme Ltd · 04-00-04 12345678',
      'Order 42',
      'E2E-42',
      'Straight to the bank',
      'mock-gb-barclays',
      'AM04: Not enough money',
    ]) {
      expect(details.textContent).toContain(text);
    }
    // ISO codes carry their meaning, on hover and for keyboard and screen reader users alike.
    const meaningOf = (code: string) => {
      const term = within(details).getByText(code);
      expect(term.tabIndex).toBe(0);
      return document.getElementById(term.getAttribute('aria-describedby') ?? '')?.textContent;
    };
    // Words first: the API's status, the ISO status and reason are there on hover and focus.
    expect(meaningOf('Failed')).toBe('API status FAILED');
    expect(meaningOf('Rejected')).toContain('ISO 20022 RJCT Rejected: Payment initiation');
    expect(meaningOf('not enough money in the account')).toBe('ISO 20022 reason AM04 InsufficientFunds');
    // The flow in words, its code on hover and focus; a finished payment says nothing of expiring.
    expect(meaningOf('Straight to the bank')).toBe('API_ONLY');
    expect(details.textContent).not.toContain('Expires');
    const timeline = screen.getByRole('list', { name: 'Status history' });
    const steps = within(timeline).getAllByRole('listitem');
    expect(steps.map((step) => step.textContent?.slice(0, 20))).toEqual([
      expect.stringContaining('Pending'),
      expect.stringContaining('Awaiting customer'),
    ]);
    expect(steps[1]?.getAttribute('aria-current')).toBe('step');
    expect(screen.queryByRole('button', { name: /Approve|Reject|Cancel/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /customer/ })).toBeNull();
  });

  it('an obie payment shows its provider, bank, and the bank’s own consent and payment statuses', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () =>
        paymentView({
          payment: payment({ provider: 'obie', bankId: 'obie-sandbox-bank', status: 'ACCEPTED' }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
          atBank: { consent: 'COND', payment: 'ACSP' },
        }),
      ),
    );
    renderAt('/dashboard/payments/pay_1');
    const row = (await screen.findByText('At the bank')).parentElement as HTMLElement;
    expect(row.textContent).toBe('At the bankconsent COND · payment ACSP');
    const details = row.parentElement as HTMLElement;
    expect(details.textContent).toContain('obie-sandbox-bank');
    expect(details.textContent).toContain('obie');
  });

  it("a merchant's cancel says who cancelled, never that the customer asked (the spec's reason CUST on hover)", async () => {
    const cancelled = { code: 'CANC', name: 'Cancelled', description: 'Cancelled before execution' } as const;
    const reason = { code: 'CUST', name: 'RequestedByCustomer' } as const;
    const base = payment();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () =>
        paymentView({
          payment: payment({
            status: 'CANCELLED',
            isoStatus: { ...cancelled, reason },
            statusHistory: [
              ...(base.statusHistory ?? []),
              {
                status: 'CANCELLED',
                isoStatus: { ...cancelled, reason },
                timestamp: '2026-11-22T10:05:00.000Z',
                provider: 'mock',
                details: null,
                actor: { type: 'api_key', name: 'pis_test_ab' },
              },
            ],
          }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
        }),
      ),
    );
    renderAt('/dashboard/payments/pay_1');
    const details = (await screen.findByText('E2E-42')).closest('dl') as HTMLElement;
    const said = within(details).getByText('cancelled by API key pis_test_ab…');
    expect(said.tabIndex).toBe(0);
    expect(document.getElementById(said.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'ISO 20022 reason CUST RequestedByCustomer',
    );
    // On screen the words; the ISO name only in the tooltip.
    const visible = [...details.querySelectorAll('abbr')].map((term) => term.textContent).join(' ');
    expect(visible).not.toContain('RequestedByCustomer');
    const timeline = screen.getByRole('list', { name: 'Status history' });
    expect(within(timeline).getAllByText('cancelled by API key pis_test_ab…').length).toBeGreaterThan(0);
  });

  it('a Mock bank payment has no bank statuses of its own', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => paymentView()),
    );
    renderAt('/dashboard/payments/pay_1');
    expect(await screen.findByText('E2E-42')).toBeTruthy();
    expect(screen.queryByText('At the bank')).toBeNull();
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
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
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
    // Nothing is sent before the merchant confirms, in a dialog that names the payment and its amount.
    const dialog = await screen.findByRole('dialog', { name: 'Approve the payment of £12.50 to Acme Ltd?' });
    expect(dialog.textContent).toContain('pay_1');
    expect(dialog.textContent).toContain('completes 20 s after approval');
    expect(sent).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Approve payment' }));
    await waitFor(() =>
      expect(sent).toEqual([{ paymentId: 'pay_1', scenario: { completeAfterSeconds: 20 } }]),
    );
    expect(await screen.findByText('Status: Completed')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.queryByRole('dialog')).toBeNull();
    // What happened, said in a status message that has the focus.
    const said = screen.getByText('Approved £12.50 to Acme Ltd as its customer. It is now Completed.');
    expect(said.getAttribute('role')).toBe('status');
    expect(document.activeElement).toBe(said);
  });

  it("advances a test payment's clock and says what happened; simulated steps say so in the timeline", async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    let view = paymentView();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => view),
      trpcMutation('dashboard.payments.advance', (input) => {
        sent.push(input);
        const before = view.payment.statusHistory ?? [];
        view = paymentView({
          payment: payment({
            status: 'EXPIRED',
            isoStatus: { code: 'RJCT', name: 'Rejected', description: 'Rejected' },
            statusHistory: [
              ...before,
              {
                status: 'EXPIRED',
                isoStatus: { code: 'RJCT', name: 'Rejected', description: 'Rejected' },
                timestamp: '2026-11-26T10:00:00.000Z',
                provider: 'mock',
                details: 'Expired: no approval or rejection within 24 hours of creation',
                simulated: true,
                actor: { type: 'expiry' },
              },
            ],
          }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
        });
        return view.payment;
      }),
    );
    renderAt('/dashboard/payments/pay_1');
    await user.selectOptions(await screen.findByLabelText('Advance time'), '24 hours (past the expiry)');
    await user.click(screen.getByRole('button', { name: 'Advance time' }));
    await waitFor(() => expect(sent).toEqual([{ paymentId: 'pay_1', seconds: 86_400 }]));
    const said = await screen.findByText(
      'Moved the test clock of £12.50 to Acme Ltd 24 hours (past the expiry) ahead. It is now Expired.',
    );
    expect(said.getAttribute('role')).toBe('status');
    // The page reads the payment again: finished, nothing left to advance.
    expect(await screen.findByText('Status: Expired')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Advance time' })).toBeNull();
    const timeline = screen.getByRole('list', { name: 'Status history' });
    expect(within(timeline).getAllByText('Simulated (test clock)')).toHaveLength(1);
    // Who acted: the expiry (the API's actor, in words).
    expect(timeline.lastElementChild?.textContent).toContain('by the 24-hour expiry');
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
    const rejecting = await screen.findByRole('dialog', {
      name: 'Reject the payment of £12.50 to Acme Ltd?',
    });
    expect(rejecting.textContent).toContain('AM04, not enough money in the account');
    await user.click(within(rejecting).getByRole('button', { name: 'Reject payment' }));
    expect(
      await screen.findByText(
        'Rejected £12.50 to Acme Ltd as its customer (AM04, not enough money in the account). It is now Awaiting customer.',
      ),
    ).toBeTruthy();

    // "Keep payment" (or Escape) changes nothing and gives the focus back to the button.
    const cancelButton = screen.getByRole('button', { name: 'Cancel payment' });
    await user.click(cancelButton);
    const keeping = await screen.findByRole('dialog', { name: 'Cancel the payment of £12.50 to Acme Ltd?' });
    expect(document.activeElement?.textContent).toBe('Keep payment');
    await user.click(within(keeping).getByRole('button', { name: 'Keep payment' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(cancelButton);

    await user.click(cancelButton);
    const cancelling = await screen.findByRole('dialog', {
      name: 'Cancel the payment of £12.50 to Acme Ltd?',
    });
    await user.click(within(cancelling).getByRole('button', { name: 'Cancel payment' }));
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
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel payment' }));
    // Once, in the dialog, next to the action that failed.
    expect(await within(dialog).findByText('Payment cannot be cancelled in status COMPLETED')).toBeTruthy();
    expect(screen.getAllByText('Payment cannot be cancelled in status COMPLETED')).toHaveLength(1);
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
      actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
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
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toContain('Authorised');
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('Completed'));
    expect(inputs[0]).toEqual({ paymentId: 'pay_1' });
    expect(inputs[1]).toEqual({ paymentId: 'pay_1', ifNoneMatch: authorized.etag, waitSeconds: 25 });
    // Final: no more reads.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(inputs).toHaveLength(2);
  });
});

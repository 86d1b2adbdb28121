import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { paymentList, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

const LINK = 'http://localhost:3000/pay/v1.token-abc';

const created = {
  paymentId: 'pay_new',
  status: 'PENDING',
  isoStatus: { code: 'RCVD', name: 'Received', description: 'Received' },
  redirectUrl: LINK,
  provider: 'mock',
  amount: { value: '18.40', currency: 'GBP' },
  createdAt: '2026-11-25T10:00:00.000Z',
  expiresAt: '2026-11-26T10:00:00.000Z',
};

describe('New payment', () => {
  it('sends the API’s create body with one key per form, then shows the link, Copy link and its QR code', async () => {
    const user = userEvent.setup();
    const sent: Array<Record<string, unknown>> = [];
    server.use(
      signedIn(),
      trpcMutation('dashboard.payments.create', (input) => {
        sent.push(input as Record<string, unknown>);
        return created;
      }),
    );
    renderAt('/dashboard/payments/new');
    await user.type(await screen.findByLabelText('Amount'), '18.40');
    // The payee starts as the organization itself.
    expect((screen.getByLabelText('Payee name') as HTMLInputElement).value).toBe('Acme Shop');
    await user.type(screen.getByLabelText('Sort code'), '12-34-56');
    await user.type(screen.getByLabelText('Account number'), '12345678');
    await user.type(screen.getByLabelText('Reference (optional)'), 'Table 4');
    await user.click(screen.getByRole('radio', { name: /Realistic/ }));
    await user.click(screen.getByRole('button', { name: 'Create payment and link' }));

    const heading = await screen.findByRole('heading', { level: 1, name: 'Payment of £18.40 created' });
    // Focus moves in the card's effect, which React may run a moment after the heading is in the DOM.
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(sent).toEqual([
      {
        payment: {
          amount: { value: '18.40', currency: 'GBP' },
          toAccount: { accountName: 'Acme Shop', sortCode: '12-34-56', accountNumber: '12345678' },
          reference: 'Table 4',
          flowType: 'HOSTED_PAGES',
          provider: 'mock',
          mockBank: { preset: 'realistic' },
        },
        idempotencyKey: expect.stringMatching(/^dashboard-[0-9a-f]{32}$/),
      },
    ]);
    expect((screen.getByLabelText('Customer link') as HTMLInputElement).value).toBe(LINK);
    const qr = (await screen.findByRole('img', {
      name: 'QR code of the link to pay £18.40',
    })) as HTMLImageElement;
    expect(qr.src).toMatch(/^data:image\/svg\+xml/);

    await user.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(await navigator.clipboard.readText()).toBe(LINK);
    expect(screen.getByText('Link copied to the clipboard.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View the payment' }).getAttribute('href')).toBe(
      '/dashboard/payments/pay_new',
    );

    // Another payment is another form, with a key of its own.
    await user.click(screen.getByRole('button', { name: 'New payment' }));
    await user.type(await screen.findByLabelText('Amount'), '5');
    await user.type(screen.getByLabelText('Sort code'), '123456');
    await user.type(screen.getByLabelText('Account number'), '1');
    await user.click(screen.getByRole('button', { name: 'Create payment and link' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]?.idempotencyKey).not.toBe(sent[0]?.idempotencyKey);
  });

  it('shows each refused field once, under the field, and names them in the summary', async () => {
    const user = userEvent.setup();
    server.use(
      signedIn(),
      trpcMutation('dashboard.payments.create', () => ({
        kind: 'VALIDATION_FAILED',
        httpStatus: 400,
        message: 'Validation failed',
        details: [
          { field: 'payment.amount.value', message: 'must be a positive decimal' },
          { field: 'payment.toAccount.sortCode', message: 'must be a UK sort code' },
        ],
      })),
    );
    renderAt('/dashboard/payments/new');
    await user.type(await screen.findByLabelText('Amount'), '-1');
    await user.click(screen.getByRole('button', { name: 'Create payment and link' }));
    const summary = await screen.findByRole('alert', { name: '' });
    await waitFor(() =>
      expect(summary.textContent).toBe('Check Amount, Sort code: see the message under each.'),
    );
    expect(screen.getAllByText('must be a positive decimal')).toHaveLength(1);
    expect(screen.getByLabelText('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getAllByText('must be a UK sort code')).toHaveLength(1);
  });
});

describe('payments list, empty and misaddressed', () => {
  it('an empty list offers New payment and the quick start', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', () => paymentList([])),
    );
    renderAt('/dashboard/payments');
    const empty = (await screen.findByRole('heading', { name: 'No payments yet' }))
      .parentElement as HTMLElement;
    expect(within(empty).getByRole('link', { name: 'New payment' }).getAttribute('href')).toBe(
      '/dashboard/payments/new',
    );
    expect(within(empty).getByRole('link', { name: 'Open the quick start' }).getAttribute('href')).toBe(
      '/dashboard/quick-start',
    );
  });

  it('a bad filter in the address resets the list to its defaults and says so', async () => {
    const queries: unknown[] = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', (input) => {
        queries.push(input);
        return paymentList([]);
      }),
    );
    renderAt('/dashboard/payments?status=DROP%20TABLE&provider=evil&page=-3');
    expect(
      await screen.findByText(
        'The address asked for status “DROP TABLE” and provider “evil” and page “-3”, which this list cannot show, so it shows every payment from the first page.',
      ),
    ).toBeTruthy();
    await waitFor(() => expect(window.location.search).toBe(''));
    expect(queries).toEqual([{ limit: 20, offset: 0 }]);
  });
});

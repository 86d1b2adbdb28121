import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { payment, paymentView, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** Issue 23 item 5: "New customer link" on an unfinished payment's page. */
const FRESH = 'http://localhost:3000/mock-bank/v1.fresh-token';

describe('New customer link', () => {
  it('asks the server for a fresh link, shows it with Copy link, its QR code and expiry, and says what happened', async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    const expiresAt = new Date(Date.now() + 30 * 60_000).toISOString();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => paymentView()),
      trpcMutation('dashboard.payments.newLink', (input) => {
        sent.push(input);
        return { redirectUrl: FRESH, expiresAt };
      }),
    );
    renderAt('/dashboard/payments/pay_1');
    await user.click(await screen.findByRole('button', { name: 'New customer link' }));
    await waitFor(() => expect(sent).toEqual([{ paymentId: 'pay_1' }]));

    const said = await screen.findByText(/^Made a new customer link for £12\.50 to Acme Ltd, valid until /);
    expect(said.getAttribute('role')).toBe('status');
    expect(said.textContent).toContain('earlier links keep their own expiry');

    const actions = screen.getByRole('region', { name: 'Actions' });
    expect((within(actions).getByLabelText('Customer link') as HTMLInputElement).value).toBe(FRESH);
    expect(within(actions).getByRole('link', { name: 'Open the customer’s page' }).getAttribute('href')).toBe(
      FRESH,
    );
    const qr = (await within(actions).findByRole('img', {
      name: 'QR code of the link to pay £12.50',
    })) as HTMLImageElement;
    expect(qr.src).toMatch(/^data:image\/svg\+xml/);
    expect(within(actions).getByText(/^Valid until /)).toBeTruthy();

    await user.click(within(actions).getByRole('button', { name: 'Copy link' }));
    expect(await navigator.clipboard.readText()).toBe(FRESH);
    expect(within(actions).getByText('Link copied to the clipboard.')).toBeTruthy();
  });

  it('shows the server’s refusal once, next to the button', async () => {
    const user = userEvent.setup();
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () => paymentView()),
      trpcMutation('dashboard.payments.newLink', () => ({
        kind: 'PAYMENT_FINISHED',
        httpStatus: 409,
        message: 'Payment is EXPIRED: a customer link would lead nowhere. Create a new payment instead.',
      })),
    );
    renderAt('/dashboard/payments/pay_1');
    await user.click(await screen.findByRole('button', { name: 'New customer link' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^Payment is EXPIRED: a customer link would lead nowhere/);
    expect(screen.getAllByText(/a customer link would lead nowhere/)).toHaveLength(1);
    expect(screen.queryByLabelText('Customer link')).toBeNull();
  });

  it('is absent on a finished payment', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.get', () =>
        paymentView({
          payment: payment({ status: 'COMPLETED' }),
          customerLink: null,
          actions: { cancel: false, approve: false, reject: false, advance: false, link: false },
        }),
      ),
    );
    renderAt('/dashboard/payments/pay_1');
    expect(await screen.findByText('Status: Completed')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'New customer link' })).toBeNull();
  });
});

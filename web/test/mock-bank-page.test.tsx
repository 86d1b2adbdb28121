import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { leavePage } from '../src/api/leave-page.ts';
import { mockBankSession } from './msw/fixtures.ts';
import { server } from './msw/server.ts';
import { ALREADY_DECIDED, LINK_EXPIRED, LINK_INVALID, trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

vi.mock('../src/api/leave-page.ts', () => ({ leavePage: vi.fn() }));

const RETURN_URL = 'https://shop.test/return?paymentId=pay_123&status=COMPLETED';

beforeEach(() => vi.mocked(leavePage).mockClear());

const logIn = async (user: ReturnType<typeof userEvent.setup>) => {
  expect((await screen.findByLabelText('Customer ID')) as HTMLInputElement).toBeTruthy();
  await user.click(screen.getByRole('button', { name: 'Log in' }));
  await screen.findByRole('button', { name: 'Approve payment' });
};

/** Serves the bank session and records what the page sends to `pages.approve`. */
const recordApproval = () => {
  const approval: { sent?: unknown } = {};
  server.use(
    trpcQuery('pages.mockBankSession', () => mockBankSession()),
    trpcMutation('pages.approve', (input) => {
      approval.sent = input;
      return { paymentId: 'pay_123', status: 'AUTHORIZED', returnUrl: RETURN_URL };
    }),
  );
  return approval;
};

describe('mock bank page', () => {
  it('logs in with prefilled test details, then shows the payment and both choices', async () => {
    const user = userEvent.setup();
    server.use(trpcQuery('pages.mockBankSession', () => mockBankSession()));
    renderAt('/mock-bank/tok');
    const username = (await screen.findByLabelText('Customer ID')) as HTMLInputElement;
    expect(username.value).not.toBe('');
    expect(screen.getByTestId('test-mark').textContent).toBe('Test payment: no money moves');
    expect((screen.getByLabelText('Password') as HTMLInputElement).value).not.toBe('');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'Approve payment to Acme Shop' });
    expect(document.activeElement).toBe(heading);
    expect(screen.getByTestId('amount').textContent).toContain('25.00');
    expect(screen.getByRole('button', { name: 'Reject' })).toBeTruthy();
    expect((screen.getByRole('radio', { name: /Instant/ }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Reason for rejecting') as HTMLSelectElement).value).toBe('CUST');
  });

  it('preselects the scenario and reject reason of the request', async () => {
    const user = userEvent.setup();
    server.use(
      trpcQuery('pages.mockBankSession', () =>
        mockBankSession({
          scenario: { preset: 'realistic', completeAfterSeconds: 90, rejectReason: 'AM04' },
        }),
      ),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    expect((screen.getByRole('radio', { name: 'Custom' }) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText(/Complete after/) as HTMLInputElement).value).toBe('90');
    expect((screen.getByLabelText('Reason for rejecting') as HTMLSelectElement).value).toBe('AM04');
  });

  it('approves with the picked scenario and returns the customer to the merchant', async () => {
    const user = userEvent.setup();
    const approval = recordApproval();
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('radio', { name: 'Custom' }));
    const seconds = screen.getByLabelText(/Complete after/);
    await user.clear(seconds);
    await user.type(seconds, '45');
    await user.click(screen.getByRole('button', { name: 'Approve payment' }));
    await waitFor(() => expect(leavePage).toHaveBeenCalledWith(RETURN_URL));
    expect(approval.sent).toEqual({ token: 'tok', scenario: { completeAfterSeconds: 45 } });
    expect(await screen.findByRole('heading', { name: 'Returning you to Acme Shop…' })).toBeTruthy();
  });

  it('sends a preset as picked', async () => {
    const user = userEvent.setup();
    const approval = recordApproval();
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('radio', { name: /Slow/ }));
    await user.click(screen.getByRole('button', { name: 'Approve payment' }));
    await waitFor(() => expect(approval.sent).toEqual({ token: 'tok', scenario: { preset: 'slow' } }));
  });

  it('refuses custom seconds outside 1..3600 without calling the server', async () => {
    const user = userEvent.setup();
    const approve = vi.fn(() => ({ paymentId: 'pay_123', status: 'COMPLETED', returnUrl: null }));
    server.use(
      trpcQuery('pages.mockBankSession', () => mockBankSession()),
      trpcMutation('pages.approve', approve),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('radio', { name: 'Custom' }));
    const seconds = screen.getByLabelText(/Complete after/);
    await user.clear(seconds);
    await user.type(seconds, '3601');
    await user.click(screen.getByRole('button', { name: 'Approve payment' }));
    expect(screen.getByText('Enter a whole number of seconds from 1 to 3600.')).toBeTruthy();
    expect(seconds.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(seconds);
    expect(approve).not.toHaveBeenCalled();
  });

  it('rejects with the chosen reason; without a return URL a result page says what happened', async () => {
    const user = userEvent.setup();
    let sent: unknown;
    server.use(
      trpcQuery('pages.mockBankSession', () => mockBankSession()),
      trpcMutation('pages.reject', (input) => {
        sent = input;
        return { paymentId: 'pay_123', status: 'FAILED', returnUrl: null };
      }),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.selectOptions(screen.getByLabelText('Reason for rejecting'), 'AC04');
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(await screen.findByRole('heading', { name: 'Payment rejected' })).toBeTruthy();
    expect(sent).toEqual({ token: 'tok', reason: 'AC04' });
    expect(leavePage).not.toHaveBeenCalled();
  });

  it('revisiting a decided link shows the outcome, not the buttons', async () => {
    server.use(
      trpcQuery('pages.mockBankSession', () =>
        mockBankSession({ status: 'COMPLETED', outcome: { status: 'COMPLETED', returnUrl: RETURN_URL } }),
      ),
    );
    renderAt('/mock-bank/tok');
    expect(await screen.findByRole('heading', { name: 'Payment completed' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve payment' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Log in' })).toBeNull();
  });

  it('decided elsewhere while the customer looked: shows the outcome', async () => {
    const user = userEvent.setup();
    let cancelled = false;
    server.use(
      trpcQuery('pages.mockBankSession', () =>
        cancelled
          ? mockBankSession({ status: 'CANCELLED', outcome: { status: 'CANCELLED', returnUrl: null } })
          : mockBankSession(),
      ),
      trpcMutation('pages.approve', () => {
        cancelled = true;
        return ALREADY_DECIDED;
      }),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('button', { name: 'Approve payment' }));
    expect(await screen.findByRole('heading', { name: 'Payment cancelled' })).toBeTruthy();
  });

  it('keeps the choices when the server cannot be reached, so the customer can retry', async () => {
    const user = userEvent.setup();
    server.use(
      trpcQuery('pages.mockBankSession', () => mockBankSession()),
      http.post('*/trpc/pages.approve', () => HttpResponse.error()),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('button', { name: 'Approve payment' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/can’t reach the bank/);
    expect((screen.getByRole('button', { name: 'Approve payment' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });

  it('an expired link says so, with the bank page lifetime', async () => {
    server.use(trpcQuery('pages.mockBankSession', () => LINK_EXPIRED));
    renderAt('/mock-bank/tok');
    expect(await screen.findByRole('heading', { name: 'This link has expired' })).toBeTruthy();
    expect(screen.getByText(/valid for 30 minutes/)).toBeTruthy();
    // Issue 23 item 5: an expired link is not the end of the payment.
    expect(screen.getByText(/The shop can send you a new link for this payment/)).toBeTruthy();
  });

  it('a link that expires before the decision shows the expired page', async () => {
    const user = userEvent.setup();
    server.use(
      trpcQuery('pages.mockBankSession', () => mockBankSession()),
      trpcMutation('pages.reject', () => LINK_EXPIRED),
    );
    renderAt('/mock-bank/tok');
    await logIn(user);
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(await screen.findByRole('heading', { name: 'This link has expired' })).toBeTruthy();
  });

  it('a tampered link says so', async () => {
    server.use(trpcQuery('pages.mockBankSession', () => LINK_INVALID));
    renderAt('/mock-bank/tok');
    expect(await screen.findByRole('heading', { name: 'This link is not valid' })).toBeTruthy();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { leavePage } from '../src/api/leave-page.ts';
import { bank, GB_BANKS, hostedSession, IE_BANKS } from './msw/fixtures.ts';
import { server } from './msw/server.ts';
import {
  ALREADY_DECIDED,
  failure,
  LINK_EXPIRED,
  LINK_INVALID,
  trpcMutation,
  trpcQuery,
} from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

vi.mock('../src/api/leave-page.ts', () => ({ leavePage: vi.fn() }));

const MOCK_BANK_URL = 'http://localhost:3000/mock-bank/bank-token';

/** Bank searches the page made, as the server would see them. */
let bankQueries: Array<Record<string, unknown>>;

const bankHandler = trpcQuery('pages.hostedBanks', (input) => {
  bankQueries.push(input);
  const all = input.country === 'IE' ? IE_BANKS : GB_BANKS;
  const search = String(input.search ?? '').toLowerCase();
  const banks = all.filter((b) => b.name.toLowerCase().includes(search));
  return { banks, pagination: { total: banks.length, page: 1, limit: 100, pages: 1 } };
});

beforeEach(() => {
  bankQueries = [];
  vi.mocked(leavePage).mockClear();
});

describe('hosted payment page', () => {
  it('shows who is paid, the formatted amount and the reference', async () => {
    server.use(
      trpcQuery('pages.hostedSession', () => hostedSession()),
      bankHandler,
    );
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { level: 1, name: 'Pay Acme Shop' })).toBeTruthy();
    expect(screen.getByTestId('amount').textContent).toBe(
      new Intl.NumberFormat(navigator.language, { style: 'currency', currency: 'GBP' }).format(1234.5),
    );
    expect(screen.getByText('Acme Ltd')).toBeTruthy();
    expect(screen.getByText('ORDER-42')).toBeTruthy();
    const list = await screen.findByRole('listbox', { name: 'Choose your bank' });
    expect(within(list).getAllByRole('option')).toHaveLength(4);
  });

  it('searches as the customer types, once per pause', async () => {
    const user = userEvent.setup();
    server.use(
      trpcQuery('pages.hostedSession', () => hostedSession()),
      bankHandler,
    );
    renderAt('/pay/tok');
    const search = await screen.findByLabelText('Search banks');
    await screen.findByRole('listbox');
    await user.type(search, 'mon');
    await waitFor(() => expect(within(screen.getByRole('listbox')).getAllByRole('option')).toHaveLength(1));
    expect(screen.getByRole('option', { name: 'Monzo' })).toBeTruthy();
    expect(bankQueries.map((q) => q.search ?? null)).toEqual([null, 'mon']);
    expect(screen.getByRole('status').textContent).toBe('1 bank found');
  });

  it('switches country', async () => {
    const user = userEvent.setup();
    server.use(
      trpcQuery('pages.hostedSession', () => hostedSession()),
      bankHandler,
    );
    renderAt('/pay/tok');
    await screen.findByRole('listbox');
    await user.selectOptions(screen.getByLabelText('Country'), 'IE');
    expect(await screen.findByRole('option', { name: 'Bank of Ireland' })).toBeTruthy();
    expect(bankQueries.at(-1)).toMatchObject({ token: 'tok', country: 'IE' });
  });

  it('is usable with the keyboard: arrows move, Enter selects, then continue to the bank', async () => {
    const user = userEvent.setup();
    let chosen: unknown;
    server.use(
      trpcQuery('pages.hostedSession', () => hostedSession()),
      bankHandler,
      trpcMutation('pages.chooseBank', (input) => {
        chosen = input;
        return { redirectUrl: MOCK_BANK_URL };
      }),
    );
    renderAt('/pay/tok');
    await screen.findByRole('listbox');
    await user.click(screen.getByLabelText('Search banks'));
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(screen.getByRole('option', { name: 'Barclays' }));
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(document.activeElement).toBe(screen.getByRole('option', { name: 'Lloyds Bank' }));
    await user.keyboard('{Enter}');
    expect(screen.getByRole('option', { name: 'Lloyds Bank' }).getAttribute('aria-selected')).toBe('true');
    await user.keyboard('{End}');
    expect(document.activeElement).toBe(screen.getByRole('option', { name: 'Monzo' }));
    await user.click(screen.getByRole('button', { name: 'Continue to Lloyds Bank' }));
    await waitFor(() => expect(leavePage).toHaveBeenCalledWith(MOCK_BANK_URL));
    expect(chosen).toEqual({ token: 'tok', bankId: 'mock-gb-lloyds' });
    expect(await screen.findByRole('heading', { name: 'Opening Lloyds Bank…' })).toBeTruthy();
  });

  it('shows an inactive bank as unavailable and does not let it be chosen', async () => {
    const user = userEvent.setup();
    const closed = { ...bank('mock-gb-closed', 'Closed Bank'), active: false };
    server.use(
      trpcQuery('pages.hostedSession', () => hostedSession()),
      trpcQuery('pages.hostedBanks', () => ({
        banks: [closed, ...GB_BANKS],
        pagination: { total: 5, page: 1, limit: 100, pages: 1 },
      })),
    );
    renderAt('/pay/tok');
    const option = await screen.findByRole('option', { name: /Closed Bank/ });
    expect(option.getAttribute('aria-disabled')).toBe('true');
    await user.click(option);
    expect(option.getAttribute('aria-selected')).toBe('false');
    await user.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(screen.getByLabelText('Search banks'));
    expect(
      (screen.getByRole('button', { name: 'Select a bank to continue' }) as HTMLButtonElement).disabled,
    ).toBe(true);
  });

  it('EMBEDDED_HOSTED_PAGES: shows the preselected bank and confirms it', async () => {
    const user = userEvent.setup();
    let chosen: unknown;
    const preselected = bank('mock-gb-hsbc', 'HSBC UK');
    server.use(
      trpcQuery('pages.hostedSession', () =>
        hostedSession({ flowType: 'EMBEDDED_HOSTED_PAGES', bank: preselected }),
      ),
      trpcMutation('pages.chooseBank', (input) => {
        chosen = input;
        return { redirectUrl: MOCK_BANK_URL };
      }),
    );
    renderAt('/pay/tok');
    await user.click(await screen.findByRole('button', { name: 'Confirm and continue to HSBC UK' }));
    await waitFor(() => expect(leavePage).toHaveBeenCalledWith(MOCK_BANK_URL));
    expect(chosen).toEqual({ token: 'tok', bankId: 'mock-gb-hsbc' });
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('a bank already chosen: sends the customer on to the bank page', async () => {
    server.use(
      trpcQuery('pages.hostedSession', () =>
        hostedSession({ status: 'AUTHORIZING', bank: GB_BANKS[0]!, next: { mockBankUrl: MOCK_BANK_URL } }),
      ),
    );
    renderAt('/pay/tok');
    const link = await screen.findByRole('link', { name: 'Continue to Barclays' });
    expect(link.getAttribute('href')).toBe(MOCK_BANK_URL);
  });

  it('a finished payment shows its outcome and the way back to the merchant', async () => {
    server.use(
      trpcQuery('pages.hostedSession', () =>
        hostedSession({
          status: 'COMPLETED',
          outcome: { status: 'COMPLETED', returnUrl: 'https://shop.test/r' },
        }),
      ),
    );
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { name: 'Payment completed' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Return to Acme Shop' }).getAttribute('href')).toBe(
      'https://shop.test/r',
    );
  });

  it('a payment cancelled meanwhile says so', async () => {
    server.use(
      trpcQuery('pages.hostedSession', () =>
        hostedSession({ status: 'CANCELLED', outcome: { status: 'CANCELLED', returnUrl: null } }),
      ),
    );
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { name: 'Payment cancelled' })).toBeTruthy();
  });

  it('an expired link says so, with the hosted page lifetime', async () => {
    server.use(trpcQuery('pages.hostedSession', () => LINK_EXPIRED));
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { name: 'This link has expired' })).toBeTruthy();
    expect(screen.getByText(/valid for 1 hour/)).toBeTruthy();
    expect(screen.getByText(/Ask the shop to send you a new link/)).toBeTruthy();
  });

  it("a suspended merchant's payment: a clear page, no bank picker, no retry", async () => {
    server.use(trpcQuery('pages.hostedSession', () => failure('MERCHANT_SUSPENDED', 403)));
    renderAt('/pay/tok');
    expect(
      await screen.findByRole('heading', { name: 'This merchant can’t take payments right now' }),
    ).toBeTruthy();
    expect(screen.getByText(/Nothing has been paid/)).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('a tampered link says so', async () => {
    server.use(trpcQuery('pages.hostedSession', () => LINK_INVALID));
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { name: 'This link is not valid' })).toBeTruthy();
  });

  it('server unreachable: a page with retry that recovers', async () => {
    const user = userEvent.setup();
    let down = true;
    server.use(
      http.get('*/trpc/pages.hostedSession', () => (down ? HttpResponse.error() : undefined)),
      trpcQuery('pages.hostedSession', () => hostedSession()),
      bankHandler,
    );
    renderAt('/pay/tok');
    expect(await screen.findByRole('heading', { name: 'We can’t reach the payment service' })).toBeTruthy();
    down = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Pay Acme Shop' })).toBeTruthy();
  });

  it('bank chosen in another tab meanwhile: reloads and shows where the payment stands', async () => {
    const user = userEvent.setup();
    let chosenElsewhere = false;
    server.use(
      trpcQuery('pages.hostedSession', () =>
        chosenElsewhere
          ? hostedSession({ status: 'AUTHORIZING', bank: GB_BANKS[1]!, next: { mockBankUrl: MOCK_BANK_URL } })
          : hostedSession(),
      ),
      bankHandler,
      trpcMutation('pages.chooseBank', () => {
        chosenElsewhere = true;
        return ALREADY_DECIDED;
      }),
    );
    renderAt('/pay/tok');
    await user.click(await screen.findByRole('option', { name: 'Monzo' }));
    await user.click(screen.getByRole('button', { name: 'Continue to Monzo' }));
    expect(await screen.findByRole('link', { name: 'Continue to HSBC UK' })).toBeTruthy();
    expect(leavePage).not.toHaveBeenCalled();
  });

  it('an address that is no payment link gets a page too', async () => {
    renderAt('/nothing/here');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });
});

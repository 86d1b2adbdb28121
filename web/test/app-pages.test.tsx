import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { hostedSession, mockBankSession } from './msw/fixtures.ts';
import { server } from './msw/server.ts';
import { trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** Which page an address shows, now that the customer pages pick it without a router. */
describe('page for an address', () => {
  it('passes the hosted link token, as written in the address, to the hosted page', async () => {
    const tokens: unknown[] = [];
    server.use(
      trpcQuery('pages.hostedSession', (input) => {
        tokens.push(input.token);
        return hostedSession();
      }),
      trpcQuery('pages.hostedBanks', () => ({
        banks: [],
        pagination: { total: 0, page: 1, limit: 100, pages: 1 },
      })),
    );
    renderAt('/pay/v1.abc-DEF_123/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Pay Acme Shop' })).toBeTruthy();
    expect(tokens).toEqual(['v1.abc-DEF_123']);
  });

  it('passes the Mock bank link token to the Mock bank page', async () => {
    const tokens: unknown[] = [];
    server.use(
      trpcQuery('pages.mockBankSession', (input) => {
        tokens.push(input.token);
        return mockBankSession();
      }),
    );
    renderAt('/mock-bank/bank-token');
    expect(await screen.findByRole('button', { name: 'Log in' })).toBeTruthy();
    expect(tokens).toEqual(['bank-token']);
  });

  it('opens the dashboard at /, in place: the address becomes /dashboard', async () => {
    renderAt('/');
    expect(window.location.pathname).toBe('/dashboard');
    expect(await screen.findByText('Payments dashboard')).toBeTruthy();
  });

  it.each(['/pay', '/pay/', '/pay/a/b', '/mock-bank', '/payments/tok', '/dashboardx'])(
    'shows "Page not found" at %s',
    (path) => {
      renderAt(path);
      expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    },
  );
});

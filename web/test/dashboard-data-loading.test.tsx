import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { payment, paymentList, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** The dashboard's reads through TanStack Query (issue 23 item 12). */
describe('dashboard data loading', () => {
  it('retries a read the server could not answer, without the merchant pressing anything', async () => {
    let calls = 0;
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', () => {
        calls += 1;
        return calls === 1
          ? { kind: 'SERVICE_UNAVAILABLE', httpStatus: 503, message: 'Busy' }
          : paymentList([payment()]);
      }),
    );
    renderAt('/dashboard/payments');
    expect(await screen.findByRole('link', { name: '£12.50' })).toBeTruthy();
    expect(calls).toBe(2);
  });

  it('does not retry what another try cannot cure (a 400), and shows it once', async () => {
    let calls = 0;
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', () => {
        calls += 1;
        return { kind: 'VALIDATION_FAILED', httpStatus: 400, message: 'Bad input' };
      }),
    );
    renderAt('/dashboard');
    expect(await screen.findByText('Bad input')).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(1);
    expect(screen.getAllByText('Bad input')).toHaveLength(1);
  });

  it('reads again when the merchant comes back to the tab, and shows the cached page at once on return', async () => {
    const user = userEvent.setup();
    let calls = 0;
    server.use(
      signedIn(),
      trpcQuery('dashboard.payments.list', async () => {
        calls += 1;
        const call = calls;
        // The read on return is slow: what shows meanwhile is the cache.
        if (call === 3) await new Promise((resolve) => setTimeout(resolve, 500));
        return paymentList([payment({ amount: { value: `${call}.00`, currency: 'GBP' } })]);
      }),
      trpcQuery('dashboard.apiKeys.list', () => ({ apiKeys: [] })),
    );
    renderAt('/dashboard/payments');
    expect(await screen.findByRole('link', { name: '£1.00' })).toBeTruthy();
    // jsdom's page is never visible by itself: this is the tab being shown again.
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    window.dispatchEvent(new Event('visibilitychange'));
    expect(await screen.findByRole('link', { name: '£2.00' })).toBeTruthy();

    // Away and back: the list is there at once from the cache, then refreshed.
    await user.click(screen.getByRole('link', { name: 'API keys' }));
    await screen.findByRole('heading', { level: 1, name: 'API keys' });
    await user.click(screen.getByRole('link', { name: 'Payments' }));
    expect(screen.getByRole('link', { name: '£2.00' })).toBeTruthy();
    await waitFor(() => expect(screen.getByRole('link', { name: '£3.00' })).toBeTruthy());
  });
});

import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { lastDays } from '../src/dashboard/overview/OverviewPage.tsx';
import { volumeSeries } from '../src/dashboard/overview/VolumeChart.tsx';
import { sdkSnippet } from '../src/dashboard/quick-start/quick-start-snippets.ts';
import { overview, quickStart, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

describe('overview', () => {
  it('shows the organization, whether it is active, its providers, counts by status and the volume figures', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', () => overview()),
    );
    renderAt('/dashboard');
    expect(await screen.findByRole('heading', { level: 1, name: 'Acme Shop' })).toBeTruthy();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.getByText('mock')).toBeTruthy();
    const completed = screen.getByRole('link', { name: '3 Completed' });
    expect(completed.getAttribute('href')).toBe('/dashboard/payments?status=COMPLETED');
    const figure = screen.getByRole('figure', { name: 'Payment volume per day, last 30 days (GBP)' });
    expect(within(figure).getByRole('cell', { name: '£37.50' })).toBeTruthy();
  });

  it('switches between 7, 30 and 90 days in the address, with the success rate, median, banks and reasons', async () => {
    const user = userEvent.setup();
    const asked: unknown[] = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', (input) => {
        asked.push(input);
        return overview({ days: Number((input as { days: number }).days) });
      }),
    );
    renderAt('/dashboard');
    expect(await screen.findByText('75%')).toBeTruthy();
    expect(screen.getByText('(3 completed of 4 finished)')).toBeTruthy();
    expect(screen.getByText('61 s')).toBeTruthy();
    expect(screen.getByText(/mock-gb-albion: 3/)).toBeTruthy();
    expect(screen.getByText(/Not enough money in the account: 1/)).toBeTruthy();
    expect(asked.at(-1)).toEqual({ days: 30 });
    const periods = screen.getByRole('navigation', { name: 'Period' });
    expect(within(periods).getByRole('link', { name: '30 days' }).getAttribute('aria-current')).toBe('page');
    await user.click(within(periods).getByRole('link', { name: '90 days' }));
    expect(await screen.findByRole('heading', { name: 'How the last 90 days went' })).toBeTruthy();
    expect(asked.at(-1)).toEqual({ days: 90 });
    expect(window.location.search).toBe('?days=90');
    expect(screen.getByRole('figure', { name: 'Payment volume per day, last 90 days (GBP)' })).toBeTruthy();
  });

  it('says when the organization is inactive', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', () =>
        overview({
          organization: { id: 'org_1', name: 'Acme Shop', active: false, approvedProviders: ['mock'] },
        }),
      ),
    );
    renderAt('/dashboard');
    expect(await screen.findByText('Inactive: API calls are refused')).toBeTruthy();
  });

  it('draws thirty days, zero where nothing was paid, one series per currency', () => {
    const days = lastDays(new Date('2026-11-22T15:00:00Z'));
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-10-24');
    expect(days[29]).toBe('2026-11-22');
    const series = volumeSeries(
      [
        { day: '2026-11-22', currency: 'GBP', value: '10.50', count: 1 },
        { day: '2026-11-20', currency: 'EUR', value: '3', count: 2 },
      ],
      days,
    );
    expect(series.map(({ currency }) => currency)).toEqual(['EUR', 'GBP']);
    expect(series[1]?.values[29]).toBe(10.5);
    expect(series[0]?.values[27]).toBe(3);
    expect(series[1]?.values.filter((value) => value === 0)).toHaveLength(29);
  });
});

describe('quick start', () => {
  it('fills the base URL and the key prefix in, never a full key', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.quickStart', () =>
        quickStart({ publicBaseUrl: 'https://pay.acme.test', apiBaseUrl: 'https://pay.acme.test/api' }),
      ),
    );
    renderAt('/dashboard/quick-start');
    expect(await screen.findByText('https://pay.acme.test/api')).toBeTruthy();
    const curl = screen.getByRole('figure', { name: /curl example/ });
    expect(curl.textContent).toContain('BASE=https://pay.acme.test/api');
    expect(curl.textContent).toContain('starts with pis_ab12');
    expect(curl.textContent).toContain('"accountName": "Acme Shop"');
    // The key itself is never in an example: it is sent from the merchant's environment.
    expect(curl.textContent).toContain('export PIS_API_KEY=...');
    expect(curl.textContent).toContain('-H "x-api-key: $PIS_API_KEY"');
  });

  it('shows the safe return check in the SDK example', () => {
    const code = sdkSnippet({
      baseUrl: 'https://pay.acme.test',
      apiBaseUrl: 'https://pay.acme.test/api',
      businessName: "O'Brien & Co",
      keyPrefix: null,
    });
    expect(code).toContain("baseUrl: 'https://pay.acme.test'");
    expect(code).toContain('paymentId: created.paymentId');
    expect(code).toContain('verifyReturn(req.url, { expectedPaymentId: order.paymentId })');
    expect(code).toContain(`accountName: "O'Brien & Co"`);
  });
});

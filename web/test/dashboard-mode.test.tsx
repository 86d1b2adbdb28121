import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiKey, session, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { failure, trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** The header's test/live switch (issue 19 item 5): kept on the session, every page reloads its data. */
describe('test and live data', () => {
  it('starts on test data; switching to live asks the server and reloads the page’s data', async () => {
    const sent: unknown[] = [];
    let reads = 0;
    server.use(
      signedIn(),
      trpcQuery('dashboard.apiKeys.list', () => {
        reads++;
        return { apiKeys: [apiKey()] };
      }),
      trpcMutation('dashboard.account.setMode', (input) => {
        sent.push(input);
        return session({ mode: (input as { mode: 'test' | 'live' }).mode });
      }),
    );
    const user = userEvent.setup();
    renderAt('/dashboard/api-keys');
    const test = await screen.findByRole('button', { name: 'Test data' });
    const live = screen.getByRole('button', { name: 'Live data' });
    expect(test.getAttribute('aria-pressed')).toBe('true');
    expect(live.getAttribute('aria-pressed')).toBe('false');
    await screen.findByText('Checkout server');
    const before = reads;

    await user.click(live);
    await waitFor(() => expect(live.getAttribute('aria-pressed')).toBe('true'));
    expect(sent).toEqual([{ mode: 'live' }]);
    expect(await screen.findByText(/these payments move real money/)).toBeTruthy();
    await waitFor(() => expect(reads).toBeGreaterThan(before));
  });

  it('shows the server’s refusal (an unverified address cannot see live data) and stays on test', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.apiKeys.list', () => ({ apiKeys: [] })),
      trpcMutation('dashboard.account.setMode', () => ({
        ...failure('FORBIDDEN', 403),
        message: 'Verify your email address before you look at live payments',
      })),
    );
    const user = userEvent.setup();
    renderAt('/dashboard/api-keys');
    await user.click(await screen.findByRole('button', { name: 'Live data' }));
    expect(
      await screen.findByText('Verify your email address before you look at live payments'),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Test data' }).getAttribute('aria-pressed')).toBe('true');
  });
});

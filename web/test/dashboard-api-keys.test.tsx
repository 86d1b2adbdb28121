import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiKey, CSRF_TOKEN, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

const SECRET = 'pis_cd34_s3cr3t-only-shown-once';

/** The keys the server holds, and what the page sent. */
const keyServer = () => {
  const state = {
    keys: [apiKey()],
    created: [] as unknown[],
    revoked: [] as unknown[],
    csrf: [] as unknown[],
  };
  server.use(
    signedIn(),
    trpcQuery('dashboard.apiKeys.list', () => ({ apiKeys: state.keys })),
    trpcMutation('dashboard.apiKeys.create', (input, request) => {
      state.created.push(input);
      state.csrf.push(request.headers.get('x-csrf-token'));
      const entry = apiKey({ id: 'key_2', name: String(input.name), prefix: 'pis_cd34' });
      state.keys = [entry, ...state.keys];
      return { apiKey: entry, secret: SECRET };
    }),
    trpcMutation('dashboard.apiKeys.revoke', (input, request) => {
      state.revoked.push(input);
      state.csrf.push(request.headers.get('x-csrf-token'));
      state.keys = state.keys.map((key) =>
        key.id === input.apiKeyId ? { ...key, state: 'revoked' as const } : key,
      );
      return { revoked: true };
    }),
  );
  return state;
};

describe('API keys page', () => {
  it('lists each key with its prefix, permissions, dates and state, never a secret', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.apiKeys.list', () => ({
        apiKeys: [
          apiKey({ lastUsedAt: '2026-11-21T09:30:00.000Z' }),
          apiKey({ id: 'key_0', name: 'Old', prefix: 'pis_zz99', permissions: ['read'], state: 'revoked' }),
        ],
      })),
    );
    renderAt('/dashboard/api-keys');
    const table = await screen.findByRole('table');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((cell) => cell.textContent);
    expect(headers).toEqual([
      'Name',
      'Prefix',
      'Mode',
      'Permissions',
      'Created',
      'Expires',
      'Last used',
      'State',
      'Actions',
    ]);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]?.textContent).toContain('pis_ab12');
    expect(rows[0]?.textContent).toContain('Test');
    expect(rows[0]?.textContent).toContain('Read, Write');
    expect(rows[0]?.textContent).toContain('Never');
    expect(rows[0]?.textContent).toContain('active');
    expect(rows[1]?.textContent).toContain('revoked');
    // A revoked key has nothing left to revoke.
    expect(within(rows[1] as HTMLElement).queryByRole('button')).toBeNull();
  });

  it('creates a key with name, permissions and expiry, and shows it once with a copy button and a warning', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const state = keyServer();
    renderAt('/dashboard/api-keys');
    await user.type(await screen.findByLabelText('Name'), 'Reporting');
    await user.click(screen.getByRole('checkbox', { name: /Write/ }));
    await user.type(screen.getByLabelText('Expires (optional)'), '2027-01-31T12:00');
    await user.click(screen.getByRole('button', { name: 'Create API key' }));

    const heading = await screen.findByRole('heading', { name: 'Your new API key “Reporting”' });
    expect(document.activeElement).toBe(heading);
    expect(state.created).toEqual([
      { name: 'Reporting', permissions: ['read'], expiresAt: new Date('2027-01-31T12:00').toISOString() },
    ]);
    expect(state.csrf).toEqual([CSRF_TOKEN]);
    expect(screen.getByTestId('new-api-key').textContent).toBe(SECRET);
    expect(screen.getByText('Copy it now: it will not be shown again.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Copy key' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(await screen.findByText('Copied to the clipboard.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'I have stored it' }));
    expect(screen.queryByText(SECRET)).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);
    expect(await screen.findByRole('rowheader', { name: 'Reporting' })).toBeTruthy();
  });

  it('shows the server’s answer about permissions under Permissions', async () => {
    const user = userEvent.setup();
    server.use(
      signedIn(),
      trpcQuery('dashboard.apiKeys.list', () => ({ apiKeys: [] })),
      trpcMutation('dashboard.apiKeys.create', () => ({
        kind: 'VALIDATION_FAILED',
        httpStatus: 400,
        message: 'Validation failed',
        details: [{ field: 'permissions', message: 'must include read or write' }],
      })),
    );
    renderAt('/dashboard/api-keys');
    await user.type(await screen.findByLabelText('Name'), 'Nothing');
    await user.click(screen.getByRole('checkbox', { name: /Read/ }));
    await user.click(screen.getByRole('checkbox', { name: /Write/ }));
    await user.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(await screen.findByText('Check Permissions: see the message under each.')).toBeTruthy();
    expect(screen.getAllByText('must include read or write')).toHaveLength(1);
    expect(screen.getByRole('group', { name: 'Permissions' }).getAttribute('aria-invalid')).toBe('true');
  });

  it('revokes only after confirmation', async () => {
    const user = userEvent.setup();
    const state = keyServer();
    renderAt('/dashboard/api-keys');
    await user.click(await screen.findByRole('button', { name: 'Revoke Checkout server' }));
    const question = screen.getByRole('heading', { name: 'Revoke “Checkout server” (pis_ab12…)?' });
    expect(document.activeElement).toBe(question);
    await user.click(screen.getByRole('button', { name: 'Keep key' }));
    expect(state.revoked).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Revoke Checkout server' }));
    await user.click(screen.getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(state.revoked).toEqual([{ apiKeyId: 'key_1' }]));
    expect(state.csrf).toEqual([CSRF_TOKEN]);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Revoke Checkout server' })).toBeNull());
    expect(screen.getByRole('row', { name: /Checkout server/ }).textContent).toContain('revoked');
  });

  it('says so when revoking fails', async () => {
    const user = userEvent.setup();
    server.use(
      signedIn(),
      trpcQuery('dashboard.apiKeys.list', () => ({ apiKeys: [apiKey()] })),
      trpcMutation('dashboard.apiKeys.revoke', () => ({
        kind: 'NOT_FOUND',
        httpStatus: 404,
        message: 'API key not found',
      })),
    );
    renderAt('/dashboard/api-keys');
    await user.click(await screen.findByRole('button', { name: 'Revoke Checkout server' }));
    await user.click(screen.getByRole('button', { name: 'Revoke key' }));
    expect(await screen.findByText('API key not found')).toBeTruthy();
  });
});

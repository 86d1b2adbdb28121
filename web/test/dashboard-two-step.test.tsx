import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF_TOKEN, session, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { failure, trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** Settings, two-step on: "New recovery codes" and "Turn off" (the server's rules: server/test/accounts/two-step-changes.test.ts). */
const twoStepServer = (initial: { requiredByOrganization: boolean; role?: 'owner' | 'viewer' }) => {
  const state = {
    status: { enabled: true, requiredByOrganization: initial.requiredByOrganization, recoveryCodesLeft: 3 },
    sent: [] as { path: string; input: unknown; csrf: string | null }[],
  };
  const newCodes = Array.from({ length: 10 }, (_, index) => `new${index}-aaaa-bbbb-cccc`);
  server.use(
    signedIn(
      session({
        user: { id: 'usr_1', email: 'me@acme.test', emailVerified: true, role: initial.role ?? 'owner' },
      }),
    ),
    trpcQuery('dashboard.settings.returnOrigins', () => ({ allowedReturnOrigins: [] })),
    trpcQuery('dashboard.account.twoStep', () => state.status),
    trpcMutation('dashboard.account.regenerateRecoveryCodes', (input, request) => {
      state.sent.push({ path: 'regenerate', input, csrf: request.headers.get('x-csrf-token') });
      state.status = { ...state.status, recoveryCodesLeft: 10 };
      return { recoveryCodes: newCodes };
    }),
    trpcMutation('dashboard.account.turnOffTwoStep', (input, request) => {
      state.sent.push({ path: 'turnOff', input, csrf: request.headers.get('x-csrf-token') });
      if (input.password !== 'right password here') {
        return {
          ...failure('VALIDATION_FAILED', 400),
          message: 'Validation failed',
          details: [{ field: 'password', message: 'is not your current password' }],
        };
      }
      state.status = { enabled: false, requiredByOrganization: false, recoveryCodesLeft: 0 };
      return { enabled: false };
    }),
  );
  return { state, newCodes };
};

describe('two-step verification, once on', () => {
  it('while the organization requires it: no "Turn off", and the page says why', async () => {
    const { state } = twoStepServer({ requiredByOrganization: true, role: 'viewer' });
    renderAt('/dashboard/settings');
    expect(
      await screen.findByText('Every member of your organization must use it, so it cannot be turned off.'),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'New recovery codes' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Turn off' })).toBeNull();
    // "Cancel" closes the form without a call.
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'New recovery codes' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('form', { name: 'Make new recovery codes' })).toBeNull();
    expect(state.sent).toEqual([]);
  });

  it('"New recovery codes" sends the password and code, then shows the new set once with its notice', async () => {
    const user = userEvent.setup();
    const { state, newCodes } = twoStepServer({ requiredByOrganization: false });
    renderAt('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'New recovery codes' }));
    const form = screen.getByRole('form', { name: 'Make new recovery codes' });
    // The password field has focus: the form is typed straight away.
    expect(document.activeElement).toBe(within(form).getByLabelText('Password'));
    await user.keyboard('my password 1');
    await user.type(within(form).getByLabelText('Code'), '123 456');
    await user.click(within(form).getByRole('button', { name: 'Make new codes' }));
    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(newCodes);
    expect(screen.getByRole('heading', { name: 'New recovery codes' })).toBeTruthy();
    expect(screen.getByText(/Your earlier recovery codes no longer work\./)).toBeTruthy();
    expect(await screen.findByText(/Recovery codes left: 10\./)).toBeTruthy();
    expect(state.sent).toEqual([
      { path: 'regenerate', input: { password: 'my password 1', code: '123 456' }, csrf: CSRF_TOKEN },
    ]);
  });

  it('"Turn off": a refusal shows under its field; then off, the notice, and "Set up" again', async () => {
    const user = userEvent.setup();
    const { state } = twoStepServer({ requiredByOrganization: false });
    renderAt('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Turn off' }));
    const form = screen.getByRole('form', { name: 'Turn off two-step' });
    await user.type(within(form).getByLabelText('Password'), 'wrong');
    await user.type(within(form).getByLabelText('Code'), '654321');
    await user.click(within(form).getByRole('button', { name: 'Turn off' }));
    expect((await within(form).findAllByText('is not your current password')).length).toBeGreaterThan(0);
    expect(within(form).getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');

    await user.clear(within(form).getByLabelText('Password'));
    await user.type(within(form).getByLabelText('Password'), 'right password here');
    await user.click(within(form).getByRole('button', { name: 'Turn off' }));
    expect(
      await screen.findByText('Two-step verification is off: signing in asks only for your password.'),
    ).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Set up' })).toBeTruthy();
    expect(state.sent.map((call) => call.path)).toEqual(['turnOff', 'turnOff']);

    // The form is gone once done.
    expect(screen.queryByRole('form', { name: 'Turn off two-step' })).toBeNull();
  });
});

import { screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { safeNext } from '../src/dashboard/account/SignInPage.tsx';
import { CSRF_TOKEN, overview, quickStart, session, signedIn, signedOut } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

describe('dashboard sign-up', () => {
  it('creates the account with the named fields and lands on the quick start, signed in', async () => {
    const user = userEvent.setup();
    const sent: unknown[] = [];
    server.use(
      signedOut(),
      trpcMutation('dashboard.account.signUp', (input) => {
        sent.push(input);
        return session({ organization: { ...session().organization, name: 'Bean There' } });
      }),
      trpcQuery('dashboard.quickStart', () => quickStart()),
    );
    renderAt('/dashboard/sign-up');
    await user.type(await screen.findByLabelText('Business name'), 'Bean There');
    await user.type(screen.getByLabelText('Email'), 'owner@bean.test');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Quick start' })).toBeTruthy();
    expect(sent).toEqual([
      { businessName: 'Bean There', email: 'owner@bean.test', password: 'correct horse battery' },
    ]);
    expect(screen.getByText('Bean There')).toBeTruthy();
  });

  it('shows the server’s field problems under the fields and announces them', async () => {
    const user = userEvent.setup();
    server.use(
      signedOut(),
      trpcMutation('dashboard.account.signUp', () => ({
        kind: 'VALIDATION_FAILED',
        httpStatus: 400,
        message: 'Validation failed',
        details: [
          { field: 'email', message: 'is already registered' },
          { field: 'password', message: 'must be at least 12 characters' },
        ],
      })),
    );
    renderAt('/dashboard/sign-up');
    await user.type(await screen.findByLabelText('Business name'), 'Acme');
    await user.type(screen.getByLabelText('Email'), 'taken@acme.test');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    // The summary names the fields; each message shows once, under its field.
    const summary = await screen.findByText('Check Email, Password: see the message under each.');
    expect(summary.closest('[role="alert"]')).toBeTruthy();
    expect(screen.getAllByText('is already registered')).toHaveLength(1);
    expect(screen.getAllByText('must be at least 12 characters')).toHaveLength(1);
    const email = screen.getByLabelText('Email');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Business name').getAttribute('aria-invalid')).toBeNull();
    expect(email.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(String(email.getAttribute('aria-describedby')))?.textContent).toBe(
      'is already registered',
    );
  });
});

describe('dashboard sign-in', () => {
  it('sends a signed-out visitor to sign-in, and back to the page they asked for', async () => {
    const user = userEvent.setup();
    let signedInNow = false;
    server.use(
      trpcQuery('dashboard.account.session', () =>
        signedInNow ? session() : { kind: 'UNAUTHORIZED', httpStatus: 401, message: 'Not signed in' },
      ),
      trpcMutation('dashboard.account.signIn', () => {
        signedInNow = true;
        return session();
      }),
      trpcQuery('dashboard.quickStart', () => quickStart()),
    );
    renderAt('/dashboard/quick-start');
    await user.type(await screen.findByLabelText('Email'), 'owner@acme.test');
    await user.type(screen.getByLabelText('Password'), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Quick start' })).toBeTruthy();
  });

  it('says a wrong email or password plainly, and stays on the form', async () => {
    const user = userEvent.setup();
    server.use(
      signedOut(),
      trpcMutation('dashboard.account.signIn', () => ({
        kind: 'UNAUTHORIZED',
        httpStatus: 401,
        message: 'Invalid email or password',
      })),
    );
    renderAt('/dashboard/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'owner@acme.test');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByText('Invalid email or password')).closest('[role="alert"]')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
  });

  it('shows the throttling answer', async () => {
    const user = userEvent.setup();
    server.use(
      signedOut(),
      trpcMutation('dashboard.account.signIn', () => ({
        kind: 'RATE_LIMITED',
        httpStatus: 429,
        message: 'Too many sign-in attempts. Try again in 60 seconds.',
      })),
    );
    renderAt('/dashboard/sign-in');
    await user.type(await screen.findByLabelText('Email'), 'owner@acme.test');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Too many sign-in attempts. Try again in 60 seconds.')).toBeTruthy();
  });

  it('only returns to dashboard paths after sign-in', () => {
    expect(safeNext('/dashboard/payments?status=COMPLETED')).toBe('/dashboard/payments?status=COMPLETED');
    expect(safeNext('https://evil.test/dashboard')).toBe('/dashboard');
    expect(safeNext('//evil.test/dashboard')).toBe('/dashboard');
    expect(safeNext('/dashboardx')).toBe('/dashboard');
    expect(safeNext('/pay/tok')).toBe('/dashboard');
    // Dot segments (and backslashes, which browsers read as slashes) leave /dashboard once resolved.
    expect(safeNext('/dashboard/../pay/tok')).toBe('/dashboard');
    expect(safeNext('/dashboard/..\\mock-bank\\tok')).toBe('/dashboard');
    expect(safeNext('/dashboard/%2e%2e/pay/tok')).toBe('/dashboard');
    expect(safeNext('/\\evil.test/dashboard')).toBe('/dashboard');
    expect(safeNext('/dashboard/api-keys#new')).toBe('/dashboard/api-keys#new');
    expect(safeNext(null)).toBe('/dashboard');
  });
});

describe('dashboard session', () => {
  it('signs out with the CSRF token and goes to sign-in', async () => {
    const user = userEvent.setup();
    const headers: Array<string | null> = [];
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', () => overview()),
      trpcMutation('dashboard.account.signOut', (_input, request) => {
        headers.push(request.headers.get('x-csrf-token'));
        return { signedOut: true };
      }),
    );
    renderAt('/dashboard');
    await screen.findByRole('heading', { level: 1, name: 'Acme Shop' });
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(headers).toEqual([CSRF_TOKEN]);
  });

  it('the sign-out page asks first, so a link from elsewhere cannot sign anyone out', async () => {
    const user = userEvent.setup();
    const calls: unknown[] = [];
    server.use(
      signedIn(),
      trpcMutation('dashboard.account.signOut', (_input, request) => {
        calls.push(request.headers.get('x-csrf-token'));
        return { signedOut: true };
      }),
    );
    renderAt('/dashboard/sign-out');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign out of Acme Shop?' })).toBeTruthy();
    expect(calls).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'You are signed out' })).toBeTruthy();
    expect(calls).toEqual([CSRF_TOKEN]);
  });

  it('a user of an inactive organization is told why they cannot get in', async () => {
    server.use(
      trpcQuery('dashboard.account.session', () => ({
        kind: 'FORBIDDEN',
        httpStatus: 403,
        message: 'Organization is not active',
      })),
    );
    renderAt('/dashboard/payments');
    expect(await screen.findByText('Organization is not active')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
  });

  it('an ended session sends the merchant to sign in again, saying why', async () => {
    server.use(
      signedIn(),
      trpcQuery('dashboard.overview', () => ({
        kind: 'UNAUTHORIZED',
        httpStatus: 401,
        message: 'Session expired',
      })),
    );
    renderAt('/dashboard');
    expect(await screen.findByText('Your session ended. Sign in again to continue.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
  });
});

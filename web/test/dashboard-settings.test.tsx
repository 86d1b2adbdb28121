import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF_TOKEN, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { failure, trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** The organization's list as the server holds it, and what the page sent. */
const originServer = (initial: string[] = []) => {
  const state = { origins: initial, sent: [] as unknown[], csrf: [] as unknown[] };
  server.use(
    signedIn(),
    trpcQuery('dashboard.settings.returnOrigins', () => ({ allowedReturnOrigins: state.origins })),
    // The page's two-step section (its own tests: server/test/accounts/two-step.test.ts, e2e).
    trpcQuery('dashboard.account.twoStep', () => ({
      enabled: false,
      requiredByOrganization: false,
      recoveryCodesLeft: 0,
    })),
    trpcMutation('dashboard.settings.setReturnOrigins', (input, request) => {
      state.sent.push(input);
      state.csrf.push(request.headers.get('x-csrf-token'));
      const origins = input.origins as string[];
      const bad = origins.flatMap((origin, index) =>
        origin.startsWith('http') ? [] : [{ field: `origins.${index}`, message: 'must be an origin' }],
      );
      if (bad.length > 0)
        return { ...failure('VALIDATION_FAILED', 400), message: 'Validation failed', details: bad };
      // As the server spells them: URL.origin, each once.
      state.origins = [...new Set(origins.map((origin) => new URL(origin).origin))];
      return { allowedReturnOrigins: state.origins };
    }),
  );
  return state;
};

const originsBox = () => screen.findByRole('textbox', { name: 'Origins, one a line' });

describe('settings page', () => {
  it('shows the allowed return origins, one a line, from the nav', async () => {
    originServer(['https://shop.example', 'http://localhost:8080']);
    renderAt('/dashboard/settings');
    expect(((await originsBox()) as HTMLTextAreaElement).value).toBe(
      'https://shop.example\nhttp://localhost:8080',
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    expect(screen.getByText('Now: 2 origins, https://shop.example, http://localhost:8080.')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Dashboard' });
    expect(nav.querySelector('a[aria-current="page"]')?.textContent).toBe('Settings');
  });

  it('saves the lines (blank ones dropped) with the CSRF token and shows what the server stored', async () => {
    const user = userEvent.setup();
    const state = originServer();
    renderAt('/dashboard/settings');
    expect(await screen.findByText('Now: any origin is allowed.')).toBeTruthy();
    await user.type(await originsBox(), 'https://Shop.example/{Enter}{Enter}  http://localhost:8080  ');
    await user.click(screen.getByRole('button', { name: 'Save return origins' }));
    expect(await screen.findByText('Saved.')).toBeTruthy();
    expect(state.sent).toEqual([{ origins: ['https://Shop.example/', 'http://localhost:8080'] }]);
    expect(state.csrf).toEqual([CSRF_TOKEN]);
    expect(((await originsBox()) as HTMLTextAreaElement).value).toBe(
      'https://shop.example\nhttp://localhost:8080',
    );
    expect(screen.getByText('Now: 2 origins, https://shop.example, http://localhost:8080.')).toBeTruthy();

    // An empty box clears the list: any origin again.
    await user.clear(await originsBox());
    await user.click(screen.getByRole('button', { name: 'Save return origins' }));
    expect(await screen.findByText('Now: any origin is allowed.')).toBeTruthy();
    expect(state.sent.at(-1)).toEqual({ origins: [] });
  });

  it('names each refused line, tied to the box for screen readers, and keeps what was typed', async () => {
    const user = userEvent.setup();
    const state = originServer(['https://kept.example']);
    renderAt('/dashboard/settings');
    const box = await originsBox();
    await user.clear(box);
    await user.type(box, 'https://ok.example{Enter}shop.example');
    await user.click(screen.getByRole('button', { name: 'Save return origins' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Validation failed');
    expect(alert.textContent).toContain('Line 2: must be an origin');
    await waitFor(() => expect(box.getAttribute('aria-invalid')).toBe('true'));
    const described = (box.getAttribute('aria-describedby') ?? '').split(' ');
    const errorText = described.map((id) => document.getElementById(id)?.textContent).join(' ');
    expect(errorText).toContain('Line 2: must be an origin');
    expect((box as HTMLTextAreaElement).value).toBe('https://ok.example\nshop.example');
    expect(state.origins).toEqual(['https://kept.example']);
    expect(screen.getByText('Now: 1 origin, https://kept.example.')).toBeTruthy();
  });
});

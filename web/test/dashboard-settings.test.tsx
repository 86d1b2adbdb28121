import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF_TOKEN, signedIn } from './msw/dashboard-fixtures.ts';
import { server } from './msw/server.ts';
import { failure, trpcMutation, trpcQuery } from './msw/trpc-handlers.ts';
import { renderAt } from './render-at.tsx';

/** The organization's list as the server holds it, and what the page sent. */
const originServer = (initial: string[] = []) => {
  const state = {
    origins: initial,
    sent: [] as unknown[],
    csrf: [] as unknown[],
    brand: {
      verified: false,
      displayName: null as string | null,
      accentColor: null as string | null,
      logoUrl: null,
    },
    brandSent: [] as Record<string, unknown>[],
  };
  server.use(
    signedIn(),
    trpcQuery('dashboard.settings.returnOrigins', () => ({ allowedReturnOrigins: state.origins })),
    // The page's two-step section (its own tests: server/test/accounts/two-step.test.ts, e2e).
    trpcQuery('dashboard.account.twoStep', () => ({
      enabled: false,
      requiredByOrganization: false,
      recoveryCodesLeft: 0,
    })),
    // The page's brand section (its own tests below, server/test/organizations/brand.test.ts, e2e).
    trpcQuery('dashboard.settings.brand', () => state.brand),
    trpcMutation('dashboard.settings.setBrand', (input) => {
      state.brandSent.push(input);
      state.brand = {
        ...state.brand,
        displayName: input.displayName as string | null,
        accentColor: input.accentColor as string | null,
      };
      return state.brand;
    }),
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
    // The page has several forms, each with its own alert: this one's says what failed.
    const alert = await waitFor(() => {
      const found = screen
        .getAllByRole('alert')
        .find((each) => each.textContent?.includes('Validation failed'));
      if (!found) throw new Error('no alert about the origins yet');
      return found;
    });
    expect(alert.textContent).toContain('Line 2: must be an origin');
    await waitFor(() => expect(box.getAttribute('aria-invalid')).toBe('true'));
    const described = (box.getAttribute('aria-describedby') ?? '').split(' ');
    const errorText = described.map((id) => document.getElementById(id)?.textContent).join(' ');
    expect(errorText).toContain('Line 2: must be an origin');
    expect((box as HTMLTextAreaElement).value).toBe('https://ok.example\nshop.example');
    expect(state.origins).toEqual(['https://kept.example']);
    expect(screen.getByText('Now: 1 origin, https://kept.example.')).toBeTruthy();
  });

  it('Brand: says it shows once verified, sends what was typed, keeps a logo over 64 KB from being sent', async () => {
    const user = userEvent.setup();
    const state = originServer();
    renderAt('/dashboard/settings');
    expect((await screen.findByTestId('brand-status')).textContent).toMatch(
      /once the service’s operator has verified/,
    );
    await user.type(screen.getByLabelText('Display name (optional)'), 'Corner Café');
    await user.type(screen.getByLabelText(/^Accent colour/), '#7a1f5c');
    expect(screen.getByText(/this one has 8\.\d:1/)).toBeTruthy();
    const huge = new File([new Uint8Array(5 * 1024 * 1024)], 'huge.png', { type: 'image/png' });
    await user.upload(screen.getByLabelText(/^Logo/), huge);
    expect(
      await screen.findByText('The file is 5.0 MB: a logo may be at most 64 KB. Nothing was saved.'),
    ).toBeTruthy();
    // Saved without it: the file never left the page.
    await user.click(screen.getByRole('button', { name: 'Save brand' }));
    expect(await screen.findByText('Brand saved.')).toBeTruthy();
    expect(state.brandSent).toEqual([{ displayName: 'Corner Café', accentColor: '#7a1f5c' }]);
  });
});

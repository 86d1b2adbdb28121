import { DASHBOARD_SESSION_COOKIE, type DashboardSession } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../../src/accounts/sessions.ts';
import { SIGN_IN_LIMITS } from '../../src/accounts/sign-in-throttle.ts';
import { DashboardUser, Organization, DashboardSession as SessionRow } from '../../src/db/entities/index.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data, failure, signUpInput } from './dashboard-browser.ts';

const { app, orm, clock, factories, config } = await createTestApp();
/** The deployment's per-address password attempts (RATE_LIMIT_SIGN_INS). */
const perAddress = config.rateLimits.signInsPerAddress;

let addresses = 0;
/** Each test its own client address, so the per-address sign-in budget of one never spills into another. */
const browser = () => new DashboardBrowser(app, `198.51.100.${++addresses}`);

const rowCounts = async () => {
  const em = orm.em.fork();
  return {
    organizations: await em.count(Organization, {}),
    users: await em.count(DashboardUser, {}),
    sessions: await em.count(SessionRow, {}),
  };
};

describe('sign-up', () => {
  test('creates an active organization that may use only mock, its user and a signed-in session', async () => {
    const b = browser();
    const input = signUpInput({ email: '  Owner.Case@Acme.Example ' });
    const response = await b.mutation('account.signUp', input);
    const session = data<DashboardSession>(response);
    expect(session.organization).toMatchObject({
      name: 'Acme Coffee Ltd',
      active: true,
      approvedProviders: ['mock'],
    });
    expect(session.user.email).toBe('owner.case@acme.example');
    expect(session.csrfToken).toMatch(/^[0-9a-f]{64}$/);

    const cookie = response.cookies.find((c) => c.name === DASHBOARD_SESSION_COOKIE);
    // __Host- (issue 24's review): Secure, Path=/, no Domain, whatever PUBLIC_BASE_URL says.
    expect(cookie?.name).toBe('__Host-pis_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: true });
    expect(cookie?.domain).toBeUndefined();
    expect(new Date(String(cookie?.expires)).getTime()).toBe(clock.now().getTime() + SESSION_ABSOLUTE_MS);

    b.csrfToken = session.csrfToken;
    expect(data<DashboardSession>(await b.query('account.session'))).toEqual(session);
    // The password is stored only as an argon2id hash; the session row only as the token's hash.
    const user = await orm.em.fork().findOneOrFail(DashboardUser, { id: session.user.id });
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user.passwordHash).not.toContain(input.password);
    expect(await orm.em.fork().count(SessionRow, { id: String(b.cookie) })).toBe(0);
  });

  test('the cookie is Secure with PUBLIC_BASE_URL on https too', async () => {
    const secure = await createTestApp({ config: { publicBaseUrl: 'https://pay.example' } });
    const response = await new DashboardBrowser(secure.app).mutation('account.signUp', signUpInput());
    expect(data(response)).toBeTruthy();
    expect(response.cookies.find((c) => c.name === DASHBOARD_SESSION_COOKIE)?.secure).toBe(true);
  });

  test('an email already used, in any case: a clear message on email, nothing half-created', async () => {
    const first = await browser().signUp();
    const before = await rowCounts();
    const again = failure(
      await browser().mutation('account.signUp', signUpInput({ email: first.user.email.toUpperCase() })),
      400,
    );
    expect(again).toMatchObject({ code: 'VALIDATION_FAILED', message: 'Validation failed' });
    expect(again.details).toEqual([{ field: 'email', message: 'is already registered: sign in instead' }]);
    expect(await rowCounts()).toEqual(before);
  });

  test.each([
    ['a weak password', { password: 'short' }, 'password', 'must be at least 12 characters'],
    [
      'a one-letter password',
      { password: 'a'.repeat(20) },
      'password',
      'is too weak: use at least 4 different characters',
    ],
    ['a huge password', { password: 'x1y2'.repeat(1000) }, 'password', 'must be at most 128 characters'],
    ['a missing business name', { businessName: undefined }, 'businessName', 'is required'],
    ['a missing email', { email: undefined }, 'email', 'is required'],
    ['a missing password', { password: undefined }, 'password', 'is required'],
    ['a blank business name', { businessName: '   ' }, 'businessName', 'is required'],
    [
      'a 10,000-character business name',
      { businessName: 'B'.repeat(10_000) },
      'businessName',
      'must be at most 200 characters',
    ],
    [
      'control characters in the name',
      { businessName: 'Acme\u0007Bell\nLtd' },
      'businessName',
      'must not contain control characters',
    ],
    ['an invalid email', { email: 'not-an-email' }, 'email', 'must be a valid email address'],
  ])(
    '%s: VALIDATION_FAILED with a detail the form can show, nothing created',
    async (_name, overrides, field, message) => {
      const before = await rowCounts();
      const refused = failure(await browser().mutation('account.signUp', signUpInput(overrides)), 400);
      expect(refused.code).toBe('VALIDATION_FAILED');
      expect(refused.details).toContainEqual({ field, message });
      expect(await rowCounts()).toEqual(before);
    },
  );

  test('NUL in any field is refused before anything is read', async () => {
    const refused = failure(
      await browser().mutation('account.signUp', signUpInput({ businessName: 'A\u0000B' })),
      400,
    );
    expect(refused.details?.[0]?.field).toBe('businessName');
  });
});

describe('sign-in and sign-out', () => {
  test('signs in with the email in any case; sign-out ends the session for good', async () => {
    const owner = await browser().signUp();
    const b = browser();
    const session = await b.signIn(owner.user.email.toUpperCase(), owner.password);
    expect(session.organization.id).toBe(owner.organization.id);
    const stolenCookie = b.cookie;

    expect(data(await b.mutation('account.signOut'))).toEqual({ signedOut: true });
    expect(b.cookie).toBeUndefined();
    // A copy of the cookie taken before sign-out is worthless: the row is gone.
    b.cookie = stolenCookie;
    expect(failure(await b.query('account.session'), 401).message).toBe('Not signed in');
  });

  test('unknown email and wrong password: the same answer, in similar time', async () => {
    const owner = await browser().signUp();
    const b = browser();
    const time = async (email: string) => {
      const started = performance.now();
      const refused = failure(
        await b.mutation('account.signIn', { email, password: 'wrong password 123' }),
        401,
      );
      return { refused, ms: performance.now() - started };
    };
    const wrongPassword = [];
    const unknownEmail = [];
    for (let i = 0; i < 3; i++) {
      wrongPassword.push(await time(owner.user.email));
      unknownEmail.push(await time(`nobody${i}@nowhere.example`));
    }
    for (const attempt of [...wrongPassword, ...unknownEmail]) {
      expect(attempt.refused).toEqual({
        status: 401,
        message: 'Email or password is incorrect',
        code: undefined,
        details: undefined,
      });
    }
    // Both verify an argon2id hash: without the dummy hash the unknown email answers in ~1 ms.
    const median = (list: { ms: number }[]) => list.map((a) => a.ms).sort((x, y) => x - y)[1] as number;
    expect(median(unknownEmail)).toBeGreaterThan(median(wrongPassword) / 3);
    expect(median(unknownEmail)).toBeLessThan(median(wrongPassword) * 3);
  });

  test('no session, a forged cookie, or a malformed one: 401 Not signed in', async () => {
    const b = browser();
    expect(failure(await b.query('account.session'), 401).message).toBe('Not signed in');
    for (const forged of ['A'.repeat(43), 'x', `${'A'.repeat(42)}%`, 'A'.repeat(5000)]) {
      b.cookie = forged;
      expect(failure(await b.query('account.session'), 401).message).toBe('Not signed in');
    }
  });

  test('users of an inactive organization are refused, at sign-in and with a live session', async () => {
    const b = browser();
    const owner = await b.signUp();
    await factories.setActive(owner.organization.id, false);
    expect(failure(await b.query('account.session'), 403).message).toBe('Organization is not active');
    expect(failure(await b.query('overview'), 403).message).toBe('Organization is not active');
    expect(
      failure(
        await browser().mutation('account.signIn', { email: owner.user.email, password: owner.password }),
        403,
      ).message,
    ).toBe('Organization is not active');
    await factories.setActive(owner.organization.id, true);
    expect(data(await b.query('account.session'))).toBeTruthy();
  });

  test('a user of a suspended organization can still sign out: the session does not outlive the suspension', async () => {
    const b = browser();
    const owner = await b.signUp();
    const cookie = b.cookie;
    await factories.setActive(owner.organization.id, false);
    // Still needs the session's CSRF token: a cross-site page cannot sign anyone out either.
    expect(
      failure(await b.mutation('account.signOut', undefined, { csrf: 'f'.repeat(64) }), 403).message,
    ).toBe('Missing or invalid CSRF token: reload the page and try again');
    const signedOut = await b.mutation('account.signOut');
    expect(data(signedOut)).toEqual({ signedOut: true });
    expect(b.cookie).toBeUndefined();
    await factories.setActive(owner.organization.id, true);
    b.cookie = cookie;
    expect(failure(await b.query('account.session'), 401).message).toBe('Not signed in');
  });
});

describe('session expiry', () => {
  test('idle: 401 after the idle time without a request; each request keeps it alive', async () => {
    const b = browser();
    await b.signUp();
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect(data(await b.query('account.session'))).toBeTruthy();
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect(data(await b.query('account.session'))).toBeTruthy();
    clock.advance(SESSION_IDLE_MS);
    expect(failure(await b.query('account.session'), 401).message).toBe(
      'Your session has expired: sign in again',
    );
    // The browser is told to drop the cookie.
    expect(b.cookie).toBeUndefined();
  });

  test('absolute: 401 at the absolute end even when used all along; an expired session changes nothing', async () => {
    const b = browser();
    const owner = await b.signUp();
    const step = 20 * 60_000;
    for (let elapsed = step; elapsed < SESSION_ABSOLUTE_MS; elapsed += step) {
      clock.advance(step);
      expect(data(await b.query('account.session'))).toBeTruthy();
    }
    clock.advance(step);
    const cookie = b.cookie;
    const create = await b.mutation('apiKeys.create', { name: 'late', permissions: ['read'] });
    expect(failure(create, 401).message).toBe('Your session has expired: sign in again');
    // Replaying the old cookie does not bring it back, and no key was made.
    b.cookie = cookie;
    expect(failure(await b.query('account.session'), 401).message).toBe('Not signed in');
    const signedIn = browser();
    await signedIn.signIn(owner.user.email, owner.password);
    expect(data<{ apiKeys: unknown[] }>(await signedIn.query('apiKeys.list')).apiKeys).toEqual([]);
  });
});

describe("CSRF: every state-changing call needs the session's token", () => {
  test("a mutation without the header, with a wrong one or with another session's: 403, nothing changed", async () => {
    const b = browser();
    await b.signUp();
    const other = browser();
    await other.signUp();
    const attempts: [string, string | null][] = [
      ['no header', null],
      ['empty', ''],
      ['wrong', 'f'.repeat(64)],
      ["another session's token", String(other.csrfToken)],
    ];
    for (const [name, csrf] of attempts) {
      const refused = failure(
        await b.mutation('apiKeys.create', { name: 'x', permissions: ['read'] }, { csrf }),
        403,
      );
      expect(refused.message, name).toBe('Missing or invalid CSRF token: reload the page and try again');
      expect(failure(await b.mutation('account.signOut', undefined, { csrf }), 403).status, name).toBe(403);
    }
    expect(data<{ apiKeys: unknown[] }>(await b.query('apiKeys.list')).apiKeys).toEqual([]);
    // Still signed in: the refused sign-out did nothing.
    expect(data(await b.query('account.session'))).toBeTruthy();
  });

  test('sign-up and sign-in without the header (a cross-site form): 403, nothing created', async () => {
    const before = await rowCounts();
    const b = browser();
    failure(await b.mutation('account.signUp', signUpInput(), { csrf: null }), 403);
    expect(b.cookie).toBeUndefined();
    expect(await rowCounts()).toEqual(before);
    const owner = await browser().signUp();
    failure(
      await b.mutation(
        'account.signIn',
        { email: owner.user.email, password: owner.password },
        { csrf: null },
      ),
      403,
    );
    expect(b.cookie).toBeUndefined();
  });

  test('reads need no token (a GET changes nothing)', async () => {
    const b = browser();
    await b.signUp();
    b.csrfToken = undefined;
    expect(data(await b.query('apiKeys.list'))).toEqual({ apiKeys: [] });
  });
});

describe('sign-in throttling: 429 with Retry-After, per (email, client address) and per client address', () => {
  test("per email and address together: a stranger's failures never lock the owner out", async () => {
    const owner = await browser().signUp();
    const stranger = new DashboardBrowser(app, '192.0.2.77');
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      failure(
        await stranger.mutation('account.signIn', {
          email: owner.user.email,
          password: `wrong guess ${i}xyz`,
        }),
        401,
      );
    }
    // The stranger is cut off, even with the right password...
    const throttled = await stranger.mutation('account.signIn', {
      email: owner.user.email,
      password: owner.password,
    });
    expect(failure(throttled, 429)).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many sign-in attempts: wait a few minutes and try again',
    });
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // ...while the owner, from their own address, signs in (issue 24: no lock-out by strangers).
    expect(
      data(await browser().mutation('account.signIn', { email: owner.user.email, password: owner.password })),
    ).toBeTruthy();
    // From one address, the same email's budget is spent by its own failures too.
    const typo = new DashboardBrowser(app, '192.0.2.78');
    for (let i = 0; i < SIGN_IN_LIMITS.perEmailAndAddress; i++) {
      failure(
        await typo.mutation('account.signIn', { email: owner.user.email, password: `typo ${i}xyzxyz` }),
        401,
      );
    }
    expect(
      failure(
        await typo.mutation('account.signIn', { email: owner.user.email, password: owner.password }),
        429,
      ).code,
    ).toBe('RATE_LIMITED');
  });

  test('per address: many emails from one address are cut off; another address is not', async () => {
    const attacker = browser();
    for (let i = 0; i < perAddress; i++) {
      failure(
        await attacker.mutation('account.signIn', {
          email: `victim${i}@example.com`,
          password: 'guess guess guess',
        }),
        401,
      );
    }
    const throttled = await attacker.mutation('account.signIn', {
      email: 'victim-last@example.com',
      password: 'guess guess guess',
    });
    expect(failure(throttled, 429).code).toBe('RATE_LIMITED');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Sign-up from the same address counts against the same budget.
    expect(failure(await attacker.mutation('account.signUp', signUpInput()), 429).code).toBe('RATE_LIMITED');
    const owner = await browser().signUp();
    expect(
      data(await browser().mutation('account.signIn', { email: owner.user.email, password: owner.password })),
    ).toBeTruthy();
  });

  test('per address, IPv6: one /64 is one client (a host gets a whole /64 and can rotate inside it)', async () => {
    const from = (address: string) => new DashboardBrowser(app, address);
    for (let i = 0; i < perAddress; i++) {
      failure(
        await from(`2001:db8:7:8::${(i + 1).toString(16)}`).mutation('account.signIn', {
          email: `v6-victim${i}@example.com`,
          password: 'guess guess guess',
        }),
        401,
      );
    }
    // Another address of the same /64, spelled out in full and in upper case: the same budget.
    const throttled = await from('2001:0DB8:0007:0008:ffff:ffff:ffff:fffe').mutation('account.signIn', {
      email: 'v6-victim-last@example.com',
      password: 'guess guess guess',
    });
    expect(failure(throttled, 429).code).toBe('RATE_LIMITED');
    // The next /64 is someone else.
    const neighbour = await from('2001:db8:7:9::1').mutation('account.signIn', {
      email: 'v6-victim-last@example.com',
      password: 'guess guess guess',
    });
    expect(failure(neighbour, 401).message).toBe('Email or password is incorrect');
  });
});

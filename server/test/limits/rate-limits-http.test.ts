import type { CreatedApiKey } from '@pis/shared';
import { describe, expect, it } from 'vitest';
import { rateLimitRefusals } from '../../src/observability/metrics.ts';
import { setOrganizationLimits } from '../../src/organizations/organization-admin.ts';
import { DashboardBrowser, data, signUpInput } from '../dashboard/dashboard-browser.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { created, trpcFailure, trpcQuery } from '../payments/payment-fixtures.ts';
import { createInstances } from './limits-helpers.ts';

// Small budgets and a long window, so a test never straddles a window boundary.
const rateLimits = {
  enabled: true,
  windowSeconds: 3600,
  apiReads: 4,
  apiWrites: 2,
  pages: 3,
  dashboard: 3,
  waitsPerOrganization: 1_000,
  waitsPerProcess: 10_000,
  signUpsPerAddress: 2,
  signInsPerAddress: 30,
};
const {
  apps: [one, two],
  orms: [orm],
  factories,
} = await createInstances({ count: 2, config: { rateLimits } });
if (!one || !two || !orm) throw new Error('two instances expected');

const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'];

describe("per API key's organization, across two instances on one database", () => {
  it('counts reads on both instances against one budget, then answers 429 with Retry-After', async () => {
    const { headers } = await factories.createMerchant();
    const answers = [];
    for (let i = 0; i < 6; i++) {
      answers.push(await (i % 2 === 0 ? one : two).inject({ method: 'GET', url: '/api/payments', headers }));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0', '0', '0']);
    for (const answer of answers) {
      for (const name of RATE_HEADERS) expect(answer.headers[name], name).toBeDefined();
      expect(answer.headers['ratelimit-limit']).toBe('4');
      expect(answer.headers['ratelimit-policy']).toBe('4;w=3600');
    }
    const refused = answers[4];
    if (!refused) throw new Error('unreachable');
    const error = expectFailure(refused, 429);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toMatch(/at most 4 read requests for this API key's organization per 3600 s/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers['ratelimit-reset']).toBe(refused.headers['retry-after']);
  });

  it('keeps writes apart from reads, and one organization apart from another', async () => {
    const merchant = await factories.createMerchant();
    for (let i = 0; i < 4; i++)
      await one.inject({ method: 'GET', url: '/api/payments', headers: merchant.headers });
    expect(
      (await two.inject({ method: 'GET', url: '/api/payments', headers: merchant.headers })).statusCode,
    ).toBe(429);

    // Reads are spent; writes still have their own budget (2), on either instance.
    await created(one, merchant.headers);
    const second = await two.inject({
      method: 'POST',
      url: '/api/payments',
      headers: merchant.headers,
      payload: {
        toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
        amount: { value: '1.00', currency: 'GBP' },
        reference: 'Order 2',
      },
    });
    expectSuccess(second, 201);
    expect(second.headers['ratelimit-limit']).toBe('2');
    expect(second.headers['ratelimit-remaining']).toBe('0');
    const third = await one.inject({
      method: 'POST',
      url: '/api/payments',
      headers: merchant.headers,
      payload: {},
    });
    expect(expectFailure(third, 429).code).toBe('RATE_LIMITED');

    const other = await factories.createMerchant();
    expect(
      (await two.inject({ method: 'GET', url: '/api/payments', headers: other.headers })).statusCode,
    ).toBe(200);
  });

  it("counts every key of an organization against the organization's one budget", async () => {
    const merchant = await factories.createMerchant();
    const second = await factories.createKey(merchant.organizationId, 'read,write');
    const keys = [merchant.headers, { 'x-api-key': second.apiKey }];
    const answers = [];
    for (let i = 0; i < 6; i++) {
      answers.push(
        await (i % 2 === 0 ? one : two).inject({ method: 'GET', url: '/api/payments', headers: keys[i % 2] }),
      );
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0', '0', '0']);
    // A key made now brings no fresh budget either.
    const third = await factories.createKey(merchant.organizationId, 'read');
    const refused = await one.inject({
      method: 'GET',
      url: '/api/payments',
      headers: { 'x-api-key': third.apiKey },
    });
    expect(expectFailure(refused, 429).code).toBe('RATE_LIMITED');
  });

  it('does not count a request whose key is not proven', async () => {
    const { headers, apiKey } = await factories.createMerchant();
    const wrong = { 'x-api-key': `${apiKey.slice(0, -4)}AAAA` };
    for (let i = 0; i < 6; i++) {
      const answer = await one.inject({ method: 'GET', url: '/api/payments', headers: wrong });
      expect(answer.statusCode).toBe(401);
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
    }
    const answer = await two.inject({ method: 'GET', url: '/api/payments', headers });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['ratelimit-remaining']).toBe('3');
  });

  it('counts no request refused for a revoked key, an inactive organization or a missing permission', async () => {
    const organizationId = await factories.createOrg();
    const revoked = await factories.createKey(organizationId, 'read,write', { revoked: true });
    const readOnly = await factories.createKey(organizationId, 'read');
    const refused = [
      { method: 'GET' as const, headers: { 'x-api-key': revoked.apiKey }, status: 401 },
      { method: 'POST' as const, headers: { 'x-api-key': readOnly.apiKey }, status: 403 },
    ];
    for (let i = 0; i < 3; i++) {
      for (const { method, headers, status } of refused) {
        const answer = await one.inject({
          method,
          url: '/api/payments',
          headers,
          payload: method === 'POST' ? {} : undefined,
        });
        expect(answer.statusCode).toBe(status);
        expect(answer.headers['ratelimit-limit']).toBeUndefined();
      }
    }
    const inactive = await factories.createMerchant();
    await factories.setActive(inactive.organizationId, false);
    for (let i = 0; i < 5; i++) {
      expect(
        (await two.inject({ method: 'GET', url: '/api/payments', headers: inactive.headers })).statusCode,
      ).toBe(403);
    }
    await factories.setActive(inactive.organizationId, true);
    const answer = await one.inject({ method: 'GET', url: '/api/payments', headers: inactive.headers });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['ratelimit-remaining']).toBe('3');
    // Nothing was stored for the refused keys' organization (budgets are counted per organization).
    const counted = await orm.em
      .fork()
      .getConnection()
      .execute('select key from rate_limit_window where key like ?', [`%${organizationId}`]);
    expect(counted).toEqual([]);
  });
});

describe('per client address on the customer pages', () => {
  const session = (app: typeof one, remoteAddress: string) =>
    app.inject({
      method: 'GET',
      url: `/trpc/pages.mockBankSession?input=${encodeURIComponent(JSON.stringify({ token: 'not-a-token' }))}`,
      remoteAddress,
    });

  it('limits one address across both instances and leaves another alone', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await session(i % 2 === 0 ? one : two, '203.0.113.7'));
    // Within the budget the page's own answer (a bad link: 400); then 429.
    expect(answers.map((r) => r.statusCode)).toEqual([400, 400, 400, 429]);
    const refused = answers[3];
    if (!refused) throw new Error('unreachable');
    expect(trpcFailure(refused, 429).code).toBe('RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(answers[0]?.headers['ratelimit-remaining']).toBe('2');

    expect((await session(two, '203.0.113.8')).statusCode).toBe(400);
  });

  it('refuses a tRPC batch over the maximum size before running any call', async () => {
    const paths = Array.from({ length: 11 }, () => 'pages.mockBankSession').join(',');
    const input = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [i, { token: 'x' }]));
    const answer = await one.inject({
      method: 'GET',
      url: `/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
      remoteAddress: '203.0.113.9',
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.body).toMatch(/Batch call exceeds maximum size/);
    // No call ran, so nothing was counted for this address.
    expect(answer.headers['ratelimit-limit']).toBeUndefined();
  });
});

describe('per organization on the dashboard', () => {
  it("limits an organization's signed-in calls across its sessions and both instances, and leaves another organization alone", async () => {
    const browser = new DashboardBrowser(one, '203.0.113.20');
    const signedUp = await browser.signUp();
    // The same session through the other instance.
    const sameSession = new DashboardBrowser(two, '203.0.113.20');
    sameSession.cookie = browser.cookie;
    // Another session of the same user (signed in anew) shares the organization's budget.
    const secondSession = new DashboardBrowser(two, '203.0.113.21');
    await secondSession.signIn(signedUp.user.email, signedUp.password);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await (i % 2 === 0 ? browser : sameSession).query('overview'));
    answers.push(await secondSession.query('overview'));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    const refused = answers[3];
    if (!refused) throw new Error('unreachable');
    expect(trpcFailure(refused, 429).code).toBe('RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.headers['ratelimit-limit']).toBe('3');

    const other = new DashboardBrowser(two, '203.0.113.22');
    await other.signUp();
    expect((await other.query('overview')).statusCode).toBe(200);
  });
});

describe('organizations made by self-serve sign-up', () => {
  it('start with a tenth of the API budgets (at least 1) until an operator raises them', async () => {
    const browser = new DashboardBrowser(one, '203.0.113.30');
    const { organization } = await browser.signUp();
    const key = data<CreatedApiKey>(
      await browser.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
    );
    const headers = { 'x-api-key': key.secret };
    // The dashboard's own calls above kept their budget (3); the API's reads: a tenth of 4 -> 1.
    const answers = [];
    for (let i = 0; i < 2; i++)
      answers.push(await two.inject({ method: 'GET', url: '/api/payments', headers }));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 429]);
    expect(answers[0]?.headers['ratelimit-limit']).toBe('1');
    expect(answers[0]?.headers['ratelimit-policy']).toBe('1;w=3600');

    // The operator's org:set-limits lifts the reduction and sets its own numbers.
    const raised = await setOrganizationLimits(orm.em.fork(), organization.id, { apiReads: 6 }, rateLimits);
    expect(raised).toEqual({ organizationId: organization.id, apiReads: 6, apiWrites: 2, waits: 1_000 });
    const after = await one.inject({ method: 'GET', url: '/api/payments', headers });
    expect(after.statusCode).toBe(200);
    expect(after.headers['ratelimit-limit']).toBe('6');
    // Two reads of this window are spent (one allowed, one refused): 6 - 3.
    expect(after.headers['ratelimit-remaining']).toBe('3');
  });

  it('are limited per client address, across instances; another address still signs up', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const browser = new DashboardBrowser(i % 2 === 0 ? one : two, '203.0.113.40');
      answers.push(await browser.mutation('account.signUp', signUpInput()));
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 429]);
    const refused = answers[2];
    if (!refused) throw new Error('unreachable');
    expect(trpcFailure(refused, 429).message).toMatch(
      /Too many sign-ups from this address: at most 2 an hour/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const elsewhere = new DashboardBrowser(two, '203.0.113.41');
    expect((await elsewhere.mutation('account.signUp', signUpInput())).statusCode).toBe(200);
  });
});

const unlimited = await createInstances({
  count: 1,
  config: { rateLimits: { ...rateLimits, enabled: false } },
});

describe('RATE_LIMITS=off', () => {
  it('neither counts nor sends headers', async () => {
    const {
      apps: [app],
      factories: off,
    } = unlimited;
    if (!app) throw new Error('unreachable');
    const { headers } = await off.createMerchant();
    for (let i = 0; i < 6; i++) {
      const answer = await app.inject({ method: 'GET', url: '/api/payments', headers });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(
      (await trpcQuery(app, 'pages.mockBankSession', { token: 'x' })).headers['ratelimit-limit'],
    ).toBeUndefined();
  });
});

describe("a bank's notifications, which anyone can post", () => {
  it("refusals are counted per sending address, then 429 (no more log lines); another address, and the same address's pages, unaffected", async () => {
    const post = (address: string) =>
      one.inject({
        method: 'POST',
        url: '/api/providers/obie/event-notifications',
        headers: { 'content-type': 'application/jwt' },
        payload: 'garbage',
        remoteAddress: address,
      });
    const refusals = async () =>
      (await rateLimitRefusals.get()).values.find((sample) => sample.labels.limit === 'bank_notifications')
        ?.value ?? 0;
    const refusalsBefore = await refusals();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await post('203.0.113.70')).statusCode);
    // No obie here: each is refused (404), counted; past the budget of 3, 429 RATE_LIMITED.
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    const limited = await post('203.0.113.70');
    expect(expectFailure(limited, 429).code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post('203.0.113.71')).statusCode).toBe(404);
    // The operator sees them under their own budget's label.
    expect((await refusals()) - refusalsBefore).toBe(3);
    // Counted apart from the address's pages: a customer behind it still opens its pages.
    const page = await one.inject({
      method: 'GET',
      url: '/providers/obie/callback?state=x',
      remoteAddress: '203.0.113.70',
    });
    expect(page.statusCode).not.toBe(429);
  });
});

import { type Bank, MOCK_BANK_CATALOGUE } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { expectFailure, expectSuccess, expectValidationFailed } from './helpers/expect-envelope.ts';
import { createTestApp } from './helpers/test-app.ts';

const { app, factories } = await createTestApp();
const { headers, organizationId } = await factories.createMerchant('read');

type BankList = { banks: Bank[]; pagination: { total: number; page: number; limit: number; pages: number } };
const listBanks = async (query = '') =>
  expectSuccess<BankList>(await app.inject({ method: 'GET', url: `/api/banks${query}`, headers }));
const badQuery = async (query: string) =>
  expectValidationFailed(await app.inject({ method: 'GET', url: `/api/banks${query}`, headers }));

const gbBanks = MOCK_BANK_CATALOGUE.filter((bank) => bank.country === 'GB');

describe('GET /api/banks', () => {
  test('defaults: country GB, page 1, limit 100, ordered by name, with pagination', async () => {
    const data = await listBanks();
    expect(data.pagination).toEqual({ total: gbBanks.length, page: 1, limit: 100, pages: 1 });
    expect(data.banks.map((bank) => bank.country)).toEqual(gbBanks.map(() => 'GB'));
    const names = data.banks.map((bank) => bank.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
  });

  test('every bank has the spec fields, a served logo URL, providerSupport and recommendedProvider', async () => {
    const [bank] = (await listBanks('?limit=1')).banks;
    expect(bank).toMatchObject({
      id: expect.any(String),
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: expect.any(String),
      country: 'GB',
      supportedPaymentMethods: expect.arrayContaining([expect.any(String)]),
      active: expect.any(Boolean),
      features: {
        accountAccess: expect.any(Boolean),
        accountBalance: expect.any(Boolean),
        transactions: expect.any(Boolean),
        payments: expect.any(Boolean),
      },
      recommendedProvider: 'mock',
    });
    expect(bank?.providerSupport).toEqual([
      { provider: 'mock', supportedPaymentMethods: bank?.supportedPaymentMethods },
    ]);
    expect(bank?.logoUrl).toBe(`http://localhost:3000/bank-logos/${bank?.id}.svg`);
    const logo = await app.inject({ method: 'GET', url: new URL(bank?.logoUrl ?? '').pathname });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(logo.headers['cache-control']).toBe('public, max-age=86400');
    expect(logo.body).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  test('the catalogue covers GB, IE, DE, FR, ES and NL with at least 20 banks', async () => {
    let total = 0;
    for (const country of ['GB', 'IE', 'DE', 'FR', 'ES', 'NL']) {
      const data = await listBanks(`?country=${country}`);
      expect(data.pagination.total, country).toBeGreaterThan(0);
      total += data.pagination.total;
    }
    expect(total).toBeGreaterThanOrEqual(20);
  });

  test('filters: country (any case), provider, paymentMethod, case-insensitive search on the name', async () => {
    expect((await listBanks('?country=ie')).banks.every((bank) => bank.country === 'IE')).toBe(true);
    expect((await listBanks('?provider=mock')).pagination.total).toBe(gbBanks.length);
    // An unapproved (or unknown) provider shows nothing: banks are only visible through approved providers.
    expect((await listBanks('?provider=acme')).pagination).toEqual({
      total: 0,
      page: 1,
      limit: 100,
      pages: 0,
    });
    const instant = await listBanks('?country=DE&paymentMethod=SEPA_INSTANT');
    expect(instant.banks.length).toBeGreaterThan(0);
    expect(instant.banks.every((bank) => bank.supportedPaymentMethods.includes('SEPA_INSTANT'))).toBe(true);
    expect(instant.pagination.total).toBeLessThan((await listBanks('?country=DE')).pagination.total);
    const albion = await listBanks('?search=aLBIon');
    expect(albion.banks.map((bank) => bank.id)).toEqual(['mock-gb-albion']);
    // Unicode in the query, percent-encoded as a client would send it.
    const alpen = await listBanks(`?country=DE&search=${encodeURIComponent('übungs')}`);
    expect(alpen.banks.map((bank) => bank.id)).toEqual(['mock-de-alpen']);
    expect((await listBanks(`?search=${encodeURIComponent('银行 🏦')}`)).banks).toEqual([]);
  });

  test('pagination: page and limit split the list; a page past the end is empty', async () => {
    const first = await listBanks('?limit=2&page=1');
    const second = await listBanks('?limit=2&page=2');
    expect(first.pagination).toEqual({
      total: gbBanks.length,
      page: 1,
      limit: 2,
      pages: Math.ceil(gbBanks.length / 2),
    });
    expect(first.banks).toHaveLength(2);
    expect(second.banks[0]?.id).not.toBe(first.banks[0]?.id);
    const beyond = await listBanks('?limit=100&page=999');
    expect(beyond.banks).toEqual([]);
    expect(beyond.pagination.page).toBe(999);
  });

  test('bounds that are allowed: limit 1 and 100, 50-character provider and paymentMethod, 100-character search', async () => {
    expect((await listBanks('?limit=1')).banks).toHaveLength(1);
    expect((await listBanks('?limit=100')).pagination.limit).toBe(100);
    await listBanks(`?provider=${'p'.repeat(50)}&paymentMethod=${'M'.repeat(50)}&search=${'s'.repeat(100)}`);
  });

  test.each([
    ['?country=G', 'country'],
    ['?country=GBR', 'country'],
    [`?provider=${'p'.repeat(51)}`, 'provider'],
    [`?paymentMethod=${'M'.repeat(51)}`, 'paymentMethod'],
    [`?search=${'s'.repeat(101)}`, 'search'],
    ['?page=0', 'page'],
    ['?page=-1', 'page'],
    ['?page=1.5', 'page'],
    ['?page=abc', 'page'],
    ['?page=1e3', 'page'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=-5', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=99999999999999999999999', 'limit'],
    ['?page=1&page=2', 'page'],
    ['?country=GB&country=IE', 'country'],
    [`?search=${'x'.repeat(20_000)}`, 'search'],
  ])('%s -> 400 VALIDATION_FAILED naming %s', async (query, field) => {
    const details = await badQuery(query);
    expect(details).toEqual([{ field, message: expect.any(String) }]);
  });

  test('one details entry per problem', async () => {
    const details = await badQuery(`?country=GBR&page=0&limit=101&search=${'s'.repeat(101)}`);
    expect(details.map((detail) => detail.field).sort()).toEqual(['country', 'limit', 'page', 'search']);
  });

  test('empty values mean the default', async () => {
    expect((await listBanks('?page=&limit=&country=')).pagination).toEqual({
      total: gbBanks.length,
      page: 1,
      limit: 100,
      pages: 1,
    });
  });

  test('unknown query parameters are refused, one detail each, never silently ignored', async () => {
    expect(await badQuery('?colour=blue&country=GB')).toEqual([
      { field: 'colour', message: 'is not a known parameter' },
    ]);
    expect(await badQuery('?country[]=IE')).toEqual([
      { field: 'country[]', message: 'is not a known parameter' },
    ]);
  });
});

describe('GET /api/banks/{id}', () => {
  test('a visible bank', async () => {
    const data = expectSuccess<{ bank: Bank }>(
      await app.inject({ method: 'GET', url: '/api/banks/mock-fr-seine', headers }),
    );
    expect(data.bank).toMatchObject({ id: 'mock-fr-seine', country: 'FR' });
  });

  test('unknown id -> 404 Bank not found, no code', async () => {
    const error = expectFailure(
      await app.inject({ method: 'GET', url: '/api/banks/mock-xx-none', headers }),
      404,
    );
    expect(error).toEqual({ message: 'Bank not found' });
  });

  test('ids with odd characters are just not found', async () => {
    for (const id of ['%F0%9F%8F%A6', '..%2F..%2Fetc', "x'%20or%201=1", 'MOCK-GB-ALBION']) {
      const error = expectFailure(await app.inject({ method: 'GET', url: `/api/banks/${id}`, headers }), 404);
      expect(error.message).toBe('Bank not found');
    }
  });

  test('id longer than 100 characters -> 400 VALIDATION_FAILED on id', async () => {
    expect(await badQueryPath(`/api/banks/${'b'.repeat(101)}`)).toEqual([
      { field: 'id', message: expect.any(String) },
    ]);
    expectFailure(await app.inject({ method: 'GET', url: `/api/banks/${'b'.repeat(100)}`, headers }), 404);
  });
});

const badQueryPath = async (url: string) =>
  expectValidationFailed(await app.inject({ method: 'GET', url, headers }));

describe('GET /api/banks/providers and /api/payments/providers', () => {
  test('a new organization sees only mock', async () => {
    expect(expectSuccess(await app.inject({ method: 'GET', url: '/api/banks/providers', headers }))).toEqual({
      providers: ['mock'],
    });
    // Also guards route matching: /payments/providers must never be read as a payment id.
    expect(
      expectSuccess(await app.inject({ method: 'GET', url: '/api/payments/providers', headers })),
    ).toEqual({
      providers: [{ id: 'mock', name: 'Mock bank', supportsPayments: true }],
    });
  });

  test('an approved provider without an adapter is not offered for payments and has no banks', async () => {
    await factories.approveProvider(organizationId, 'acme_bank');
    const payment = expectSuccess<{ providers: { id: string }[] }>(
      await app.inject({ method: 'GET', url: '/api/payments/providers', headers }),
    );
    expect(payment.providers.map((provider) => provider.id)).toEqual(['mock']);
    expect(expectSuccess(await app.inject({ method: 'GET', url: '/api/banks/providers', headers }))).toEqual({
      providers: ['mock'],
    });
  });
});

describe('bank logos', () => {
  test('every catalogue bank has a logo; unknown ones are 404', async () => {
    for (const bank of MOCK_BANK_CATALOGUE) {
      const response = await app.inject({ method: 'GET', url: `/bank-logos/${bank.id}.svg` });
      expect(response.statusCode, bank.id).toBe(200);
      expect(response.body).toContain(bank.brandColor);
    }
    expect((await app.inject({ method: 'GET', url: '/bank-logos/nope.svg' })).statusCode).toBe(404);
  });
});

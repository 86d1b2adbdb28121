import { describe, expect, it } from 'vitest';
import { bankCountries, findBank, ListBanksQuery, listBanks, MOCK_BANK_CATALOGUE } from '../src/index.ts';

const context = { approvedProviders: [], baseUrl: 'http://localhost:3000' };
const list = (query: Record<string, unknown>) => listBanks(ListBanksQuery.parse(query), context);

describe('Mock bank catalogue', () => {
  it('has at least 20 banks over GB, IE, DE, FR, ES and NL with unique ids and uuids', () => {
    expect(MOCK_BANK_CATALOGUE.length).toBeGreaterThanOrEqual(20);
    expect(bankCountries(context).sort()).toEqual(['DE', 'ES', 'FR', 'GB', 'IE', 'NL']);
    expect(new Set(MOCK_BANK_CATALOGUE.map((bank) => bank.id)).size).toBe(MOCK_BANK_CATALOGUE.length);
    expect(new Set(MOCK_BANK_CATALOGUE.map((bank) => bank.uuid)).size).toBe(MOCK_BANK_CATALOGUE.length);
  });

  it('lists GB by default, ordered by name, with pagination', () => {
    const result = list({});
    expect(result.banks.every((bank) => bank.country === 'GB')).toBe(true);
    expect(result.pagination).toEqual({ total: result.banks.length, page: 1, limit: 100, pages: 1 });
    const names = result.banks.map((bank) => bank.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
    const page2 = list({ limit: '2', page: '2' });
    expect(page2.banks).toEqual(result.banks.slice(2, 4));
    expect(page2.pagination.pages).toBe(Math.ceil(result.banks.length / 2));
  });

  it('without a country, a provider that reaches no GB bank lists its own banks (GB stays the default otherwise)', () => {
    const approved = { ...context, approvedProviders: ['nextgenpsd2', 'obie'] };
    const euro = listBanks(ListBanksQuery.parse({ provider: 'nextgenpsd2' }), approved);
    expect(euro.banks.map((bank) => [bank.id, bank.country])).toEqual([['sandbox-bank-eu', 'DE']]);
    const uk = listBanks(ListBanksQuery.parse({ provider: 'obie' }), approved);
    expect(uk.banks.map((bank) => bank.id)).toEqual(['obie-sandbox-bank']);
    const mock = listBanks(ListBanksQuery.parse({ provider: 'mock' }), approved);
    expect(mock.banks.every((bank) => bank.country === 'GB')).toBe(true);
    // Asked for GB, the euro provider has none.
    expect(
      listBanks(ListBanksQuery.parse({ provider: 'nextgenpsd2', country: 'GB' }), approved).banks,
    ).toEqual([]);
  });

  it('searches names case-insensitively and filters by payment method and provider', () => {
    expect(list({ country: 'de', search: 'ALPEN' }).banks.map((bank) => bank.id)).toEqual(['mock-de-alpen']);
    expect(list({ country: 'IE', paymentMethod: 'sepa_instant' }).banks.map((bank) => bank.id)).toEqual([
      'mock-ie-liffey',
    ]);
    expect(list({ provider: 'other' }).banks).toEqual([]);
    expect(list({ provider: 'mock' }).banks.length).toBeGreaterThan(0);
  });

  it('presents logos, features, provider support and the recommended provider', () => {
    expect(findBank('mock-gb-albion', context)).toMatchObject({
      id: 'mock-gb-albion',
      logoUrl: 'http://localhost:3000/bank-logos/mock-gb-albion.svg',
      providerSupport: [{ provider: 'mock', supportedPaymentMethods: ['FASTER_PAYMENTS'] }],
      recommendedProvider: 'mock',
      features: { accountAccess: true, accountBalance: true, transactions: true, payments: true },
    });
    expect(findBank('nope', context)).toBeUndefined();
  });
});

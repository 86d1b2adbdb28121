import type { Bank, HostedSession, MockBankSession } from '../../src/api/page-types.ts';

export const bank = (id: string, name: string, country = 'GB', logoUrl?: string): Bank => ({
  id,
  uuid: `uuid-${id}`,
  name,
  displayName: null,
  country,
  ...(logoUrl ? { logoUrl } : {}),
  supportedPaymentMethods: ['domestic'],
  active: true,
  features: { accountAccess: true, accountBalance: true, transactions: true, payments: true },
  recommendedProvider: 'mock',
});

export const GB_BANKS = [
  bank('mock-gb-barclays', 'Barclays', 'GB', '/bank-logos/barclays.svg'),
  bank('mock-gb-hsbc', 'HSBC UK'),
  bank('mock-gb-lloyds', 'Lloyds Bank'),
  bank('mock-gb-monzo', 'Monzo'),
];
export const IE_BANKS = [bank('mock-ie-aib', 'AIB', 'IE'), bank('mock-ie-boi', 'Bank of Ireland', 'IE')];

export const hostedSession = (overrides: Partial<HostedSession> = {}): HostedSession => ({
  paymentId: 'pay_123',
  merchantName: 'Acme Shop',
  brand: null,
  status: 'PENDING',
  flowType: 'HOSTED_PAGES',
  amount: { value: '1234.5', currency: 'GBP' },
  payee: { accountName: 'Acme Ltd', bankName: 'Acme Bank' },
  reference: 'ORDER-42',
  bank: null,
  countries: ['GB', 'IE', 'DE'],
  defaultCountry: 'GB',
  linkExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  next: null,
  outcome: null,
  testPayment: true,
  ...overrides,
});

export const mockBankSession = (overrides: Partial<MockBankSession> = {}): MockBankSession => ({
  paymentId: 'pay_123',
  merchantName: 'Acme Shop',
  brand: null,
  status: 'AUTHORIZING',
  amount: { value: '25.00', currency: 'EUR' },
  payee: { accountName: 'Acme Ltd' },
  reference: 'ORDER-42',
  bank: null,
  scenario: { preset: 'instant', completeAfterSeconds: null, rejectReason: 'CUST' },
  linkExpiresAt: new Date(Date.now() + 1_800_000).toISOString(),
  outcome: null,
  testPayment: true,
  ...overrides,
});

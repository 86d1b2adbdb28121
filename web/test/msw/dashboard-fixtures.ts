import { type Payment, paymentEtag } from '@pis/shared';
import { PAYMENT_STATUSES } from '@pis/shared/payment-statuses';
import type {
  ApiKeyEntry,
  Overview,
  PaymentList,
  PaymentView,
  QuickStart,
  Session,
} from '../../src/dashboard/api/dashboard-api.ts';
import { trpcMutation, trpcQuery } from './trpc-handlers.ts';

export const CSRF_TOKEN = 'csrf-test-token';

export const session = (overrides: Partial<Session> = {}): Session => ({
  user: { id: 'usr_1', email: 'owner@acme.test', emailVerified: true, role: 'owner' },
  organization: { id: 'org_1', name: 'Acme Shop', active: true, approvedProviders: ['mock'] },
  csrfToken: CSRF_TOKEN,
  mode: 'test',
  ...overrides,
});

export const apiKey = (overrides: Partial<ApiKeyEntry> = {}): ApiKeyEntry => ({
  id: 'key_1',
  name: 'Checkout server',
  prefix: 'pis_ab12',
  mode: 'test',
  permissions: ['read', 'write'],
  createdAt: '2026-11-20T10:00:00.000Z',
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  state: 'active',
  ...overrides,
});

export const payment = (overrides: Partial<Payment> = {}): Payment => ({
  paymentId: 'pay_1',
  status: 'AUTHORIZING',
  isoStatus: { code: 'PDNG', name: 'Pending', description: 'Waiting for the customer' },
  provider: 'mock',
  amount: { value: '12.50', currency: 'GBP' },
  toAccount: { accountName: 'Acme Ltd', sortCode: '040004', accountNumber: '12345678' },
  reference: { reference: 'Order 42', endToEndId: 'E2E-42' },
  flowType: 'API_ONLY',
  redirectUrl: 'https://shop.test/return',
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  expiresAt: '2026-11-23T10:00:00.000Z',
  statusHistory: [
    {
      status: 'PENDING',
      isoStatus: { code: 'RCVD', name: 'Received', description: 'Received' },
      timestamp: '2026-11-22T10:00:00.000Z',
      provider: 'mock',
      details: null,
    },
    {
      status: 'AUTHORIZING',
      isoStatus: { code: 'PDNG', name: 'Pending', description: 'Waiting for the customer' },
      timestamp: '2026-11-22T10:00:01.000Z',
      provider: 'mock',
      details: null,
    },
  ],
  ...overrides,
});

export const paymentView = (overrides: Partial<PaymentView> = {}): PaymentView => {
  const view = {
    payment: payment(),
    customerLink: {
      url: 'http://localhost:3000/mock-bank/tok',
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    },
    actions: { cancel: true, approve: true, reject: true, advance: true, link: true },
    ...overrides,
  };
  return { etag: paymentEtag(view.payment), ...view };
};

export const paymentList = (payments: Payment[], total = payments.length, offset = 0): PaymentList => ({
  payments,
  total,
  limit: 20,
  offset,
});

export const overview = (overrides: Partial<Overview> = {}): Overview => ({
  organization: session().organization,
  countsByStatus: {
    ...(Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, 0])) as Overview['countsByStatus']),
    AUTHORIZING: 1,
    COMPLETED: 3,
  },
  days: 30,
  volume: [{ day: new Date().toISOString().slice(0, 10), currency: 'GBP', value: '37.50', count: 3 }],
  outcomes: {
    finished: 4,
    completed: 3,
    successRate: 0.75,
    medianSecondsToComplete: 61.2,
    topBanks: [{ bankId: 'mock-gb-albion', completed: 3 }],
    topFailureReasons: [{ code: 'AM04', count: 1 }],
  },
  ...overrides,
});

export const quickStart = (overrides: Partial<QuickStart> = {}): QuickStart => ({
  apiBaseUrl: 'http://localhost:3000/api',
  publicBaseUrl: 'http://localhost:3000',
  apiKeys: [{ id: 'key_1', name: 'Checkout server', prefix: 'pis_ab12', permissions: ['read', 'write'] }],
  approvedProviders: ['mock'],
  ...overrides,
});

/** A signed-in merchant: `session()` answers, as after sign-in. */
export const signedIn = (value: Session = session()) => trpcQuery('dashboard.account.session', () => value);

export const signedOut = () =>
  trpcQuery('dashboard.account.session', () => ({
    kind: 'UNAUTHORIZED',
    httpStatus: 401,
    message: 'Not signed in',
  }));

export { trpcMutation, trpcQuery };

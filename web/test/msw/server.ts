import { setupServer } from 'msw/node';
import { trpcQuery } from './trpc-handlers.ts';

/**
 * What New payment (and the API keys page) reads beside its own data on a test organization with nothing set (the Mock bank
 * only, no saved payees); a test that needs more adds its own handler, which is used first.
 */
const newPaymentDefaults = [
  trpcQuery('dashboard.payments.options', () => ({
    mode: 'test',
    providers: [{ code: 'mock', name: 'Mock bank', banks: [], needsBank: false }],
    unavailable: null,
    hostedPages: true,
  })),
  trpcQuery('dashboard.settings.payees', () => ({ payees: [] })),
  // The API keys page's budgets, on a service with rate limits off.
  trpcQuery('dashboard.settings.budgets', () => ({
    enabled: false,
    windowSeconds: 60,
    reduced: false,
    budgets: [],
    waitsAtOnce: 100,
  })),
];

/** One MSW server for every component test; each test adds the handlers it needs. */
export const server = setupServer(...newPaymentDefaults);

import { setupServer } from 'msw/node';
import { trpcQuery } from './trpc-handlers.ts';

/**
 * What New payment reads before its form on a test organization with nothing set (the Mock bank
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
];

/** One MSW server for every component test; each test adds the handlers it needs. */
export const server = setupServer(...newPaymentDefaults);

import { catchUp, MOCK_PROVIDER } from '@pis/shared';
import { customerLink, type LinkConfig } from '../links/customer-links.ts';
import type { PaymentProvider } from './payment-provider.ts';

/**
 * The Mock bank: no credentials, no money, no I/O. Its page is our own (/mock-bank/<token>),
 * and its status is a pure function of approval time, scenario and now (shared/mock-bank.ts),
 * which `catchUp` applies. Cancelling needs no call: the bank just stops waiting.
 */
export function createMockProvider(links: LinkConfig): PaymentProvider {
  return {
    code: MOCK_PROVIDER,
    startPayment: async (payment, now, options) => ({
      customerUrl: customerLink(links, 'mock-bank', payment.id, now, options?.linkNotAfter).url,
    }),
    readStatus: async () => catchUp,
    cancelPayment: async () => {},
    // Nothing is lost between us and the Mock bank: a start that was claimed counts as made.
    hasPayment: async () => true,
  };
}

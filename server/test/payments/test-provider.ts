import { catchUp, reject } from '@pis/shared';
import type { PaymentProvider } from '../../src/providers/payment-provider.ts';

/**
 * A provider adapter for tests: it can be taken down (every call throws) and can carry news
 * (the bank rejected the payment), so the service's handling of real providers is exercised.
 */
export function controllableProvider(code = 'flaky') {
  const state = { down: false, rejectedAtBank: false, calls: [] as string[] };
  const guard = (call: string) => {
    state.calls.push(call);
    if (state.down) throw new Error(`${code} is down (connection refused)`);
  };
  const provider: PaymentProvider = {
    code,
    startPayment: async (payment) => {
      guard('start');
      return { customerUrl: `https://bank.example/authorise/${payment.id}` };
    },
    readStatus: async () => {
      guard('status');
      return state.rejectedAtBank ? (payment, now) => reject(payment, 'AM04', now) : catchUp;
    },
    cancelPayment: async () => guard('cancel'),
    hasPayment: async () => {
      guard('has');
      return true;
    },
  };
  return { provider, state };
}

import type { LinkConfig } from '../../src/links/customer-links.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { type PaymentProvider, ProviderOutcomeUnknownError } from '../../src/providers/payment-provider.ts';

type Call = 'start' | 'cancel' | 'has';

/**
 * The Mock provider behind a gate a test controls: `hold()` makes every call that arrives wait
 * inside the provider until released, so a test can race other requests against a call in
 * flight. It records every call, and what the bank was told (per payment, the last start or
 * cancel that went through), so a test can compare the service's final state with it.
 * `outcome` makes calls fail after reaching the bank ('unknown': a timeout) or before ('down').
 */
export function blockingMockProvider(links: LinkConfig) {
  const inner = createMockProvider(links);
  const calls: { call: Call; paymentId: string }[] = [];
  const told = new Map<string, 'started' | 'cancelled'>();
  const state = { outcome: 'ok' as 'ok' | 'unknown' | 'down' };
  let gate: { entered: () => void; released: Promise<void>; release: () => void } | undefined;

  const pass = async (call: Call, paymentId: string) => {
    calls.push({ call, paymentId });
    const current = gate;
    if (current) {
      current.entered();
      await current.released;
    }
    if (state.outcome === 'down') throw new Error('connection refused');
  };
  /** After the bank acted: a timeout loses the answer, not the action. */
  const answered = () => {
    if (state.outcome === 'unknown') throw new ProviderOutcomeUnknownError('timed out after 10 s');
  };

  const provider: PaymentProvider = {
    code: inner.code,
    startPayment: async (payment, now, options) => {
      await pass('start', payment.id);
      told.set(payment.id, 'started');
      const started = await inner.startPayment(payment, now, options);
      answered();
      return started;
    },
    readStatus: (payment, now) => inner.readStatus(payment, now),
    cancelPayment: async (payment) => {
      await pass('cancel', payment.id);
      told.set(payment.id, 'cancelled');
      answered();
    },
    hasPayment: async (payment) => {
      await pass('has', payment.id);
      answered();
      return told.has(payment.id);
    },
  };

  return {
    provider,
    state,
    /** What the bank was told about this payment: nothing, a start, or (last) a cancel. */
    toldAbout: (paymentId: string) => told.get(paymentId) ?? 'nothing',
    callsFor: (paymentId: string, call?: Call) =>
      calls.filter((entry) => entry.paymentId === paymentId && (!call || entry.call === call)).length,
    /** Calls from now wait inside the provider; `entered` resolves when the first one is there. */
    hold() {
      let entered = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const open = () => {
        gate = undefined;
        release();
      };
      gate = { entered, released, release: open };
      return { entered: arrived, release: open };
    },
    /** After each test: nothing left waiting inside the provider, and calls succeed again. */
    reset() {
      gate?.release();
      state.outcome = 'ok';
    },
  };
}

// An example of app code a frontend team might own (a checkout's server side, e.g. a route
// handler or server action), written against the published package. The test next to it runs
// it against the MSW kit with no server.
import { isTerminal, type PaymentsClient } from '../../src/index.ts';

export type Order = { id: string; totalPence: number };
export type CheckoutOutcome = 'paid' | 'not-paid' | 'still-processing';

export const createCheckout = (client: PaymentsClient, returnUrl: string) => ({
  /** Starts paying for an order; returns where to send the customer's browser. */
  async startPayment(order: Order): Promise<string> {
    const created = await client.payments.create(
      {
        toAccount: { accountName: 'Acme Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
        amount: { value: (order.totalPence / 100).toFixed(2), currency: 'GBP' },
        reference: `Order ${order.id}`,
        redirectUrl: returnUrl,
      },
      // One payment per order, even if the customer double-clicks or we retry after a crash.
      { idempotencyKey: `order-${order.id}` },
    );
    if (!created.redirectUrl) throw new Error('The bank gave no link to send the customer to');
    return created.redirectUrl;
  },

  /** The customer came back: decide from the service's word, never from the URL's `status`. */
  async handleReturn(url: string, signal?: AbortSignal): Promise<CheckoutOutcome> {
    let payment = await client.payments.verifyReturn(url, { signal });
    if (!isTerminal(payment.status)) {
      payment = await client.payments
        .waitForFinalStatus(payment.paymentId, { signal, timeoutMs: 5 * 60_000 })
        .catch(() => payment);
    }
    if (!isTerminal(payment.status)) return 'still-processing';
    return payment.status === 'COMPLETED' ? 'paid' : 'not-paid';
  },
});

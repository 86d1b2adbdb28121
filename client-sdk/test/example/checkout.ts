// An example of app code a frontend team might own (a checkout's server side, e.g. a route
// handler or server action), written against the published package. The test next to it runs
// it against the MSW kit with no server.
import { isTerminal, type Payment, PaymentMismatchError, type PaymentsClient } from '../../src/index.ts';

export type Order = { id: string; totalPence: number; paymentId?: string };
export type CheckoutOutcome = 'paid' | 'not-paid' | 'still-processing';

/** `orders` stands for the shop's own database. */
export const createCheckout = (
  client: PaymentsClient,
  returnUrl: string,
  orders = new Map<string, Order>(),
) => ({
  /** Starts paying for an order; returns where to send the customer's browser. */
  async startPayment(order: Order): Promise<string> {
    const created = await client.payments.create(
      {
        toAccount: { accountName: 'Acme Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
        amount: { value: (order.totalPence / 100).toFixed(2), currency: 'GBP' },
        reference: `Order ${order.id}`,
        // Our own order id comes back on the return: that is how we find the order.
        redirectUrl: `${returnUrl}?order=${encodeURIComponent(order.id)}`,
      },
      // One payment per order, even if the customer double-clicks or we retry after a crash.
      { idempotencyKey: `order-${order.id}` },
    );
    // The payment belongs to this order: the return is checked against this id, not the URL's.
    orders.set(order.id, { ...order, paymentId: created.paymentId });
    if (!created.redirectUrl) throw new Error('The bank gave no link to send the customer to');
    return created.redirectUrl;
  },

  /** The customer came back: decide from the service's word about this order's own payment. */
  async handleReturn(url: string, signal?: AbortSignal): Promise<CheckoutOutcome> {
    const orderId = new URL(url, 'https://shop.invalid').searchParams.get('order');
    const order = orderId === null ? undefined : orders.get(orderId);
    if (!order?.paymentId) return 'not-paid';
    let payment: Payment;
    try {
      payment = await client.payments.verifyReturn(url, { expectedPaymentId: order.paymentId, signal });
    } catch (error) {
      // Another order's payment id, or a mangled URL: someone edited it. Nothing was read.
      if (error instanceof PaymentMismatchError || error instanceof TypeError) return 'not-paid';
      throw error;
    }
    if (!isTerminal(payment.status)) {
      payment = await client.payments
        .waitForFinalStatus(payment.paymentId, { signal, timeoutMs: 5 * 60_000 })
        .catch(() => payment);
    }
    if (!isTerminal(payment.status)) return 'still-processing';
    return payment.status === 'COMPLETED' ? 'paid' : 'not-paid';
  },
});

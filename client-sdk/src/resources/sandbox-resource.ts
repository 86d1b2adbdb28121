import type { RequestSender } from '../request-sender.ts';
import type { CallOptions, Payment, SandboxApproveScenario, SandboxRejectReason } from '../types.ts';
import { paymentIdSegment } from './path.ts';

/**
 * `client.sandbox`: plays the customer at the Mock bank, for tests and demos (provider `mock`
 * only, key with `write`). Not retried: a repeated decision answers 409.
 */
export class SandboxResource {
  readonly #sender: RequestSender;

  /** @internal Built by `PaymentsClient`. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /**
   * Approves a Mock bank payment waiting for the customer. `scenario` picks the timing
   * (`{ preset: 'realistic' }`, `{ completeAfterSeconds: 5 }`); default: the `mockBank` given at
   * creation, else `instant` (COMPLETED at once).
   */
  async approve(
    paymentId: string,
    scenario: SandboxApproveScenario = {},
    options: CallOptions = {},
  ): Promise<Payment> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/mock-bank/approve`,
      body: scenario,
      retrySafe: false,
      signal: options.signal,
    });
  }

  /** Rejects a Mock bank payment waiting for the customer: FAILED with `reason` (default: the creation's, else `CUST`). */
  async reject(paymentId: string, reason?: SandboxRejectReason, options: CallOptions = {}): Promise<Payment> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/mock-bank/reject`,
      body: reason === undefined ? {} : { reason },
      retrySafe: false,
      signal: options.signal,
    });
  }

  /**
   * Moves this payment's own test clock `seconds` ahead (1 to 86,400): the Mock bank timeline
   * steps that fall due apply, and the 24-hour expiry, as if the time had passed; those history
   * entries carry `simulated: true`. No other payment is affected. A finished payment answers 409
   * `PAYMENT_FINISHED`.
   */
  async advance(paymentId: string, seconds: number, options: CallOptions = {}): Promise<Payment> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/mock-bank/advance`,
      body: { seconds },
      retrySafe: false,
      signal: options.signal,
    });
  }
}

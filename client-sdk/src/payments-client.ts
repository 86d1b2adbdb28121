import { type FetchLike, RequestSender } from './request-sender.ts';
import { BanksResource } from './resources/banks-resource.ts';
import { PaymentsResource } from './resources/payments-resource.ts';
import { ProvidersResource } from './resources/providers-resource.ts';
import { SandboxResource } from './resources/sandbox-resource.ts';

/** How to reach the service. */
export interface PaymentsClientOptions {
  /** An API key from the dashboard (`x-api-key`). Keys belong on servers, never in a browser. */
  apiKey: string;
  /**
   * The service's base address, e.g. `https://payments.example.com` (paths `/api/...` are added).
   * Must be `https:`; plain `http:` only for a loopback host (`localhost`, 127.0.0.0/8, `[::1]`)
   * unless {@link allowInsecureHttp}. Requests never follow redirects, so the key goes nowhere else.
   */
  baseUrl: string;
  /**
   * Accept a plain `http:` baseUrl on a host other than loopback (a test network, a container
   * name). The API key then crosses that network unencrypted: never in production.
   */
  allowInsecureHttp?: boolean | undefined;
  /** A `fetch` to use instead of the global one (a proxy agent, a test double). */
  fetch?: FetchLike | undefined;
  /** Per-attempt time limit in ms, body included (default 30 000). A timeout counts as a network failure. */
  timeoutMs?: number | undefined;
  /**
   * Retries after the first attempt (default 2) for requests that are safe to repeat: reads,
   * `sync`, and `create` (always sent with an idempotency key). Only on no answer, 5xx or 429,
   * waiting `Retry-After` when given (up to 60 s), else exponential backoff with full jitter
   * (random 0..min(8 s, 0.5 s x 2^attempt)). `cancel` and sandbox decisions are never retried.
   */
  maxRetries?: number | undefined;
}

/**
 * Typed client of the Payment Initiation Service REST API. Works wherever a global `fetch`
 * exists: Node 20+, Bun, Deno, edge runtimes.
 *
 * ```ts
 * const client = new PaymentsClient({ apiKey: process.env.PIS_API_KEY!, baseUrl: 'https://payments.example.com' });
 * const created = await client.payments.create({ toAccount, amount: { value: '10.50', currency: 'GBP' } });
 * // store created.paymentId with the order, send the customer to created.redirectUrl; on their return:
 * const payment = await client.payments.verifyReturn(req.url, { expectedPaymentId: order.paymentId });
 * ```
 */
export class PaymentsClient {
  /** Create, read, list, sync, cancel payments; wait for the outcome; verify a return URL. */
  readonly payments: PaymentsResource;
  /** Banks customers can pay from. */
  readonly banks: BanksResource;
  /** Payment providers the organization may use. */
  readonly providers: ProvidersResource;
  /** Mock bank helpers for tests: approve or reject as the customer would. */
  readonly sandbox: SandboxResource;

  constructor(options: PaymentsClientOptions) {
    const sender = new RequestSender(options);
    this.payments = new PaymentsResource(sender);
    this.banks = new BanksResource(sender);
    this.providers = new ProvidersResource(sender);
    this.sandbox = new SandboxResource(sender);
  }
}

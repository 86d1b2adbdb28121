import type { RequestSender } from '../request-sender.ts';
import type { CallOptions, Provider } from '../types.ts';

/** `client.providers`: the payment providers the organization may use. */
export class ProvidersResource {
  readonly #sender: RequestSender;

  /** @internal Built by `PaymentsClient`. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** Providers the organization is approved for (`GET /api/payments/providers`); a new one has only `mock`. */
  async list(options: CallOptions = {}): Promise<Provider[]> {
    const data = await this.#sender.send<{ providers: Provider[] }>({
      method: 'GET',
      path: '/api/payments/providers',
      retrySafe: true,
      signal: options.signal,
    });
    return data.providers;
  }
}

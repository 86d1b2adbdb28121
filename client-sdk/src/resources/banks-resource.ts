import type { RequestSender } from '../request-sender.ts';
import type { Bank, BankList, CallOptions, ListBanksFilters } from '../types.ts';
import { bankIdSegment } from './path.ts';

/** `client.banks`: the banks customers can pay from, through the organization's providers. */
export class BanksResource {
  readonly #sender: RequestSender;

  /** @internal Built by `PaymentsClient`. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** One page of banks (`GET /api/banks`); `country` defaults to GB on the service. */
  list(filters: ListBanksFilters = {}, options: CallOptions = {}): Promise<BankList> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/banks',
      query: {
        country: filters.country,
        provider: filters.provider,
        paymentMethod: filters.paymentMethod,
        search: filters.search,
        page: filters.page,
        limit: filters.limit,
      },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** One bank by its `id` (`GET /api/banks/{id}`); 404 when the organization cannot reach it. */
  async get(bankId: string, options: CallOptions = {}): Promise<Bank> {
    const data = await this.#sender.send<{ bank: Bank }>({
      method: 'GET',
      path: `/api/banks/${bankIdSegment(bankId, 'bankId')}`,
      retrySafe: true,
      signal: options.signal,
    });
    return data.bank;
  }

  /** Provider codes whose banks the caller can see (`GET /api/banks/providers`). */
  async providers(options: CallOptions = {}): Promise<string[]> {
    const data = await this.#sender.send<{ providers: string[] }>({
      method: 'GET',
      path: '/api/banks/providers',
      retrySafe: true,
      signal: options.signal,
    });
    return data.providers;
  }
}

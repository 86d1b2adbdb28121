import type { PaymentProvider } from './payment-provider.ts';

/** The adapters this process can use, by provider code. */
export interface ProviderRegistry {
  get(code: string): PaymentProvider | undefined;
  /** Codes with an adapter: an approved provider outside this list is "not configured". */
  codes(): string[];
}

export function createProviderRegistry(providers: readonly PaymentProvider[]): ProviderRegistry {
  const byCode = new Map(providers.map((provider) => [provider.code, provider]));
  if (byCode.size !== providers.length) throw new Error('Two payment providers share a code');
  return { get: (code) => byCode.get(code), codes: () => [...byCode.keys()] };
}

import type { LinkConfig } from '../links/customer-links.ts';
import { instrumentProviders } from '../observability/provider-metrics.ts';
import { createMockProvider } from './mock-provider.ts';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry.ts';

/** The providers a normal process serves. A real provider is one more adapter in this list. */
export function defaultProviderRegistry(links: LinkConfig): ProviderRegistry {
  // Every call timed into pis_provider_call_duration_seconds (observability/provider-metrics.ts).
  return instrumentProviders(createProviderRegistry([createMockProvider(links)]));
}

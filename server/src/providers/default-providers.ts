import type { LinkConfig } from '../links/customer-links.ts';
import { createMockProvider } from './mock-provider.ts';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry.ts';

/** The providers a normal process serves. A real provider is one more adapter in this list. */
export function defaultProviderRegistry(links: LinkConfig): ProviderRegistry {
  return createProviderRegistry([createMockProvider(links)]);
}

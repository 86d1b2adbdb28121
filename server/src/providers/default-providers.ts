import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { LinkConfig } from '../links/customer-links.ts';
import { type Logger, silentLogger } from '../logger.ts';
import { instrumentProviders } from '../observability/provider-metrics.ts';
import { createMockProvider } from './mock-provider.ts';
import type { PaymentProvider } from './payment-provider.ts';
import { createProviderRegistry, type ProviderRegistry } from './provider-registry.ts';

/**
 * The providers a normal process serves. A real provider is one more adapter in this list, when
 * at least one of its bank connections is configured: `obie` (UK Open Banking), `nextgenpsd2`
 * (Berlin Group). Their modules (and their HTTP, OAuth and JOSE libraries: ~15 MB resident) are
 * loaded only then.
 */
export async function defaultProviderRegistry(
  config: LinkConfig & Partial<Pick<Config, 'obieConnections' | 'nextgenpsd2Connections'>>,
  orm?: Orm,
  logger: Logger = silentLogger(),
): Promise<ProviderRegistry> {
  const providers: PaymentProvider[] = [createMockProvider(config)];
  if (orm && config.obieConnections && config.obieConnections.length > 0) {
    const { createObieProvider } = await import('./obie/obie-provider.ts');
    providers.push(createObieProvider(config.obieConnections, config, orm, logger));
  }
  if (orm && config.nextgenpsd2Connections && config.nextgenpsd2Connections.length > 0) {
    const { createNextgenpsd2Provider } = await import('./nextgenpsd2/nextgenpsd2-provider.ts');
    providers.push(
      createNextgenpsd2Provider(config.nextgenpsd2Connections, config, orm, logger, config.publicBaseUrl),
    );
  }
  return instrumented(providers);
}

/** Only the Mock bank (tests and tools that have no database to keep a real provider's rows in). */
export const mockProviderRegistry = (config: LinkConfig): ProviderRegistry =>
  instrumented([createMockProvider(config)]);

// Every call timed into pis_provider_call_duration_seconds (observability/provider-metrics.ts).
const instrumented = (providers: PaymentProvider[]) => instrumentProviders(createProviderRegistry(providers));

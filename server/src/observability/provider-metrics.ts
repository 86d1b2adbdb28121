import { SpanKind } from '@opentelemetry/api';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { ProviderOutcomeUnknownError } from '../providers/payment-provider.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { knownProvider, providerCallDuration } from './metrics.ts';
import { inSpan } from './tracing.ts';

const OPERATIONS = ['startPayment', 'readStatus', 'cancelPayment', 'hasPayment'] as const;

/**
 * The same registry whose adapters time every call into `pis_provider_call_duration_seconds`
 * (provider, operation, outcome: ok, error, or unknown when the call may have reached the bank).
 * Adapters and callers stay as they are.
 */
export function instrumentProviders(registry: ProviderRegistry): ProviderRegistry {
  const wrapped = new Map<string, PaymentProvider>();
  for (const code of registry.codes()) {
    const provider = registry.get(code);
    if (!provider) continue;
    knownProvider(code);
    wrapped.set(code, instrument(provider));
  }
  return { get: (code) => wrapped.get(code), codes: () => registry.codes() };
}

function instrument(provider: PaymentProvider): PaymentProvider {
  const timed =
    <Args extends unknown[], Result>(
      operation: (typeof OPERATIONS)[number],
      call: (...args: Args) => Promise<Result>,
    ) =>
    (...args: Args): Promise<Result> =>
      inSpan(
        `provider ${provider.code} ${operation}`,
        { 'pis.provider': provider.code, 'pis.provider.operation': operation },
        async () => {
          const end = providerCallDuration.startTimer({ provider: provider.code, operation });
          try {
            const result = await call(...args);
            end({ outcome: 'ok' });
            return result;
          } catch (error) {
            end({ outcome: error instanceof ProviderOutcomeUnknownError ? 'unknown' : 'error' });
            throw error;
          }
        },
        { kind: SpanKind.CLIENT },
      );
  // The adapter's own members beyond the interface (obie's callback and notification handlers)
  // stay reachable through the prototype: only the four calls are replaced.
  return Object.assign(Object.create(provider) as PaymentProvider, {
    startPayment: timed('startPayment', provider.startPayment.bind(provider)),
    readStatus: timed('readStatus', provider.readStatus.bind(provider)),
    cancelPayment: timed('cancelPayment', provider.cancelPayment.bind(provider)),
    hasPayment: timed('hasPayment', provider.hasPayment.bind(provider)),
  });
}

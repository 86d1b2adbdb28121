import type { Actor, PaymentMode } from '@pis/shared';
import { prefixOf } from '../auth/api-key-secret.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import type { PaymentScheduler } from './payment-scheduler.ts';

/** What every payments operation runs with; routers and the worker build it from their context. */
export interface PaymentsDeps {
  /** Any entity manager; each operation works in its own fork. */
  em: EntityManager;
  clock: Clock;
  config: Pick<
    Config,
    'publicBaseUrl' | 'linkSigningSecret' | 'previousLinkSigningSecret' | 'hostedPagesEnabled'
  >;
  providers: ProviderRegistry;
  scheduler: PaymentScheduler;
  logger: Logger;
}

/** Who asks, for merchant operations: everything is scoped to this organization. */
export interface PaymentsCaller {
  organizationId: string;
  /** Always contains `mock`. */
  approvedProviders: readonly string[];
  /** Who acts, named on the history entries the call makes (an API key, a dashboard member). */
  actor?: Actor;
  /** The API key's mode: it sees only that mode's payments. Test when absent (the dashboard's). */
  mode?: PaymentMode | undefined;
  /**
   * The organization's allowed return origins, when the caller's proof read them already (the
   * API key lookup: no round trip of the create's own); read from the organization when absent.
   */
  allowedReturnOrigins?: readonly string[] | undefined;
}

export const modeOf = (caller: Pick<PaymentsCaller, 'mode'>): PaymentMode => caller.mode ?? 'test';

/** What a request's context (trpc/trpc.ts `Context`) holds that payments operations run with. */
export interface PaymentsDepsSource {
  em: EntityManager;
  clock: Clock;
  config: PaymentsDeps['config'];
  log: Logger;
  services: Pick<PaymentsDeps, 'providers' | 'scheduler'>;
}

/** The payments domain's dependencies, from a request's context. */
export const paymentsDeps = (ctx: PaymentsDepsSource): PaymentsDeps => ({
  em: ctx.em,
  clock: ctx.clock,
  config: ctx.config,
  providers: ctx.services.providers,
  scheduler: ctx.services.scheduler,
  logger: ctx.log,
});

/**
 * The API key's caller, named on the history entries its call makes by the key's non-secret
 * prefix (read from the header the key was proven with: no lookup).
 */
export const keyCaller = (ctx: {
  caller: PaymentsCaller;
  apiKeyHeader: string | string[] | undefined;
}): PaymentsCaller => {
  const name = typeof ctx.apiKeyHeader === 'string' ? prefixOf(ctx.apiKeyHeader) : undefined;
  return name ? { ...ctx.caller, actor: { type: 'api_key', name } } : ctx.caller;
};

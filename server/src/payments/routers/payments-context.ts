import { type Payment, paymentEtag } from '@pis/shared';
import { prefixOf } from '../../auth/api-key-secret.ts';
import type { AskedWait } from '../../http/live-read.ts';
import type { BudgetSettings } from '../../rate-limits/organization-budgets.ts';
import type { Context } from '../../trpc/trpc.ts';
import type { PaymentsCaller, PaymentsDeps } from '../payments-deps.ts';
import { honoursWait, type WaitingRead, withinWaitAllowance } from '../read-payment.ts';

/** The payments domain's dependencies, from a request's context. */
export const paymentsDeps = (ctx: Context): PaymentsDeps => ({
  em: ctx.em,
  clock: ctx.clock,
  config: ctx.config,
  providers: ctx.services.providers,
  scheduler: ctx.services.scheduler,
  logger: ctx.log,
});

/**
 * The request's waiting-read headers (or, for the dashboard, what its input asks), with this
 * process's waiters (see read-payment.ts), within the caller's organization's allowance of waits.
 */
export const waitingRead = (
  ctx: Context,
  caller: { organizationId: string; budgets: BudgetSettings },
  asked?: AskedWait,
): WaitingRead =>
  withinWaitAllowance(
    { waiters: ctx.services.waiters, ...ctx.liveRead(asked) },
    caller,
    ctx.config.rateLimits,
  );

/**
 * What a read of `payment` answers besides its body: its ETag, and `Preference-Applied` when the
 * wait was honoured (the capped value), which is how a client learns this server waits.
 */
export function answerLiveRead(ctx: Context, payment: Payment, wait: WaitingRead): Payment {
  ctx.setHeader('etag', paymentEtag(payment));
  if (honoursWait(wait)) ctx.setHeader('preference-applied', `wait=${wait.waitSeconds}`);
  return payment;
}

/**
 * The API key's caller, named on the history entries its call makes by the key's non-secret
 * prefix (read from the header the key was proven with: no lookup).
 */
export const keyCaller = (ctx: {
  caller: PaymentsCaller;
  apiKeyHeader: Context['apiKeyHeader'];
}): PaymentsCaller => {
  const name = typeof ctx.apiKeyHeader === 'string' ? prefixOf(ctx.apiKeyHeader) : undefined;
  return name ? { ...ctx.caller, actor: { type: 'api_key', name } } : ctx.caller;
};

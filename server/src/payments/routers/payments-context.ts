import { type Payment, paymentEtag } from '@pis/shared';
import type { Context } from '../../context.ts';
import type { AskedWait } from '../../http/live-read.ts';
import type { BudgetSettings } from '../../rate-limits/organization-budgets.ts';
import type { PaymentsDeps } from '../payments-deps.ts';
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

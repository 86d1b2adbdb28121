import type { Context } from '../../trpc/context.ts';
import type { PaymentsDeps } from '../payments-deps.ts';

/** The payments domain's dependencies, from a request's context. */
export const paymentsDeps = (ctx: Context): PaymentsDeps => ({
  em: ctx.em,
  clock: ctx.clock,
  config: ctx.config,
  providers: ctx.services.providers,
  scheduler: ctx.services.scheduler,
  logger: ctx.log,
});

import { Payment, PaymentIdInput } from '@pis/shared';
import { readProcedure } from '../../../trpc/procedures.ts';
import { preloadPayment } from '../../load-payment.ts';
import { getPayment } from '../../read-payment.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';
import { answerLiveRead, paymentsDeps, waitingRead } from '../payments-context.ts';

export const getPaymentProcedure = readProcedure
  .meta({
    // One round trip: the payment is read with the API key (the read every poll makes).
    preload: preloadPayment,
    openapi: {
      method: 'GET',
      path: '/payments/{paymentId}',
      tags: ['Payments'],
      summary: 'Get a payment',
      description:
        'The payment with its full statusHistory, refreshed first (steps that became due, and the ' +
        "provider's news; a provider failure during this refresh is not reported). The read to poll.",
      errorResponses: paymentErrorResponses(401, 403, 404),
    },
  })
  .input(PaymentIdInput)
  .output(Payment)
  .query(async ({ ctx, input }) => {
    const wait = waitingRead(ctx);
    const payment = await getPayment(paymentsDeps(ctx), ctx.caller, input.paymentId, ctx.preloaded, wait);
    return answerLiveRead(ctx, payment, wait);
  });

import { Payment, PaymentIdInput } from '@pis/shared';
import { writeProcedure } from '../../../trpc/procedures.ts';
import { cancelPayment } from '../../cancel-payment.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';
import { paymentsDeps } from '../payments-context.ts';

export const cancelPaymentProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/cancel',
      tags: ['Payments'],
      summary: 'Cancel a payment',
      description:
        'Cancels an unfinished payment: CANCELLED (ISO CANC, reason CUST). A payment that is already ' +
        'COMPLETED, FAILED, CANCELLED or EXPIRED answers 409 PAYMENT_NOT_CANCELLABLE.',
      errorResponses: paymentErrorResponses(401, 403, 404, [409, 'PAYMENT_NOT_CANCELLABLE'], 502, [
        503,
        'PROVIDER_NOT_CONFIGURED',
      ]),
    },
  })
  .input(PaymentIdInput)
  .output(Payment)
  .mutation(({ ctx, input }) => cancelPayment(paymentsDeps(ctx), ctx.caller, input.paymentId));

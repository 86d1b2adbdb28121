import { Payment, PaymentIdInput } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { keyCaller, paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { cancelPayment } from '../../cancel-payment.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

export const cancelPaymentProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/cancel',
      tags: ['Payments'],
      summary: 'Cancel a payment',
      description:
        'Cancels an unfinished payment: CANCELLED (ISO CANC, reason CUST). A payment that is already ' +
        'COMPLETED, FAILED, CANCELLED or EXPIRED answers 409 PAYMENT_NOT_CANCELLABLE. While the ' +
        'payment is being sent to its bank (or cancelled there) by another request, 409 ' +
        'PROVIDER_CALL_IN_PROGRESS: retry in a few seconds.',
    },
    errors: paymentErrorResponses(
      401,
      403,
      404,
      [
        409,
        errorRow(
          'PAYMENT_NOT_CANCELLABLE or PROVIDER_CALL_IN_PROGRESS',
          'PAYMENT_NOT_CANCELLABLE',
          'PROVIDER_CALL_IN_PROGRESS',
        ),
      ],
      502,
      [503, errorRow('PROVIDER_NOT_CONFIGURED', 'PROVIDER_NOT_CONFIGURED')],
    ),
  })
  .input(PaymentIdInput)
  .output(Payment)
  .mutation(({ ctx, input }) => cancelPayment(paymentsDeps(ctx), keyCaller(ctx), input.paymentId));

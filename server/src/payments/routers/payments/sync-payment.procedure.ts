import { Payment, PaymentIdInput } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { readProcedure } from '../../../trpc/trpc.ts';
import { syncPayment } from '../../read-payment.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

export const syncPaymentProcedure = readProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/sync',
      tags: ['Payments'],
      summary: 'Refresh a payment from its provider now',
      description:
        'Asks the provider for the latest status and returns the updated payment. Unlike GET, a ' +
        'provider failure is reported: 502 PROVIDER_UNAVAILABLE (the payment is unchanged; retry ' +
        'later). Finished payments, and hosted payments still waiting for a bank, are returned as they are.',
    },
    errors: paymentErrorResponses(401, 403, 404, 502, [
      503,
      errorRow('PROVIDER_NOT_CONFIGURED', 'PROVIDER_NOT_CONFIGURED'),
    ]),
  })
  .input(PaymentIdInput)
  .output(Payment)
  .mutation(({ ctx, input }) => syncPayment(paymentsDeps(ctx), ctx.caller, input.paymentId));

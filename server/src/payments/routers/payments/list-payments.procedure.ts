import { ListPaymentsQuery, PaymentList } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { readProcedure } from '../../../trpc/trpc.ts';
import { listPayments } from '../../list-payments.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

export const listPaymentsProcedure = readProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/payments',
      tags: ['Payments'],
      summary: 'List payments',
      description:
        "The organization's payments, newest first (ties broken by id, so pages never overlap), each " +
        'with its statusHistory. `total` counts every page.',
    },
    errors: paymentErrorResponses(400, 401, 403),
  })
  .input(ListPaymentsQuery)
  .output(PaymentList)
  .query(({ ctx, input }) => listPayments(paymentsDeps(ctx), ctx.caller, input));

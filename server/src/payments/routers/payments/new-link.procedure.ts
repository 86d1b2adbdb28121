import { NewCustomerLink, PaymentIdInput } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { newCustomerLink } from '../../new-customer-link.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

export const newLinkProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/link',
      tags: ['Payments'],
      summary: 'Send the customer a new link',
      description:
        'For an unfinished payment whose customer lost the link or let it expire: a fresh link to the ' +
        'page the payment started with (the payment page for HOSTED_PAGES and EMBEDDED_HOSTED_PAGES: ' +
        'valid 1 hour; the Mock bank for a mock API_ONLY payment, the bank sign-in link for an obie ' +
        'API_ONLY payment: 30 minutes). Earlier links keep ' +
        'their own expiry; the payment does not change. A payment that is already COMPLETED, FAILED, ' +
        'CANCELLED or EXPIRED answers 409 PAYMENT_FINISHED; one whose link only its bank can issue ' +
        '(API_ONLY with a provider other than mock and obie) answers 409 LINK_NOT_RENEWABLE.',
    },
    successStatus: 201,
    errors: paymentErrorResponses(401, 403, 404, [
      409,
      errorRow('PAYMENT_FINISHED or LINK_NOT_RENEWABLE', 'PAYMENT_FINISHED', 'LINK_NOT_RENEWABLE'),
    ]),
  })
  .input(PaymentIdInput)
  .output(NewCustomerLink)
  .mutation(({ ctx, input }) => newCustomerLink(paymentsDeps(ctx), ctx.caller, input.paymentId));

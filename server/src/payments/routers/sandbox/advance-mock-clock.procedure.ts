import { Payment, SandboxAdvanceRequest } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { sandboxAdvance } from '../../sandbox.ts';
import { MOCK_BANK_ONLY_400, paymentErrorResponses } from '../payment-error-responses.ts';

export const advanceMockClockProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/mock-bank/advance',
      tags: ['Sandbox'],
      summary: "Advance a Mock bank payment's test clock (test helper)",
      description:
        "Moves this payment's own clock `seconds` ahead (1 to 86,400), as if the time had passed: the " +
        'Mock bank timeline steps that fall due apply, and so does the 24-hour expiry of a payment nobody ' +
        'approved. Entries made this way carry `simulated: true` and their time on the payment’s clock, ' +
        'which stays ahead from then on; no other payment is affected. Answers the payment. Mock provider ' +
        'only (else 400 MOCK_BANK_ONLY); a finished payment is 409 PAYMENT_FINISHED.',
    },
    errors: paymentErrorResponses([400, MOCK_BANK_ONLY_400], 401, 403, 404, [
      409,
      errorRow(
        'PAYMENT_FINISHED: COMPLETED, FAILED, CANCELLED or EXPIRED, nothing is left to happen',
        'PAYMENT_FINISHED',
      ),
    ]),
  })
  .input(SandboxAdvanceRequest)
  .output(Payment)
  .mutation(({ ctx, input: { paymentId, seconds } }) =>
    sandboxAdvance(paymentsDeps(ctx), ctx.caller, paymentId, seconds),
  );

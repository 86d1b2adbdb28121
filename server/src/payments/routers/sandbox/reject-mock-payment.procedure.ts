import { Payment, SandboxRejectRequest } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { keyCaller, paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { sandboxReject } from '../../sandbox.ts';
import { MOCK_BANK_ONLY_400, paymentErrorResponses } from '../payment-error-responses.ts';

export const rejectMockPaymentProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/mock-bank/reject',
      tags: ['Sandbox'],
      summary: 'Reject a Mock bank payment (test helper)',
      description:
        'Plays the customer rejecting at the Mock bank: FAILED (ISO RJCT) with `reason`, else the ' +
        "request's `mockBank.rejectReason`, else CUST. Same rules as approve.",
    },
    errors: paymentErrorResponses([400, MOCK_BANK_ONLY_400], 401, 403, 404, [
      409,
      errorRow(
        'BANK_NOT_CHOSEN, PAYMENT_ALREADY_DECIDED or PROVIDER_CALL_IN_PROGRESS (a cancel is at the bank: retry shortly)',
        'BANK_NOT_CHOSEN',
        'PAYMENT_ALREADY_DECIDED',
        'PROVIDER_CALL_IN_PROGRESS',
      ),
    ]),
  })
  .input(SandboxRejectRequest)
  .output(Payment)
  .mutation(({ ctx, input: { paymentId, ...body } }) =>
    sandboxReject(paymentsDeps(ctx), keyCaller(ctx), paymentId, body),
  );

import { Payment, SandboxApproveRequest } from '@pis/shared';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { keyCaller, paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { sandboxApprove } from '../../sandbox.ts';
import { MOCK_BANK_ONLY_400, paymentErrorResponses } from '../payment-error-responses.ts';

export const approveMockPaymentProcedure = writeProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/payments/{paymentId}/mock-bank/approve',
      tags: ['Sandbox'],
      summary: 'Approve a Mock bank payment (test helper)',
      description:
        'Plays the customer approving at the Mock bank, for automated tests without a browser. Timing: ' +
        "`preset` or `completeAfterSeconds` if given, else the request's `mockBank`, else instant. " +
        'Mock provider only (else 400 MOCK_BANK_ONLY). A hosted payment whose customer has not chosen a ' +
        'bank yet is 409 BANK_NOT_CHOSEN; a decided one 409 PAYMENT_ALREADY_DECIDED; one whose cancel is ' +
        'still at the bank 409 PROVIDER_CALL_IN_PROGRESS.',
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
  .input(SandboxApproveRequest)
  .output(Payment)
  .mutation(({ ctx, input: { paymentId, ...timing } }) =>
    sandboxApprove(paymentsDeps(ctx), keyCaller(ctx), paymentId, timing),
  );

import { CreatedPayment, CreatePaymentInput, IdempotencyKeyValue, parseIdempotencyKey } from '@pis/shared';
import { z } from 'zod';
import { errorRow } from '../../../catalogue/openapi-errors.ts';
import { keyCaller, paymentsDeps } from '../../../payments/payments-deps.ts';
import { writeProcedure } from '../../../trpc/trpc.ts';
import { createPayment } from '../../create-payment.ts';
import {
  CREATE_PAYMENT_400,
  PROVIDER_NOT_APPROVED_403,
  paymentErrorResponses,
} from '../payment-error-responses.ts';

export const createPaymentProcedure = writeProcedure
  .meta({
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/payments',
      tags: ['Payments'],
      summary: 'Create a payment',
      description:
        'Creates a payment and answers the one `redirectUrl` to send the customer to (a signed link: ' +
        'the Mock bank page lasts 30 minutes, the hosted page 1 hour). API_ONLY payments go to the ' +
        'provider at once (AUTHORIZING); hosted flows stay PENDING until the customer chooses a bank. ' +
        'Unfinished payments expire 24 hours after creation. `redirectUrl` must not carry user ' +
        "information nor point at this service's own pages, and must be on the organization's " +
        'allowed return origins when it has set any (400 VALIDATION_FAILED).',
      requestHeaders: z.object({
        'idempotency-key': IdempotencyKeyValue.optional().meta({
          description:
            'Makes retries safe: the same key with the same body within 24 hours answers the original ' +
            '201 and creates nothing; the same key with another body is 409 IDEMPOTENCY_KEY_REUSED; ' +
            'a retry while the first request is still running is 409 IDEMPOTENCY_KEY_IN_PROGRESS (retry shortly). ' +
            'Keys are per organization; at most 255 printable ASCII characters (a UUID is ideal).',
          example: '6f1c2a52-3f0e-4a6b-9d55-0c1b2e6f8a90',
        }),
      }),
    },
    errors: paymentErrorResponses(
      [400, CREATE_PAYMENT_400],
      401,
      [403, PROVIDER_NOT_APPROVED_403],
      [
        409,
        errorRow(
          'IDEMPOTENCY_KEY_REUSED or IDEMPOTENCY_KEY_IN_PROGRESS',
          'IDEMPOTENCY_KEY_REUSED',
          'IDEMPOTENCY_KEY_IN_PROGRESS',
        ),
      ],
      502,
      503,
    ),
  })
  .input(CreatePaymentInput)
  .output(CreatedPayment)
  .mutation(({ ctx, input }) =>
    createPayment(paymentsDeps(ctx), keyCaller(ctx), input, parseIdempotencyKey(ctx.idempotencyKeyHeader)),
  );

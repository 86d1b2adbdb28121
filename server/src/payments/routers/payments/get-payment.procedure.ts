import { Payment, PaymentIdInput, WaitingReadRequestHeaders, WaitingReadResponseHeaders } from '@pis/shared';
import { JsonText, jsonTextOf } from '../../../http/json-text.ts';
import { answerLiveRead, waitingRead } from '../../../http/live-read.ts';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { readProcedure } from '../../../trpc/trpc.ts';
import { preloadPayment } from '../../load-payment.ts';
import { getPaymentAnswer } from '../../read-payment.ts';
import { paymentErrorResponses } from '../payment-error-responses.ts';

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
        "provider's news; a provider failure during this refresh is not reported). The read to poll.\n\n" +
        'To learn of a change the moment it happens, send the `ETag` of your last read in `If-None-Match` ' +
        'with `Prefer: wait=N` (N <= 60): the answer is held until the payment changes or N seconds pass, ' +
        'then it is the payment as it is (200 either way; the same ETag when nothing changed). ' +
        '`Preference-Applied` says the wait was honoured. One request against the rate limit, however long it waits.',
      requestHeaders: WaitingReadRequestHeaders,
      responseHeaders: WaitingReadResponseHeaders,
    },
    errors: paymentErrorResponses(401, 403, 404),
  })
  .input(PaymentIdInput)
  .output(jsonTextOf(Payment))
  .query(async ({ ctx, input }) => {
    const wait = waitingRead(ctx, ctx.caller);
    const answer = await getPaymentAnswer(
      paymentsDeps(ctx),
      ctx.caller,
      input.paymentId,
      ctx.preloaded,
      wait,
    );
    answerLiveRead(ctx, answer.etag, wait);
    return new JsonText<Payment>(answer.text);
  });

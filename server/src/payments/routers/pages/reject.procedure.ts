import { DecisionResult, RejectInput } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { rejectOnPage } from '../../customer-pages/mock-bank-page.ts';

export const rejectProcedure = pageProcedure
  .input(RejectInput)
  .output(DecisionResult)
  .mutation(({ ctx, input }) => rejectOnPage(paymentsDeps(ctx), input.token, input.reason));

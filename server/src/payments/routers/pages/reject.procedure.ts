import { DecisionResult, RejectInput } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { rejectOnPage } from '../../customer-pages/mock-bank-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const rejectProcedure = pageProcedure
  .input(RejectInput)
  .output(DecisionResult)
  .mutation(({ ctx, input }) => rejectOnPage(paymentsDeps(ctx), input.token, input.reason));

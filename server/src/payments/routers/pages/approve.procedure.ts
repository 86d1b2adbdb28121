import { ApproveInput, DecisionResult } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { approveOnPage } from '../../customer-pages/mock-bank-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const approveProcedure = pageProcedure
  .input(ApproveInput)
  .output(DecisionResult)
  .mutation(({ ctx, input }) => approveOnPage(paymentsDeps(ctx), input.token, input.scenario));

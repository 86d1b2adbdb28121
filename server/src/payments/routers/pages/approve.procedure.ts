import { ApproveInput, DecisionResult } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { approveOnPage } from '../../customer-pages/mock-bank-page.ts';

export const approveProcedure = pageProcedure
  .input(ApproveInput)
  .output(DecisionResult)
  .mutation(({ ctx, input }) => approveOnPage(paymentsDeps(ctx), input.token, input.scenario));

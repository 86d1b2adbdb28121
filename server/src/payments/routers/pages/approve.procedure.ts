import { ApproveInput, DecisionResult } from '@pis/shared';
import { publicProcedure } from '../../../trpc/trpc.ts';
import { approveOnPage } from '../../customer-pages/mock-bank-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const approveProcedure = publicProcedure
  .input(ApproveInput)
  .output(DecisionResult)
  .mutation(({ ctx, input }) => approveOnPage(paymentsDeps(ctx), input.token, input.scenario));

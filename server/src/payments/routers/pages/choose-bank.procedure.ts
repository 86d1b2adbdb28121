import { ChooseBankInput, ChooseBankResult } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { chooseBank } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const chooseBankProcedure = pageProcedure
  .input(ChooseBankInput)
  .output(ChooseBankResult)
  .mutation(({ ctx, input }) => chooseBank(paymentsDeps(ctx), input.token, input.bankId));

import { ChooseBankInput, ChooseBankResult } from '@pis/shared';
import { publicProcedure } from '../../../trpc/trpc.ts';
import { chooseBank } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const chooseBankProcedure = publicProcedure
  .input(ChooseBankInput)
  .output(ChooseBankResult)
  .mutation(({ ctx, input }) => chooseBank(paymentsDeps(ctx), input.token, input.bankId));

import { ChooseBankInput, ChooseBankResult } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { chooseBank } from '../../customer-pages/hosted-page.ts';

export const chooseBankProcedure = pageProcedure
  .input(ChooseBankInput)
  .output(ChooseBankResult)
  .mutation(({ ctx, input }) => chooseBank(paymentsDeps(ctx), input.token, input.bankId, ctx.clientIp()));

import { HostedBanks, HostedBanksInput } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { hostedBanks } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const hostedBanksProcedure = pageProcedure
  .input(HostedBanksInput)
  .output(HostedBanks)
  .query(({ ctx, input: { token, ...filters } }) => hostedBanks(paymentsDeps(ctx), token, filters));

import { HostedBanks, HostedBanksInput } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { hostedBanks } from '../../customer-pages/hosted-page.ts';

export const hostedBanksProcedure = pageProcedure
  .input(HostedBanksInput)
  .output(HostedBanks)
  .query(({ ctx, input: { token, ...filters } }) => hostedBanks(paymentsDeps(ctx), token, filters));

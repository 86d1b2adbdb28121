import { HostedBanks, HostedBanksInput } from '@pis/shared';
import { publicProcedure } from '../../../trpc/trpc.ts';
import { hostedBanks } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const hostedBanksProcedure = publicProcedure
  .input(HostedBanksInput)
  .output(HostedBanks)
  .query(({ ctx, input: { token, ...filters } }) => hostedBanks(paymentsDeps(ctx), token, filters));

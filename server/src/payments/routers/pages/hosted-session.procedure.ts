import { HostedSession, LinkToken } from '@pis/shared';
import { publicProcedure } from '../../../trpc/trpc.ts';
import { hostedSession } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const hostedSessionProcedure = publicProcedure
  .input(LinkToken)
  .output(HostedSession)
  .query(({ ctx, input }) => hostedSession(paymentsDeps(ctx), input.token));

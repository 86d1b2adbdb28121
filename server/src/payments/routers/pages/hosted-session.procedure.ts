import { HostedSession, LinkToken } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { hostedSession } from '../../customer-pages/hosted-page.ts';

export const hostedSessionProcedure = pageProcedure
  .input(LinkToken)
  .output(HostedSession)
  .query(({ ctx, input }) => hostedSession(paymentsDeps(ctx), input.token));

import { HostedSession, LinkToken } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { hostedSession } from '../../customer-pages/hosted-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const hostedSessionProcedure = pageProcedure
  .input(LinkToken)
  .output(HostedSession)
  .query(({ ctx, input }) => hostedSession(paymentsDeps(ctx), input.token));

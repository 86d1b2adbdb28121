import { LinkToken, MockBankSession } from '@pis/shared';
import { publicProcedure } from '../../../trpc/trpc.ts';
import { mockBankSession } from '../../customer-pages/mock-bank-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const mockBankSessionProcedure = publicProcedure
  .input(LinkToken)
  .output(MockBankSession)
  .query(({ ctx, input }) => mockBankSession(paymentsDeps(ctx), input.token));

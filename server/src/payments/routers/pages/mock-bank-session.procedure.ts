import { LinkToken, MockBankSession } from '@pis/shared';
import { pageProcedure } from '../../../trpc/procedures.ts';
import { mockBankSession } from '../../customer-pages/mock-bank-page.ts';
import { paymentsDeps } from '../payments-context.ts';

export const mockBankSessionProcedure = pageProcedure
  .input(LinkToken)
  .output(MockBankSession)
  .query(({ ctx, input }) => mockBankSession(paymentsDeps(ctx), input.token));

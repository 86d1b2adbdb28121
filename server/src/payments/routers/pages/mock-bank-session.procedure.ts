import { LinkToken, MockBankSession } from '@pis/shared';
import { paymentsDeps } from '../../../payments/payments-deps.ts';
import { pageProcedure } from '../../../trpc/trpc.ts';
import { mockBankSession } from '../../customer-pages/mock-bank-page.ts';

export const mockBankSessionProcedure = pageProcedure
  .input(LinkToken)
  .output(MockBankSession)
  .query(({ ctx, input }) => mockBankSession(paymentsDeps(ctx), input.token));

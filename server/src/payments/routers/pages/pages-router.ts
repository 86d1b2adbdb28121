import { router } from '../../../trpc/trpc.ts';
import { approveProcedure } from './approve.procedure.ts';
import { chooseBankProcedure } from './choose-bank.procedure.ts';
import { hostedBanksProcedure } from './hosted-banks.procedure.ts';
import { hostedSessionProcedure } from './hosted-session.procedure.ts';
import { mockBankSessionProcedure } from './mock-bank-session.procedure.ts';
import { rejectProcedure } from './reject.procedure.ts';

/**
 * The customer pages' procedures (tRPC only, never under /api): no API key, the signed link
 * token in the input is the credential. Shapes: shared/src/pages.ts.
 */
export const pagesRouter = router({
  hostedSession: hostedSessionProcedure,
  hostedBanks: hostedBanksProcedure,
  chooseBank: chooseBankProcedure,
  mockBankSession: mockBankSessionProcedure,
  approve: approveProcedure,
  reject: rejectProcedure,
});

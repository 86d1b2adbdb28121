import { router } from '../../../trpc/trpc.ts';
import { advanceMockClockProcedure } from './advance-mock-clock.procedure.ts';
import { approveMockPaymentProcedure } from './approve-mock-payment.procedure.ts';
import { rejectMockPaymentProcedure } from './reject-mock-payment.procedure.ts';

/** Test helpers that drive Mock bank payments without a browser (OpenAPI tag "Sandbox"). */
export const sandboxRouter = router({
  approve: approveMockPaymentProcedure,
  reject: rejectMockPaymentProcedure,
  advance: advanceMockClockProcedure,
});

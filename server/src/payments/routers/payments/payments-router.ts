import { router } from '../../../trpc/trpc.ts';
import { cancelPaymentProcedure } from './cancel-payment.procedure.ts';
import { createPaymentProcedure } from './create-payment.procedure.ts';
import { exportPaymentsProcedure } from './export-payments.procedure.ts';
import { getPaymentProcedure } from './get-payment.procedure.ts';
import { listPaymentsProcedure } from './list-payments.procedure.ts';
import { newLinkProcedure } from './new-link.procedure.ts';
import { syncPaymentProcedure } from './sync-payment.procedure.ts';

/** The merchant's payment operations (REST under /api/payments). */
export const paymentsRouter = router({
  create: createPaymentProcedure,
  list: listPaymentsProcedure,
  export: exportPaymentsProcedure,
  get: getPaymentProcedure,
  sync: syncPaymentProcedure,
  cancel: cancelPaymentProcedure,
  link: newLinkProcedure,
});

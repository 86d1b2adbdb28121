import {
  CreatedPayment,
  DashboardApproveInput,
  DashboardCreatePaymentInput,
  DashboardPayment,
  DashboardPaymentInput,
  DashboardRejectInput,
  ListPaymentsQuery,
  NewCustomerLink,
  NewPaymentOptions,
  Payment,
  PaymentIdInput,
  PaymentList,
  SandboxAdvanceRequest,
} from '@pis/shared';
import { z } from 'zod';
import { roleAllows } from '../accounts/roles.ts';
import { waitingRead } from '../http/live-read.ts';
import { audited } from '../observability/audit-log.ts';
import { cancelPayment } from '../payments/cancel-payment.ts';
import { createPayment } from '../payments/create-payment.ts';
import { dashboardPayment } from '../payments/dashboard-payment.ts';
import { listPayments } from '../payments/list-payments.ts';
import { newCustomerLink } from '../payments/new-customer-link.ts';
import { paymentsDeps } from '../payments/payments-deps.ts';
import { sandboxAdvance, sandboxApprove, sandboxReject } from '../payments/sandbox.ts';
import {
  sessionMutation,
  sessionQuery,
  supportMutation,
  withPaymentWriteBudget,
} from '../trpc/dashboard-procedures.ts';
import { router } from '../trpc/trpc.ts';
import { newPaymentOptions } from './new-payment-options.ts';

/**
 * The dashboard's payment writes spend the organization's API write budget, as its keys' writes
 * do (a self-serve sign-up's tenth included): a session is no way around the API's limits
 * (issue 31 item 7).
 */
const paymentWrite = withPaymentWriteBudget(sessionMutation);
const supportPaymentWrite = withPaymentWriteBudget(supportMutation);

/**
 * The payments pages: the very functions behind POST /payments, GET /payments,
 * GET /payments/{id}, cancel and the sandbox's Mock bank approve/reject, with the session's
 * organization as the caller.
 */
export const paymentsRouter = router({
  create: paymentWrite
    .input(DashboardCreatePaymentInput)
    .output(CreatedPayment)
    .mutation(({ ctx, input }) =>
      createPayment(paymentsDeps(ctx), ctx.caller, input.payment, input.idempotencyKey),
    ),

  /** What New payment may offer in the session's mode: providers, their banks, or why none. */
  options: sessionQuery
    .input(z.void())
    .output(NewPaymentOptions)
    .query(({ ctx }) => newPaymentOptions(paymentsDeps(ctx), ctx.caller)),

  list: sessionQuery
    .input(ListPaymentsQuery)
    .output(PaymentList)
    .query(({ ctx, input }) => listPayments(paymentsDeps(ctx), ctx.caller, input)),

  get: sessionQuery
    .input(DashboardPaymentInput)
    .output(DashboardPayment)
    .query(({ ctx, input }) =>
      dashboardPayment(
        paymentsDeps(ctx),
        ctx.caller,
        input.paymentId,
        waitingRead(ctx, ctx.caller, {
          ifNoneMatch: input.ifNoneMatch,
          waitSeconds: input.waitSeconds,
        }),
        // The customer's link only for roles that may re-send it (issue 31 item 7).
        { showLink: roleAllows(ctx.session.role, 'support') },
      ),
    ),

  cancel: supportPaymentWrite
    .input(PaymentIdInput)
    .output(Payment)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'payment.cancelled', target: input.paymentId }, () =>
        cancelPayment(paymentsDeps(ctx), ctx.caller, input.paymentId),
      ),
    ),

  approve: supportPaymentWrite
    .input(DashboardApproveInput)
    .output(Payment)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'payment.approved', target: input.paymentId }, () =>
        sandboxApprove(paymentsDeps(ctx), ctx.caller, input.paymentId, input.scenario),
      ),
    ),

  reject: supportPaymentWrite
    .input(DashboardRejectInput)
    .output(Payment)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'payment.rejected', target: input.paymentId }, () =>
        sandboxReject(paymentsDeps(ctx), ctx.caller, input.paymentId, { reason: input.reason }),
      ),
    ),

  /**
   * "New customer link" on an unfinished payment's page (POST /payments/{id}/link). Support may:
   * re-sending a link to a customer who lost it is their work (046). Audited although the
   * payment does not change: it hands out a way to pay.
   */
  newLink: supportPaymentWrite
    .input(PaymentIdInput)
    .output(NewCustomerLink)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'payment.link_sent', target: input.paymentId }, () =>
        newCustomerLink(paymentsDeps(ctx), ctx.caller, input.paymentId),
      ),
    ),

  /** "Advance time" on a test payment's page: its own test clock (POST .../mock-bank/advance). */
  advance: paymentWrite
    .input(SandboxAdvanceRequest)
    .output(Payment)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'payment.clock_advanced', target: input.paymentId }, () =>
        sandboxAdvance(paymentsDeps(ctx), ctx.caller, input.paymentId, input.seconds),
      ),
    ),
});

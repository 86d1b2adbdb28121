import {
  AppError,
  type ApprovalTiming,
  CUSTOMER_ACTOR,
  type DecisionResult,
  findBank,
  MOCK_PROVIDER,
  type MockBankSession,
  merchantReturnUrl,
  type RejectReason,
} from '@pis/shared';
import { pageBrand } from '../../organizations/brand.ts';
import type { AppliedEvent } from '../apply-payment-event.ts';
import { approveAtMockBank, rejectAtMockBank } from '../mock-bank-decisions.ts';
import type { PaymentsDeps } from '../payments-deps.ts';
import { openLink, paymentSummary } from './open-link.ts';

/** The Mock bank page: the payment, its bank and the scenario the merchant asked for (the defaults). */
export async function mockBankSession(deps: PaymentsDeps, token: string): Promise<MockBankSession> {
  const { claims, record, organization } = await openLink(deps, token, 'mock-bank');
  if (record.provider !== MOCK_PROVIDER) {
    throw new AppError('LINK_INVALID', 'This payment link is not valid. Ask the merchant for a new one.');
  }
  const context = { approvedProviders: organization.approvedProviders, baseUrl: deps.config.publicBaseUrl };
  return {
    ...paymentSummary(record, organization.name, claims),
    brand: await pageBrand(deps.em, organization),
    bank: record.bankId ? (findBank(record.bankId, context) ?? null) : null,
    scenario: {
      preset: record.mockBank?.preset ?? 'instant',
      completeAfterSeconds: record.mockBank?.completeAfterSeconds ?? null,
      rejectReason: record.mockBank?.rejectReason ?? 'CUST',
    },
  };
}

/** Approve on the page: the page's scenario overrides the request's `mockBank`. */
export async function approveOnPage(
  deps: PaymentsDeps,
  token: string,
  scenario: ApprovalTiming,
): Promise<DecisionResult> {
  const { record } = await openLink(deps, token, 'mock-bank');
  return decision(await approveAtMockBank(deps, { paymentId: record.id }, scenario, CUSTOMER_ACTOR));
}

export async function rejectOnPage(
  deps: PaymentsDeps,
  token: string,
  reason: RejectReason,
): Promise<DecisionResult> {
  const { record } = await openLink(deps, token, 'mock-bank');
  return decision(await rejectAtMockBank(deps, { paymentId: record.id }, reason, CUSTOMER_ACTOR));
}

/** Where the customer goes now, with the status at this moment. */
const decision = ({ record }: AppliedEvent): DecisionResult => ({
  paymentId: record.id,
  status: record.status,
  returnUrl: merchantReturnUrl(record.returnUrl, record.id, record.status),
});

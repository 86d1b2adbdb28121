/**
 * The shapes the customer pages exchange with the server, from the contract in shared/.
 * Type-only imports: none of shared's runtime (zod) reaches the browser bundle.
 */
import type {
  ApprovalTiming,
  Bank,
  BankList,
  ChooseBankResult,
  DecisionResult,
  FlowType,
  HostedSession,
  MockBankSession,
  MockPreset,
  Outcome,
  PaymentStatus,
  RejectReason,
} from '@pis/shared';

export type {
  Bank,
  BankList,
  ChooseBankResult,
  DecisionResult,
  FlowType,
  HostedSession,
  MockBankSession,
  Outcome,
  PaymentStatus,
  RejectReason,
};

export type ScenarioPreset = MockPreset;
export type Amount = HostedSession['amount'];
export type Payee = HostedSession['payee'];
export type MockBankScenario = MockBankSession['scenario'];
/** A verified merchant's brand on its customer pages (null until the operator verified it). */
export type PageBrand = NonNullable<HostedSession['brand']>;

/** The timing the customer picked: a preset, or a number of seconds (which overrides presets). */
export type ChosenScenario =
  | Required<Pick<ApprovalTiming, 'preset'>>
  | Required<Pick<ApprovalTiming, 'completeAfterSeconds'>>;

export interface BankQuery {
  token: string;
  country: string;
  search?: string | undefined;
  page?: number | undefined;
  limit?: number | undefined;
}

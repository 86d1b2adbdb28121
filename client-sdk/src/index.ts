export {
  type ClientErrorCode,
  PaymentMismatchError,
  PaymentsApiError,
  PaymentsConnectionError,
  type PaymentsErrorDetail,
  PaymentsTimeoutError,
  PaymentsWaitTimeoutError,
} from './errors.ts';
export { PaymentsClient, type PaymentsClientOptions } from './payments-client.ts';
export {
  FAST_POLL_INTERVAL_MS,
  FAST_POLL_WINDOW_MS,
  nextPollDelayMs,
  SLOW_POLL_INTERVAL_MS,
} from './polling-schedule.ts';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type FetchLike } from './request-sender.ts';
export type { BanksResource } from './resources/banks-resource.ts';
export {
  type CreatePaymentOptions,
  LIST_ALL_PAGE_SIZE,
  type PaymentsResource,
  type VerifyReturnOptions,
} from './resources/payments-resource.ts';
export type { ProvidersResource } from './resources/providers-resource.ts';
export type { SandboxResource } from './resources/sandbox-resource.ts';
export { parseReturnUrl, type ReturnUrlParams } from './return-url.ts';
export { isTerminal, TERMINAL_STATUSES } from './statuses.ts';
export type * from './types.ts';
export { DEFAULT_WAIT_TIMEOUT_MS, type WaitForFinalStatusOptions } from './wait-for-final-status.ts';

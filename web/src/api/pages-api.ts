import { pageCall } from './page-call.ts';
import type { BankQuery, ChosenScenario, RejectReason } from './page-types.ts';

/** The server's internal `pages` procedures. The link token is the only credential. */
export const pagesApi = {
  hostedSession: (token: string, signal?: AbortSignal) => pageCall('hostedSession', { token }, { signal }),

  hostedBanks: (query: BankQuery, signal?: AbortSignal) => pageCall('hostedBanks', query, { signal }),

  chooseBank: (token: string, bankId: string) =>
    pageCall('chooseBank', { token, bankId }, { mutation: true }),

  mockBankSession: (token: string, signal?: AbortSignal) =>
    pageCall('mockBankSession', { token }, { signal }),

  approve: (token: string, scenario: ChosenScenario) =>
    pageCall('approve', { token, scenario }, { mutation: true }),

  reject: (token: string, reason: RejectReason) => pageCall('reject', { token, reason }, { mutation: true }),
};

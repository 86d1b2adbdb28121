import type { BankQuery, ChosenScenario, RejectReason } from './page-types.ts';
import { trpc } from './trpc-client.ts';

/** The server's internal `pages` procedures. The link token is the only credential. */
export const pagesApi = {
  hostedSession: (token: string, signal?: AbortSignal) =>
    trpc.pages.hostedSession.query({ token }, { signal }),

  hostedBanks: (query: BankQuery, signal?: AbortSignal) => trpc.pages.hostedBanks.query(query, { signal }),

  chooseBank: (token: string, bankId: string) => trpc.pages.chooseBank.mutate({ token, bankId }),

  mockBankSession: (token: string, signal?: AbortSignal) =>
    trpc.pages.mockBankSession.query({ token }, { signal }),

  approve: (token: string, scenario: ChosenScenario) => trpc.pages.approve.mutate({ token, scenario }),

  reject: (token: string, reason: RejectReason) => trpc.pages.reject.mutate({ token, reason }),
};

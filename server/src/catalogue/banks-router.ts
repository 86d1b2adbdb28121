import {
  AppError,
  BankIdInput,
  BankList,
  BankProvidersList,
  BankResponse,
  bankProviders,
  findBank,
  ListBanksQuery,
  listBanks,
  MESSAGES,
} from '@pis/shared';
import { readProcedure, router } from '../trpc/trpc.ts';
import { errorResponses } from './openapi-errors.ts';

const tags = ['Banks'];

/**
 * Banks the organization's customers can pay from. The catalogue and its filtering live in
 * shared (pure); these procedures only add the caller's approved providers and the public URL.
 * `providers` is declared before `get` so `/banks/providers` is never read as a bank id.
 */
export const banksRouter = router({
  providers: readProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/banks/providers',
        tags,
        summary: 'Providers whose banks the caller can see',
        description:
          "Codes of the organization's approved providers that have a bank catalogue (today: mock).",
      },
      errors: errorResponses(401, 403),
    })
    .output(BankProvidersList)
    .query(({ ctx }) => ({ providers: bankProviders(ctx.approvedProviders) })),

  list: readProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/banks',
        tags,
        summary: 'List banks',
        description: "Banks reachable through the organization's approved providers, ordered by name.",
      },
      errors: errorResponses(400, 401, 403),
    })
    .input(ListBanksQuery)
    .output(BankList)
    .query(({ ctx, input }) =>
      listBanks(input, { approvedProviders: ctx.approvedProviders, baseUrl: ctx.config.publicBaseUrl }),
    ),

  get: readProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/banks/{id}',
        tags,
        summary: 'Get a bank',
        description:
          'One bank by its `id` (the value to use as `bankId`); 404 when the organization cannot reach it.',
      },
      errors: errorResponses(400, 401, 403, 404),
    })
    .input(BankIdInput)
    .output(BankResponse)
    .query(({ ctx, input }) => {
      const bank = findBank(input.id, {
        approvedProviders: ctx.approvedProviders,
        baseUrl: ctx.config.publicBaseUrl,
      });
      if (!bank) throw new AppError('NOT_FOUND', MESSAGES.bankNotFound);
      return { bank };
    }),
});

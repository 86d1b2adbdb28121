import { AppError } from '@pis/shared';
import { initTRPC, type TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context.ts';
import { type PublicFailure, publicFailure } from './public-failure.ts';

/**
 * `successStatus`: the HTTP status of a successful call when it is not 200 (201 for creation).
 * Applied by responseMeta (trpc/response-meta.ts) and written into the OpenAPI document.
 */
export type Meta = OpenApiMeta<{ successStatus?: number }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Never put stacks into responses, whatever NODE_ENV says.
    isDev: false,
    /**
     * tRPC clients read `error.data.appError` ({message, code?, details?}) and `httpStatus`;
     * the REST scope (http/rest-api.ts) builds the failure envelope from the same `appError`.
     */
    errorFormatter: ({ shape, error }) => {
      const failure = publicFailure(error);
      return {
        ...shape,
        message: failure.body.message,
        // `kind`: the AppError kind even where the public body has no code (NOT_FOUND), for the pages.
        data: {
          ...shape.data,
          httpStatus: failure.status,
          appError: failure.body,
          kind: errorKind(error, failure),
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

const errorKind = (error: TRPCError, failure: PublicFailure): string | undefined =>
  error.cause instanceof AppError ? error.cause.kind : failure.body.code;

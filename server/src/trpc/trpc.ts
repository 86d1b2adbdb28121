import { AppError, unusableInputDetails, validationFailed } from '@pis/shared';
import { initTRPC, type TRPCError } from '@trpc/server';
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { authenticateApiKey, type KeyPreload, type Permission } from '../auth/authenticate-api-key.ts';
import type { ErrorRows } from '../catalogue/openapi-errors.ts';
import { inSpan } from '../observability/tracing.ts';
import { budgetOf } from '../rate-limits/organization-budgets.ts';
import { rateLimitResult } from '../rate-limits/rate-limit-store.ts';
import { answerRateLimit, enforceRateLimit, rateLimitKey } from '../rate-limits/rate-limits.ts';
import type { Context } from './context.ts';
import { type PublicFailure, publicFailure } from './public-failure.ts';

/**
 * `successStatus`: the HTTP status of a successful call when it is not 200 (201 for creation).
 * Applied by responseMeta (trpc/response-meta.ts) and written into the OpenAPI document.
 * `errors`: the failure statuses the procedure answers, each with its text and `error.code`s,
 * read by the OpenAPI document (http/openapi-document.ts).
 * `preload`: a read for the API key lookup to run in its own round trip, from the raw input
 * (undefined when the input does not fit it); the procedure gets it as `ctx.preloaded`.
 * `streamed`: the success answer is this media type as a stream, not the JSON envelope (the
 * procedure returns a StreamedAnswer, http/streamed-answer.ts); the document says so.
 */
export type Meta = OpenApiMeta<{
  successStatus?: number;
  errors?: ErrorRows;
  preload?: (rawInput: unknown) => KeyPreload | undefined;
  streamed?: { contentType: string; description: string; example: string };
}>;

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
      const code = trpcCodeOf(failure.status);
      return {
        ...shape,
        // A thrown AppError reaches tRPC as INTERNAL_SERVER_ERROR; say what it really is.
        code: TRPC_ERROR_CODES_BY_KEY[code],
        message: failure.body.message,
        // `kind`: the AppError kind even where the public body has no code (NOT_FOUND), for the pages.
        data: {
          ...shape.data,
          code,
          httpStatus: failure.status,
          appError: failure.body,
          kind: errorKind(error, failure),
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;
/**
 * Every procedure in a span (child of the request's HTTP span), so its statements and provider
 * calls, and the jobs it sends, join the request's trace. A non-recording span when tracing is off.
 */
export const publicProcedure = t.procedure.use(({ ctx, path, type, next }) =>
  inProcedureSpan(ctx, path, type, () => next()),
);

/**
 * A refusal of the caller (a 4xx: a wrong key, a spent budget, bad input) is not the span's
 * failure, as OpenTelemetry's server spans count it: a flood of 401s is not a flood of errors.
 */
function inProcedureSpan<T>(ctx: Context, path: string, type: string, work: () => Promise<T>): Promise<T> {
  return inSpan(
    `trpc ${path}`,
    { 'rpc.system': 'trpc', 'rpc.method': path, 'trpc.type': type, 'pis.request_id': ctx.requestId },
    work,
    {
      ...(ctx.traceParent ? { parent: ctx.traceParent() } : {}),
      failed: (error) => publicFailure(error).status >= 500,
    },
  );
}
export const createCallerFactory = t.createCallerFactory;

const errorKind = (error: TRPCError, failure: PublicFailure): string | undefined =>
  error.cause instanceof AppError ? error.cause.kind : failure.body.code;

/** tRPC's code for an HTTP status (it has no 410: a gone link is a client-side problem). */
const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  410: 'BAD_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

const trpcCodeOf = (status: number): TRPC_ERROR_CODE_KEY =>
  TRPC_CODE_BY_STATUS[status] ?? (status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');

/**
 * NUL characters and unpaired surrogates in any input value (body, query or path) are refused
 * as VALIDATION_FAILED before any schema or query sees them: Postgres cannot store them. Also
 * used by the dashboard's procedures.
 */
export const storableInput = middleware(async ({ getRawInput, next }) => {
  await refuseUnstorableInput(getRawInput);
  return next();
});

async function refuseUnstorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const details = unusableInputDetails(await getRawInput());
  if (details.length > 0) throw validationFailed(details);
}

/**
 * The customer pages' procedures: the link token in the input is their only credential, so
 * they are limited per client address (before the input is walked).
 */
export const pageProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    await enforceRateLimit(ctx.em, ctx.config.rateLimits, ctx.setHeader, 'pages', ctx.clientAddress());
    return next();
  })
  .use(storableInput);

/**
 * The procedure builders for the merchant API: every procedure behind an API key starts from
 * `readProcedure` or `writeProcedure`. The key is checked before the input is parsed, so an
 * unauthenticated caller learns nothing from validation errors.
 * Context gains `organizationId`, `approvedProviders` (always with `mock`) and `apiKeyId`, and
 * `preloaded` for a procedure whose meta has a `preload` (see KeyPreload).
 *
 * Key, permission and storable input in one middleware, in that order: every tRPC middleware
 * level copies the whole context (and these run on every merchant call).
 */
const withPermission = (permission: Permission) =>
  // Its own span (as publicProcedure's), not a level below it: each level copies the call's options.
  t.procedure.use(({ ctx, meta, path, type, getRawInput, next }) =>
    inProcedureSpan(ctx, path, type, async () => {
      const limits = ctx.config.rateLimits;
      // Reads and writes have budgets of their own (Stripe-style), the organization's across its
      // keys, counted once the key is proven, in the key lookup's own round trip.
      const budget = permission === 'read' ? 'api-read' : 'api-write';
      const { caller, preloaded, counted } = await authenticateApiKey(
        ctx.em,
        ctx.apiKeyHeader,
        ctx.clock,
        permission,
        {
          preload: meta?.preload?.(await getRawInput()),
          count: limits.enabled
            ? { key: rateLimitKey(budget, ''), windowSeconds: limits.windowSeconds }
            : undefined,
          logger: ctx.log,
          cache: ctx.services.apiKeyCache,
          onKeyFound: ctx.noteKeyOwner,
        },
      );
      if (counted) {
        const limit = budgetOf(limits, caller.budgets, budget);
        answerRateLimit(limits, ctx.setHeader, budget, rateLimitResult(limit, counted));
      }
      // Past every refusal a stranger or a flood can provoke cheaply: the log keeps its bodies.
      ctx.noteKeyOwner(caller.organizationId, true);
      await refuseUnstorableInput(getRawInput);
      return next({
        ctx: {
          caller,
          organizationId: caller.organizationId,
          approvedProviders: caller.approvedProviders,
          apiKeyId: caller.apiKeyId,
          preloaded,
        },
      });
    }),
  );

export const readProcedure = withPermission('read');
export const writeProcedure = withPermission('write');

import { HttpResponse, http } from 'msw';

/**
 * MSW handlers that answer like the server's tRPC adapter over `httpLink` (one call per
 * request): queries are GET with `?input=<json>`, mutations POST a JSON body; success is
 * `{ result: { data } }`, failure `{ error: { message, code, data } }`.
 */

export interface TrpcFailure {
  kind: string;
  httpStatus: number;
  message?: string;
  details?: Array<{ field: string; message: string }>;
}

/** `request` for what a test checks beyond the input (the dashboard's CSRF header). */
type Resolver = (
  input: Record<string, unknown>,
  request: Request,
) => unknown | TrpcFailure | Promise<unknown>;

/** Kinds the spec gives no public code (server: shared/src/errors.ts). */
const WITHOUT_CODE = new Set(['NOT_FOUND', 'UNAUTHORIZED', 'FORBIDDEN']);

const TRPC_CODES: Record<number, string> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  500: 'INTERNAL_SERVER_ERROR',
};

const isFailure = (value: unknown): value is TrpcFailure =>
  typeof value === 'object' && value !== null && 'kind' in value && 'httpStatus' in value;

const respond = async (
  path: string,
  resolver: Resolver,
  input: Record<string, unknown>,
  request: Request,
) => {
  const answer = await resolver(input, request);
  if (isFailure(answer)) {
    const message = answer.message ?? answer.kind;
    return HttpResponse.json(
      {
        error: {
          message,
          code: -32600,
          // As the server's errorFormatter shapes it (server/src/trpc/trpc.ts).
          data: {
            code: TRPC_CODES[answer.httpStatus] ?? 'BAD_REQUEST',
            httpStatus: answer.httpStatus,
            path,
            kind: answer.kind,
            appError: {
              message,
              ...(WITHOUT_CODE.has(answer.kind) ? {} : { code: answer.kind }),
              ...(answer.details ? { details: answer.details } : {}),
            },
          },
        },
      },
      { status: answer.httpStatus },
    );
  }
  return HttpResponse.json({ result: { data: answer } });
};

export const trpcQuery = (path: string, resolver: Resolver) =>
  http.get(`*/trpc/${path}`, ({ request }) => {
    const raw = new URL(request.url).searchParams.get('input');
    return respond(path, resolver, raw ? JSON.parse(raw) : {}, request);
  });

export const trpcMutation = (path: string, resolver: Resolver) =>
  http.post(`*/trpc/${path}`, async ({ request }) =>
    respond(path, resolver, ((await request.clone().text()) ? await request.json() : {}) as never, request),
  );

export const failure = (kind: string, httpStatus: number): TrpcFailure => ({ kind, httpStatus });

export const LINK_EXPIRED = failure('LINK_EXPIRED', 410);
export const LINK_INVALID = failure('LINK_INVALID', 400);
export const ALREADY_DECIDED = failure('PAYMENT_ALREADY_DECIDED', 409);

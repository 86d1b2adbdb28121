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
}

type Resolver = (input: Record<string, unknown>) => unknown | TrpcFailure | Promise<unknown>;

const TRPC_CODES: Record<number, string> = {
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  500: 'INTERNAL_SERVER_ERROR',
};

const isFailure = (value: unknown): value is TrpcFailure =>
  typeof value === 'object' && value !== null && 'kind' in value && 'httpStatus' in value;

const respond = async (path: string, resolver: Resolver, input: Record<string, unknown>) => {
  const answer = await resolver(input);
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
            appError: { message, ...(answer.kind === 'NOT_FOUND' ? {} : { code: answer.kind }) },
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
    return respond(path, resolver, raw ? JSON.parse(raw) : {});
  });

export const trpcMutation = (path: string, resolver: Resolver) =>
  http.post(`*/trpc/${path}`, async ({ request }) =>
    respond(path, resolver, (await request.json()) as never),
  );

export const failure = (kind: string, httpStatus: number): TrpcFailure => ({ kind, httpStatus });

export const LINK_EXPIRED = failure('LINK_EXPIRED', 410);
export const LINK_INVALID = failure('LINK_INVALID', 400);
export const ALREADY_DECIDED = failure('PAYMENT_ALREADY_DECIDED', 409);

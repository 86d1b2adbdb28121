import {
  type Actor,
  API_KEY_DISPLAY_PREFIX_LENGTH,
  AppError,
  BankIdInput,
  CreatePaymentInput,
  detailsFromZodError,
  ERROR_KINDS,
  type ErrorBody,
  ExportPaymentsQuery,
  etagMatches,
  ListBanksQuery,
  ListPaymentsQuery,
  MESSAGES,
  PaymentIdInput,
  parseIdempotencyKey,
  parseJsonObjectBody,
  paymentEtag,
  preferredWaitSeconds,
  SandboxAdvanceInput,
  SandboxApproveInput,
  SandboxRejectInput,
  unusableInputDetails,
  validationFailed,
} from '@pis/shared';
import { HttpResponse, http, type RequestHandler } from 'msw';
import type { z } from 'zod';
import type { MockStore } from './mock-store.ts';
import type { MockWaits } from './mock-waits.ts';

/** A failure queued with `controls.failNext`. */
export interface QueuedFailure {
  /** Answer with no response at all (fetch rejects), as when the network is down. */
  networkError?: boolean | undefined;
  /** HTTP status (default 500). */
  status?: number | undefined;
  /** Public error code (default: the code the service uses for that status, if any). */
  code?: string | undefined;
  /** Error message (default: a generic one for the status). */
  message?: string | undefined;
  /** Extra response headers, e.g. `{ 'retry-after': '2' }`. */
  headers?: Record<string, string> | undefined;
  /** Only requests with this method fail (default: any). */
  method?: string | undefined;
  /** Only requests whose path (e.g. `/api/payments`) matches fail (default: any). */
  path?: string | RegExp | undefined;
}

export interface HandlerContext {
  baseUrl: string;
  apiKey: string | undefined;
  store: MockStore;
  now: () => Date;
  /** Removes and returns the first queued failure matching this request, if any. */
  takeFailure: (method: string, path: string) => QueuedFailure | undefined;
  /** Held reads, woken after every request that may have changed something. */
  waits: MockWaits;
}

type Route = (args: {
  request: Request;
  params: Record<string, string | readonly string[] | undefined>;
}) => Promise<Response> | Response;

const success = (data: unknown, status = 200, headers?: Record<string, string>) =>
  HttpResponse.json({ success: true, data }, { status, ...(headers ? { headers } : {}) });

const failure = (status: number, error: ErrorBody, headers?: Record<string, string>) =>
  HttpResponse.json({ success: false, error }, { status, ...(headers ? { headers } : {}) });

const appFailure = (error: AppError) => failure(error.status, error.toBody());

/** The service's code for a status, when only one kind of failure has it (500, 429...). */
const defaultCodeFor = (status: number): string | undefined => {
  const kinds = Object.entries(ERROR_KINDS).filter(([, kind]) => kind.status === status && kind.publicCode);
  return kinds.length === 1 ? kinds[0]?.[0] : undefined;
};

/** As the service: unstorable text first (NUL, unpaired surrogates), then the schema. */
const parse = <S extends z.ZodType>(schema: S, input: unknown): z.output<S> => {
  const unstorable = unusableInputDetails(input);
  if (unstorable.length > 0) throw validationFailed(unstorable);
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(detailsFromZodError(result.error));
  return result.data;
};

/** The JSON body as the service reads it: `{}` when empty, and it must be a JSON object. */
const jsonBody = async (request: Request): Promise<unknown> =>
  parseJsonObjectBody(await request.text()) ?? {};

/**
 * Rows as the service's CSV writes them (csv-stringify with escape_formulas): a cell starting
 * with =, +, -, @, tab or CR gets a leading `'`; a cell with a comma, quote or line break is
 * quoted. Written out here so the kit needs no CSV library at run time.
 */
const toCsv = (rows: readonly string[][]): string =>
  rows
    .map((row) =>
      row
        .map((value) => {
          const cell = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
          return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
        })
        .join(','),
    )
    .join('\n')
    .concat('\n');

const param = (params: Record<string, string | readonly string[] | undefined>, name: string): string => {
  const value = params[name];
  return typeof value === 'string' ? value : '';
};

/**
 * The REST API of the service as MSW handlers: same paths, same validation (the shared zod
 * schemas), same envelopes and error codes (`AppError`), same state machine (the shared
 * lifecycle, through {@link MockStore}).
 */
export const createHandlers = (context: HandlerContext): RequestHandler[] => {
  const { store, now } = context;
  const api = (path: string) => `${context.baseUrl}/api${path}`;

  /** Every route: queued failure, then authentication, then the route; AppErrors become envelopes. */
  const route =
    (handler: Route): Route =>
    async (args) => {
      const queued = context.takeFailure(args.request.method, new URL(args.request.url).pathname);
      if (queued?.networkError) return HttpResponse.error();
      if (queued) {
        const status = queued.status ?? 500;
        const code = queued.code ?? defaultCodeFor(status);
        return failure(
          status,
          { message: queued.message ?? `Simulated failure (HTTP ${status})`, ...(code ? { code } : {}) },
          queued.headers,
        );
      }
      try {
        const key = args.request.headers.get('x-api-key');
        if (!key || (context.apiKey !== undefined && key !== context.apiKey)) {
          throw new AppError('UNAUTHORIZED', MESSAGES.invalidApiKey);
        }
        const response = await handler(args);
        if (args.request.method !== 'GET') context.waits.wake();
        return response;
      } catch (error) {
        if (error instanceof AppError) return appFailure(error);
        const message = error instanceof Error ? error.message : String(error);
        return failure(500, { message: `Mock API bug: ${message}`, code: 'INTERNAL_ERROR' });
      }
    };

  /** As the service names a key on the history entries its calls make: by its non-secret prefix. */
  const keyActor = (request: Request): Actor => ({
    type: 'api_key',
    name: (request.headers.get('x-api-key') ?? '').slice(0, API_KEY_DISPLAY_PREFIX_LENGTH),
  });

  const paymentIdOf = (params: Record<string, string | readonly string[] | undefined>) =>
    parse(PaymentIdInput, { paymentId: param(params, 'paymentId') }).paymentId;

  return [
    http.post(
      api('/payments'),
      route(async ({ request }) => {
        const command = parse(CreatePaymentInput, await jsonBody(request));
        const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
        return success(store.create(command, key, now(), keyActor(request)), 201);
      }),
    ),
    http.get(
      api('/payments'),
      route(({ request }) => {
        const filters = parse(ListPaymentsQuery, Object.fromEntries(new URL(request.url).searchParams));
        return success(store.list(filters, now()));
      }),
    ),
    // Before /payments/:paymentId, as in the service: "export" is not a payment id.
    http.get(
      api('/payments/export'),
      route(({ request }) => {
        const filters = parse(ExportPaymentsQuery, Object.fromEntries(new URL(request.url).searchParams));
        return new HttpResponse(toCsv(store.exportRows(filters, now())), {
          status: 200,
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="payments.csv"',
          },
        });
      }),
    ),
    http.get(
      api('/payments/providers'),
      route(() => success({ providers: store.paymentProviders() })),
    ),
    http.get(
      api('/payments/:paymentId'),
      route(async ({ request, params }) => {
        const paymentId = paymentIdOf(params);
        const ifNoneMatch = request.headers.get('if-none-match') ?? undefined;
        const waitSeconds = preferredWaitSeconds(request.headers.get('prefer') ?? undefined);
        const waits = ifNoneMatch !== undefined && waitSeconds !== undefined;
        const etagNow = () => paymentEtag(store.get(paymentId, now()));
        // As the service: an unknown payment is 404 at once; a current ETag holds the read.
        if (waits && etagMatches(ifNoneMatch, etagNow())) {
          const deadline = now().getTime() + waitSeconds * 1000;
          await context.waits.until(
            () => !etagMatches(ifNoneMatch, etagNow()),
            deadline,
            () => now().getTime(),
            request.signal,
          );
        }
        const payment = store.get(paymentId, now());
        return success(payment, 200, {
          etag: paymentEtag(payment),
          ...(waits ? { 'preference-applied': `wait=${waitSeconds}` } : {}),
        });
      }),
    ),
    http.post(
      api('/payments/:paymentId/sync'),
      route(({ params }) => success(store.get(paymentIdOf(params), now()))),
    ),
    http.post(
      api('/payments/:paymentId/cancel'),
      route(({ request, params }) => success(store.cancel(paymentIdOf(params), now(), keyActor(request)))),
    ),
    http.post(
      api('/payments/:paymentId/link'),
      route(({ params }) => success(store.newLink(paymentIdOf(params), now()), 201)),
    ),
    http.post(
      api('/payments/:paymentId/mock-bank/approve'),
      route(async ({ request, params }) => {
        const paymentId = paymentIdOf(params);
        const timing = parse(SandboxApproveInput, await jsonBody(request));
        return success(store.approve(paymentId, timing, now(), keyActor(request)));
      }),
    ),
    http.post(
      api('/payments/:paymentId/mock-bank/advance'),
      route(async ({ request, params }) => {
        const paymentId = paymentIdOf(params);
        const { seconds } = parse(SandboxAdvanceInput, await jsonBody(request));
        return success(store.advance(paymentId, seconds, now()));
      }),
    ),
    http.post(
      api('/payments/:paymentId/mock-bank/reject'),
      route(async ({ request, params }) => {
        const paymentId = paymentIdOf(params);
        const { reason } = parse(SandboxRejectInput, await jsonBody(request));
        return success(store.reject(paymentId, reason, now(), keyActor(request)));
      }),
    ),
    http.get(
      api('/banks'),
      route(({ request }) => {
        const filters = parse(ListBanksQuery, Object.fromEntries(new URL(request.url).searchParams));
        return success(store.listBanks(filters));
      }),
    ),
    http.get(
      api('/banks/providers'),
      route(() => success({ providers: store.bankProviders() })),
    ),
    http.get(
      api('/banks/:id'),
      route(({ params }) => {
        const { id } = parse(BankIdInput, { id: param(params, 'id') });
        const bank = store.findBank(id);
        if (!bank) throw new AppError('NOT_FOUND', MESSAGES.bankNotFound);
        return success({ bank });
      }),
    ),
    // Like the service: anything else under /api is a 404 in the envelope.
    http.all(
      api('/*'),
      route(() => {
        throw new AppError('NOT_FOUND', 'Not found');
      }),
    ),
  ];
};

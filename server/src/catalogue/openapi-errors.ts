import type { ErrorKind } from '@pis/shared';

/**
 * A failure status an operation can answer: the OpenAPI document's text for it, and the
 * `error.code`s it carries (the document's `x-error-codes`), as data rather than read from the text.
 */
export interface ErrorRow {
  text: string;
  codes: readonly ErrorKind[];
}

/** A procedure's failure statuses (`meta.errors`). */
export type ErrorRows = Record<number, ErrorRow>;

export const errorRow = (text: string, ...codes: ErrorKind[]): ErrorRow => ({ text, codes });

/** Error rows for `meta.errors`, worded once for every router. */
export const ERROR_RESPONSES = {
  400: errorRow(
    'VALIDATION_FAILED: the request is invalid; error.details lists each problem',
    'VALIDATION_FAILED',
  ),
  401: errorRow('Missing or invalid API key'),
  403: errorRow('The key lacks the permission, or the organization is not active'),
  404: errorRow('Not found in the organization'),
} as const;

export const errorResponses = (...statuses: (keyof typeof ERROR_RESPONSES)[]): ErrorRows =>
  Object.fromEntries(statuses.map((status) => [status, ERROR_RESPONSES[status]]));

/** A failure the HTTP layer (or a limit in front of every procedure) can answer on an operation. */
export interface TransportErrorRow {
  status: number;
  text: string;
  codes: readonly string[];
  /** Listed beside the procedure's own row for the status, not only when it has none. */
  always?: boolean;
}

/**
 * What every /api operation can answer before its procedure runs, for the OpenAPI document:
 * a URL Fastify cannot read (bad percent-encoding, a path parameter) is 400, a POST body that
 * is too large or not JSON 413 / 415 (sync and cancel take no body, yet a client can send one),
 * the rate limit 429, and an unexpected failure 500.
 */
export const transportErrorRows = (method: string): TransportErrorRow[] => [
  {
    status: 400,
    text: 'VALIDATION_FAILED: the URL is invalid (a path or query parameter, or bad percent-encoding)',
    codes: ['VALIDATION_FAILED'],
  },
  ...(method === 'POST'
    ? [
        { status: 413, text: 'PAYLOAD_TOO_LARGE: the body is over 100 KB', codes: ['PAYLOAD_TOO_LARGE'] },
        {
          status: 415,
          text: 'UNSUPPORTED_MEDIA_TYPE: a body must be JSON (Content-Type: application/json)',
          codes: ['UNSUPPORTED_MEDIA_TYPE'],
        },
      ]
    : []),
  {
    status: 429,
    text: 'RATE_LIMITED: too many requests; wait Retry-After seconds',
    codes: ['RATE_LIMITED'],
  },
  { status: 500, text: 'INTERNAL_ERROR: an unexpected failure', codes: ['INTERNAL_ERROR'] },
  {
    status: 503,
    text: 'SERVICE_UNAVAILABLE: the database is saturated (a statement or pool-wait timeout); retry after Retry-After seconds',
    codes: ['SERVICE_UNAVAILABLE'],
  },
];

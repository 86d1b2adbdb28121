import { PageCallError } from './page-call.ts';

/**
 * What went wrong, in the terms the pages show. This module is the one place that reads the
 * server's error shape; if the shape changes, only `kindOf` changes.
 */
export type PageErrorKind =
  | 'LINK_INVALID'
  | 'LINK_EXPIRED'
  | 'PAYMENT_ALREADY_DECIDED'
  | 'PROVIDER_CALL_IN_PROGRESS'
  | 'MERCHANT_SUSPENDED'
  | 'NOT_FOUND'
  | 'VALIDATION_FAILED'
  | 'UNREACHABLE'
  | 'UNEXPECTED';

export class PageError extends Error {
  readonly kind: PageErrorKind;

  constructor(kind: PageErrorKind, message: string) {
    super(message);
    this.name = 'PageError';
    this.kind = kind;
  }
}

const KNOWN_KINDS: ReadonlySet<string> = new Set<PageErrorKind>([
  'LINK_INVALID',
  'LINK_EXPIRED',
  'PAYMENT_ALREADY_DECIDED',
  'PROVIDER_CALL_IN_PROGRESS',
  'MERCHANT_SUSPENDED',
  'NOT_FOUND',
  'VALIDATION_FAILED',
]);

const known = (value: unknown): PageErrorKind | undefined =>
  typeof value === 'string' && KNOWN_KINDS.has(value) ? (value as PageErrorKind) : undefined;

/**
 * The server's errorFormatter puts the spec's error object at `data.appError` ({message, code?})
 * and the HTTP status at `data.httpStatus`. Kinds without a public code (404) are read from the
 * status. `data.kind` is accepted too, as first agreed.
 */
const kindOf = (data: unknown): PageErrorKind => {
  // No error body at all: the request never got an answer from our server (offline,
  // refused, proxy error page).
  if (!data || typeof data !== 'object') return 'UNREACHABLE';
  const { kind, appError, httpStatus } = data as {
    kind?: unknown;
    appError?: { code?: unknown };
    httpStatus?: unknown;
  };
  const named = known(kind) ?? known(appError?.code);
  if (named) return named;
  if (httpStatus === 404) return 'NOT_FOUND';
  return 'UNEXPECTED';
};

export const toPageError = (error: unknown): PageError => {
  if (error instanceof PageError) return error;
  if (error instanceof PageCallError) return new PageError(kindOf(error.data), error.message);
  return new PageError('UNEXPECTED', error instanceof Error ? error.message : String(error));
};

/** A call we cancelled ourselves (newer search, page left): not an error to show. */
export const isAbort = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';

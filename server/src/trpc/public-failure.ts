import { AppError, detailsFromZodError, type ErrorBody, validationFailed } from '@pis/shared';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { isDatabaseOverload, OVERLOAD_RETRY_AFTER_SECONDS } from '../db/database-overload.ts';

/** What a failure looks like to a client: an HTTP status and the spec's error object. */
export interface PublicFailure {
  status: number;
  body: ErrorBody;
  /** Response headers that belong to this failure (`Retry-After` on an overload). */
  headers?: Record<string, string>;
}

const INTERNAL: PublicFailure = {
  status: 500,
  body: { message: 'Internal server error', code: 'INTERNAL_ERROR' },
};

const OVERLOADED = (): PublicFailure => ({
  ...toFailure(new AppError('SERVICE_UNAVAILABLE', 'The service is busy: retry shortly')),
  headers: { 'retry-after': String(OVERLOAD_RETRY_AFTER_SECONDS) },
});

/** tRPC's own codes that can reach a client without passing through our code. */
const TRPC_CODE_FAILURES: Partial<Record<TRPCError['code'], (error: TRPCError) => PublicFailure>> = {
  PARSE_ERROR: () => toFailure(validationFailed([{ field: 'body', message: 'must be valid JSON' }])),
  NOT_FOUND: (error) => toFailure(new AppError('NOT_FOUND', error.message || 'Not found')),
  UNSUPPORTED_MEDIA_TYPE: () => toFailure(unsupportedMediaType()),
  PAYLOAD_TOO_LARGE: () => toFailure(payloadTooLarge()),
  UNAUTHORIZED: (error) => toFailure(new AppError('UNAUTHORIZED', error.message)),
  FORBIDDEN: (error) => toFailure(new AppError('FORBIDDEN', error.message)),
};

export const unsupportedMediaType = () =>
  new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    'Unsupported content type: send JSON with Content-Type: application/json',
  );
export const payloadTooLarge = () =>
  new AppError('PAYLOAD_TOO_LARGE', 'Request body too large (limit 100 KB)');

function toFailure(error: AppError): PublicFailure {
  return { status: error.status, body: error.toBody() };
}

const isZodError = (value: unknown): value is z.ZodError =>
  value instanceof z.ZodError || (value instanceof Error && value.name === 'ZodError' && 'issues' in value);

/**
 * The one mapping from anything thrown inside a procedure to what the client sees.
 * AppError speaks for itself; input validation becomes VALIDATION_FAILED with one detail per
 * problem; anything unexpected is a bare 500 (the cause is logged, never sent).
 */
export function publicFailure(error: unknown): PublicFailure {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof AppError) return toFailure(cause);
  if (isDatabaseOverload(cause)) return OVERLOADED();
  if (error instanceof TRPCError) {
    // BAD_REQUEST + ZodError is input validation; an output ZodError is INTERNAL_SERVER_ERROR (ours).
    if (error.code === 'BAD_REQUEST' && isZodError(cause)) {
      return toFailure(validationFailed(detailsFromZodError(cause)));
    }
    const mapped = TRPC_CODE_FAILURES[error.code];
    if (mapped) return mapped(error);
    if (error.code === 'BAD_REQUEST') {
      return toFailure(validationFailed([{ field: 'body', message: error.message }]));
    }
    if (
      ![
        'INTERNAL_SERVER_ERROR',
        'NOT_IMPLEMENTED',
        'BAD_GATEWAY',
        'SERVICE_UNAVAILABLE',
        'GATEWAY_TIMEOUT',
      ].includes(error.code)
    ) {
      // e.g. METHOD_NOT_SUPPORTED on /trpc: a client mistake with a safe tRPC message.
      return { status: statusOfTrpcCode(error.code), body: { message: error.message } };
    }
  }
  return INTERNAL;
}

/**
 * Logs what the operator must look at: an unexpected error (with its stack) at error level; a
 * deliberate 5xx AppError (provider down or not configured) at warn, without a stack.
 */
export function logProcedureFailure(
  log:
    | { error: (object: object, message: string) => void; warn: (object: object, message: string) => void }
    | undefined,
  error: unknown,
): void {
  const failure = publicFailure(error);
  if (failure.status < 500 || !log) return;
  const cause = error instanceof TRPCError ? error.cause : error;
  if (cause instanceof AppError) log.warn({ kind: cause.kind, message: cause.message }, 'procedure refused');
  else log.error({ err: error }, 'procedure failed');
}

const TRPC_STATUS: Partial<Record<TRPCError['code'], number>> = {
  METHOD_NOT_SUPPORTED: 405,
  TIMEOUT: 408,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  CLIENT_CLOSED_REQUEST: 499,
};

function statusOfTrpcCode(code: TRPCError['code']): number {
  return TRPC_STATUS[code] ?? 400;
}

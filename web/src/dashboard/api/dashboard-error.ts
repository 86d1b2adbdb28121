import { TRPCClientError } from '@trpc/client';

export interface FieldProblem {
  field: string;
  message: string;
}

/** What went wrong with a dashboard call, in the terms the pages show. */
export interface DashboardError {
  /** The server's error kind (`UNAUTHORIZED`, `VALIDATION_FAILED`, `RATE_LIMITED`...) or `UNREACHABLE`. */
  kind: string;
  message: string;
  /** Per-field problems of a VALIDATION_FAILED answer, shown under the form's fields. */
  details: FieldProblem[];
}

const UNREACHABLE: DashboardError = {
  kind: 'UNREACHABLE',
  message: 'We can’t reach the service right now. Check your connection and try again.',
  details: [],
};

interface ErrorData {
  kind?: unknown;
  httpStatus?: unknown;
  appError?: { message?: unknown; code?: unknown; details?: unknown };
}

const KIND_BY_STATUS: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' };

/**
 * Reads the server's error shape (errorFormatter in server/src/trpc/trpc.ts: `data.appError`,
 * `data.kind`, `data.httpStatus`); the one place of the dashboard that knows it.
 */
export const toDashboardError = (error: unknown): DashboardError => {
  if (!(error instanceof TRPCClientError)) return UNREACHABLE;
  const data = error.data as ErrorData | null | undefined;
  if (!data || typeof data !== 'object') return UNREACHABLE;
  const status = typeof data.httpStatus === 'number' ? data.httpStatus : 0;
  const kind =
    typeof data.kind === 'string'
      ? data.kind
      : typeof data.appError?.code === 'string'
        ? data.appError.code
        : (KIND_BY_STATUS[status] ?? 'UNEXPECTED');
  const message = typeof data.appError?.message === 'string' ? data.appError.message : error.message;
  const details = Array.isArray(data.appError?.details)
    ? (data.appError.details as FieldProblem[]).filter(
        (detail) => typeof detail?.field === 'string' && typeof detail?.message === 'string',
      )
    : [];
  return {
    kind,
    message: status >= 500 ? 'Something went wrong on our side. Please try again.' : message,
    details,
  };
};

import { z } from 'zod';

/**
 * Every failure the service can report, with its HTTP status and whether the spec gives it a
 * public `code`. The spec's 401/403/404 rows have no code, so those kinds answer without one.
 * This is the one table that maps errors to statuses; the server and the MSW kit both use it.
 */
export const ERROR_KINDS = {
  VALIDATION_FAILED: { status: 400, publicCode: true },
  MOCK_BANK_ONLY: { status: 400, publicCode: true },
  LINK_INVALID: { status: 400, publicCode: true },
  UNAUTHORIZED: { status: 401, publicCode: false },
  FORBIDDEN: { status: 403, publicCode: false },
  PROVIDER_NOT_APPROVED: { status: 403, publicCode: true },
  NOT_FOUND: { status: 404, publicCode: false },
  PAYMENT_NOT_CANCELLABLE: { status: 409, publicCode: true },
  IDEMPOTENCY_KEY_REUSED: { status: 409, publicCode: true },
  PAYMENT_ALREADY_DECIDED: { status: 409, publicCode: true },
  API_KEY_ALREADY_REVOKED: { status: 409, publicCode: true },
  BANK_NOT_CHOSEN: { status: 409, publicCode: true },
  LINK_EXPIRED: { status: 410, publicCode: true },
  PAYLOAD_TOO_LARGE: { status: 413, publicCode: true },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, publicCode: true },
  RATE_LIMITED: { status: 429, publicCode: true },
  INTERNAL_ERROR: { status: 500, publicCode: true },
  PROVIDER_UNAVAILABLE: { status: 502, publicCode: true },
  PROVIDER_NOT_CONFIGURED: { status: 503, publicCode: true },
  HOSTED_PAGES_NOT_CONFIGURED: { status: 503, publicCode: true },
  /** The database is saturated (statement or pool-wait timeout): retry shortly (`Retry-After`). */
  SERVICE_UNAVAILABLE: { status: 503, publicCode: true },
} as const satisfies Record<string, { status: number; publicCode: boolean }>;

export type ErrorKind = keyof typeof ERROR_KINDS;
export const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as ErrorKind[];

export const MESSAGES = {
  validationFailed: 'Validation failed',
  invalidApiKey: 'Invalid API key',
  lacksPermission: (permission: 'read' | 'write') => `API key lacks ${permission} permission`,
  organizationInactive: 'Organization is not active',
  paymentNotFound: 'Payment not found',
  bankNotFound: 'Bank not found',
  amount: 'must be a positive decimal with at most 4 decimal places',
  amountTooLarge: 'must be at most 15 digits before the decimal point',
} as const;

export const ValidationDetail = z.object({ field: z.string(), message: z.string() });
export type ValidationDetail = z.infer<typeof ValidationDetail>;

export const ErrorBody = z.object({
  message: z.string(),
  code: z.string().optional(),
  details: z.array(ValidationDetail).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const FailureEnvelope = z.object({ success: z.literal(false), error: ErrorBody });
export type FailureEnvelope = z.infer<typeof FailureEnvelope>;

export const successEnvelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

/** The one error type of the service: a kind (-> status and code) and a human message. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly details: ValidationDetail[] | undefined;

  constructor(kind: ErrorKind, message: string, details?: ValidationDetail[]) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.details = details;
  }

  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }

  /** The public code, absent where the spec defines none (401, 403 without code, 404). */
  get code(): string | undefined {
    return ERROR_KINDS[this.kind].publicCode ? this.kind : undefined;
  }

  toBody(): ErrorBody {
    return {
      message: this.message,
      ...(this.code ? { code: this.code } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

export const validationFailed = (details: ValidationDetail[]) =>
  new AppError('VALIDATION_FAILED', MESSAGES.validationFailed, details);

/** Dot path of a zod issue: `toAccount.iban`, `reference.endToEndId`, `items.0.name`. */
const fieldOf = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? 'body' : path.map((part) => String(part)).join('.');

/**
 * zod's own wording ("Too big: expected string to have <=140 characters") said the way the
 * rest of our messages are ("must be at most 140 characters"). Messages we wrote ourselves
 * (any that do not start with zod's prefixes) pass through unchanged.
 */
const humanMessage = (issue: z.core.$ZodIssue): string => {
  const zodDefault = /^(Invalid input|Too big|Too small|Invalid option|Invalid string|Unrecognized key)/.test(
    issue.message,
  );
  if (!zodDefault) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined$/.test(issue.message) ? 'is required' : `must be ${article(issue.expected)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${issue.maximum} characters`
        : issue.origin === 'array'
          ? `must have at most ${issue.maximum} items`
          : `must be at most ${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'string'
        ? Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`
        : `must be at least ${issue.minimum}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
};

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * One detail per problem. Union failures (amount as string or number, reference as string or
 * object) are flattened to the branch that matched the input's type, so the client sees the
 * real problem instead of "invalid input".
 */
export const detailsFromZodError = (error: z.ZodError): ValidationDetail[] => {
  const details: ValidationDetail[] = [];
  const visit = (issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]) => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      if (issue.code === 'invalid_union' && issue.errors.length > 0) {
        const branch = pickUnionBranch(issue.errors);
        if (branch) {
          visit(branch, path);
          continue;
        }
      }
      details.push({ field: fieldOf(path), message: humanMessage(issue) });
    }
  };
  visit(error.issues, []);
  const seen = new Set<string>();
  return details.filter((detail) => {
    const key = `${detail.field}\u0000${detail.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** NUL, and UTF-16 halves without their partner: Postgres cannot store them as text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point of this pattern.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text no store can keep, anywhere in a request (body, query or path values), as one detail
 * per offending field. Checked before any schema so no request reaches the database with it.
 */
export const unstorableTextDetails = (
  value: unknown,
  path: readonly PropertyKey[] = [],
): ValidationDetail[] => {
  if (typeof value === 'string') {
    return UNSTORABLE.test(value)
      ? [{ field: fieldOf(path), message: 'must not contain NUL characters or unpaired UTF-16 surrogates' }]
      : [];
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => unstorableTextDetails(item, [...path, index]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) =>
      UNSTORABLE.test(key)
        ? [
            {
              field: fieldOf([...path, key.replace(UNSTORABLE, '?')]),
              message: 'must not contain NUL characters',
            },
          ]
        : unstorableTextDetails(item, [...path, key]),
    );
  }
  return [];
};

/** The branch whose failure is not a plain type mismatch is the one the client meant. */
const pickUnionBranch = (branches: readonly (readonly z.core.$ZodIssue[])[]) => {
  const meaningful = branches.filter(
    (issues) => !(issues.length === 1 && issues[0]?.code === 'invalid_type' && issues[0].path.length === 0),
  );
  return meaningful.length === 1 ? meaningful[0] : undefined;
};

/**
 * A request body as the API reads it: empty means "no body" (a bodyless POST from a generic
 * client), otherwise it must be JSON and an object; anything else is VALIDATION_FAILED on `body`.
 */
export const parseJsonObjectBody = (text: string): Record<string, unknown> | undefined => {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw validationFailed([{ field: 'body', message: `must be valid JSON (${(error as Error).message})` }]);
  }
  // An array or a scalar would be spread into the input and produce misleading errors.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
};

import { z } from 'zod';

/**
 * Every failure the service can report, with its HTTP status and whether the spec gives it a
 * public `code`. The spec's 401/403/404 rows have no code, so those kinds answer without one.
 * This is the one table that maps errors to statuses; the server and the MSW kit both use it.
 */
export const ERROR_KINDS = {
  VALIDATION_FAILED: {
    status: 400,
    publicCode: true,
    description: 'The request is invalid; error.details lists each field and its problem',
  },
  MOCK_BANK_ONLY: {
    status: 400,
    publicCode: true,
    description: 'A Mock bank option (mockBank, a sandbox helper) used with another provider',
  },
  PRACTICE_BANK_TEST_ONLY: {
    status: 400,
    publicCode: true,
    description:
      'A live API key cannot pay through a practice bank (the Mock bank, the sandbox bank): name a real provider and bank, or use a test key',
  },
  LINK_INVALID: {
    status: 400,
    publicCode: true,
    description: 'A customer link that is not ours (customer pages)',
  },
  UNAUTHORIZED: { status: 401, publicCode: false, description: 'Missing or invalid API key' },
  FORBIDDEN: {
    status: 403,
    publicCode: false,
    description: 'The key lacks the permission, or the organization is not active',
  },
  REAUTHENTICATION_REQUIRED: {
    status: 403,
    publicCode: false,
    description:
      'Dashboard only: a team change on a session signed in over 15 minutes ago; confirm the password or a two-step code first',
  },
  PROVIDER_NOT_APPROVED: {
    status: 403,
    publicCode: true,
    description: 'The organization is not approved for this provider',
  },
  NOT_FOUND: { status: 404, publicCode: false, description: 'Not found in the organization' },
  PAYMENT_NOT_CANCELLABLE: {
    status: 409,
    publicCode: true,
    description: 'The payment is already COMPLETED, FAILED, CANCELLED or EXPIRED',
  },
  PAYMENT_FINISHED: {
    status: 409,
    publicCode: true,
    description:
      'The payment is already COMPLETED, FAILED, CANCELLED or EXPIRED: a new customer link would lead nowhere, and its test clock has nothing left to move',
  },
  LINK_NOT_RENEWABLE: {
    status: 409,
    publicCode: true,
    description: "The customer's page for this payment is the bank's own: only the bank can issue it",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    publicCode: true,
    description: 'The Idempotency-Key was used with another body in the last 24 hours',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    publicCode: true,
    description: 'A create with this Idempotency-Key is still running; retry in a few seconds',
  },
  PROVIDER_CALL_IN_PROGRESS: {
    status: 409,
    publicCode: true,
    description: 'The payment is being sent to (or cancelled at) its bank by another request; retry shortly',
  },
  MERCHANT_SUSPENDED: {
    status: 403,
    publicCode: true,
    description: "Customer pages only: the merchant's organization is suspended",
  },
  PAYMENT_ALREADY_DECIDED: {
    status: 409,
    publicCode: true,
    description: 'The customer has already approved or rejected this payment (or it is finished)',
  },
  API_KEY_ALREADY_REVOKED: {
    status: 409,
    publicCode: true,
    description: 'Dashboard only: the API key is already revoked',
  },
  TWO_STEP_REQUIRED_BY_ORGANIZATION: {
    status: 403,
    publicCode: true,
    description:
      "Dashboard only: two-step verification cannot be turned off while the member's organization requires it",
  },
  BANK_NOT_CHOSEN: {
    status: 409,
    publicCode: true,
    description: 'A hosted payment whose customer has not chosen a bank yet',
  },
  LINK_EXPIRED: {
    status: 410,
    publicCode: true,
    description: 'A customer link past its lifetime (customer pages)',
  },
  NOTIFICATION_INVALID: {
    status: 400,
    publicCode: true,
    description:
      "A bank's push to /api/providers/{code}/event-notifications that is not genuine (signature, audience, type, age) or was received already",
  },
  PAYLOAD_TOO_LARGE: { status: 413, publicCode: true, description: 'The request body is over 100 KB' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    publicCode: true,
    description: 'The body is not JSON (Content-Type: application/json)',
  },
  RATE_LIMITED: {
    status: 429,
    publicCode: true,
    description: 'Too many requests; wait for Retry-After seconds before trying again',
  },
  INTERNAL_ERROR: {
    status: 500,
    publicCode: true,
    description: 'An unexpected failure; nothing is disclosed',
  },
  PROVIDER_UNAVAILABLE: {
    status: 502,
    publicCode: true,
    description: 'The provider could not be reached; nothing changed, retry later',
  },
  PROVIDER_NOT_CONFIGURED: {
    status: 503,
    publicCode: true,
    description: 'The provider is approved but this service has no credentials for it',
  },
  HOSTED_PAGES_NOT_CONFIGURED: {
    status: 503,
    publicCode: true,
    description: 'Hosted pages are not configured on this service',
  },
  /** GET /ready: the database is unreachable or this build's migrations are not applied. */
  NOT_READY: {
    status: 503,
    publicCode: true,
    description: 'GET /ready only: the database is unreachable or migrations are not applied',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    publicCode: true,
    description: 'The database is saturated (a statement or pool-wait timeout): retry after Retry-After',
  },
} as const satisfies Record<string, { status: number; publicCode: boolean; description: string }>;

export type ErrorKind = keyof typeof ERROR_KINDS;
export const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as ErrorKind[];

/** The kinds a client sees as `error.code` (the spec's 401, plain 403 and 404 carry none). */
export const PUBLIC_ERROR_CODES = ERROR_KIND_NAMES.filter((kind) => ERROR_KINDS[kind].publicCode);

/**
 * `error.code` as the OpenAPI document states it: every code the service emits. New codes may
 * be added without a new API version, so clients must accept codes they do not know.
 */
export const ErrorCode = z.enum(PUBLIC_ERROR_CODES as [ErrorKind, ...ErrorKind[]]).meta({
  id: 'ErrorCode',
  description:
    'Stable machine-readable code. New codes may be added without a new API version: clients must ' +
    'accept codes they do not know (and act on the HTTP status).\n\n' +
    PUBLIC_ERROR_CODES.map(
      (code) => `- \`${code}\` (${ERROR_KINDS[code].status}): ${ERROR_KINDS[code].description}`,
    ).join('\n'),
  'x-enum-descriptions': PUBLIC_ERROR_CODES.map((code) => ERROR_KINDS[code].description),
});

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

export const ValidationDetail = z
  .object({ field: z.string(), message: z.string() })
  .meta({ id: 'ValidationDetail', description: 'One invalid field: its dot path and what is wrong' });
export type ValidationDetail = z.infer<typeof ValidationDetail>;

export const ErrorBody = z
  .object({
    message: z.string(),
    code: z.string().optional(),
    details: z.array(ValidationDetail).optional(),
  })
  .meta({ id: 'Error', description: 'What went wrong; code is absent on 401, 404 and a plain 403' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const FailureEnvelope = z
  .object({ success: z.literal(false), error: ErrorBody })
  .meta({ id: 'FailureEnvelope', description: 'Every 4xx and 5xx answer' });
export type FailureEnvelope = z.infer<typeof FailureEnvelope>;

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

export const validationFailed = (details: ValidationDetail[]) =>
  new AppError('VALIDATION_FAILED', MESSAGES.validationFailed, details);

/** Dot path of a zod issue: `toAccount.iban`, `reference.endToEndId`, `items.0.name`. */
export const fieldOf = (path: readonly PropertyKey[]): string =>
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
      if (issue.code === 'unrecognized_keys') {
        // A strict input (list filters): `?status[]=X` must not quietly mean "no filter".
        for (const key of issue.keys)
          details.push({ field: fieldOf([...path, key]), message: 'is not a known parameter' });
        continue;
      }
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

/** The branch whose failure is not a plain type mismatch is the one the client meant. */
const pickUnionBranch = (branches: readonly (readonly z.core.$ZodIssue[])[]) => {
  const meaningful = branches.filter(
    (issues) => !(issues.length === 1 && issues[0]?.code === 'invalid_type' && issues[0].path.length === 0),
  );
  return meaningful.length === 1 ? meaningful[0] : undefined;
};

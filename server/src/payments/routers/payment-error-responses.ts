import { ERROR_RESPONSES, type ErrorRow, type ErrorRows, errorRow } from '../../catalogue/openapi-errors.ts';

/**
 * Error rows of the payment operations, for `meta.errors`. The OpenAPI document lists, per
 * status, the row's text and its codes (http/openapi-document.ts), so a row names exactly the
 * codes that operation can answer; an operation with more says so in a tuple
 * (`[400, MOCK_BANK_ONLY_400]`).
 */
export const MOCK_BANK_ONLY_400 = errorRow(
  'VALIDATION_FAILED (error.details lists each problem), or MOCK_BANK_ONLY: a Mock bank option with another provider',
  'VALIDATION_FAILED',
  'MOCK_BANK_ONLY',
);
/** POST /payments: also a live key's payment at a practice bank (docs/decisions/072-live-and-test-modes.md). */
export const CREATE_PAYMENT_400 = errorRow(
  'VALIDATION_FAILED (error.details lists each problem), MOCK_BANK_ONLY: a Mock bank option with another provider, or PRACTICE_BANK_TEST_ONLY: a live API key with the Mock bank or a practice bank (they take test payments only)',
  'VALIDATION_FAILED',
  'MOCK_BANK_ONLY',
  'PRACTICE_BANK_TEST_ONLY',
);
export const PROVIDER_NOT_APPROVED_403 = errorRow(
  'The key lacks the permission or the organization is not active (no code), or PROVIDER_NOT_APPROVED',
  'PROVIDER_NOT_APPROVED',
);

const PAYMENT_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  400: errorRow(
    'VALIDATION_FAILED: the request is invalid; error.details lists each problem',
    'VALIDATION_FAILED',
  ),
  403: errorRow('The key lacks the permission, or the organization is not active'),
  404: errorRow('Payment not found (in this organization)'),
  409: errorRow('A state conflict; error.code says which'),
  502: errorRow(
    'PROVIDER_UNAVAILABLE: the provider could not be reached; nothing changed, retry later',
    'PROVIDER_UNAVAILABLE',
  ),
  503: errorRow(
    'PROVIDER_NOT_CONFIGURED or HOSTED_PAGES_NOT_CONFIGURED',
    'PROVIDER_NOT_CONFIGURED',
    'HOSTED_PAGES_NOT_CONFIGURED',
  ),
} as const;

export const paymentErrorResponses = (
  ...rows: (
    | keyof typeof PAYMENT_ERROR_RESPONSES
    | [status: keyof typeof PAYMENT_ERROR_RESPONSES, row: ErrorRow]
  )[]
): ErrorRows =>
  Object.fromEntries(rows.map((row) => (Array.isArray(row) ? row : [row, PAYMENT_ERROR_RESPONSES[row]])));

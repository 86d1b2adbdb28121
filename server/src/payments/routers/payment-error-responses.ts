import { ERROR_RESPONSES } from '../../catalogue/openapi-errors.ts';

/**
 * Error rows of the payment operations, for `meta.openapi.errorResponses`. The OpenAPI document
 * lists, per status, the error codes its text names (http/openapi-document.ts), so a row names
 * exactly the codes that operation can answer; an operation with more says so in a tuple
 * (`[400, MOCK_BANK_ONLY_400]`).
 */
export const MOCK_BANK_ONLY_400 =
  'VALIDATION_FAILED (error.details lists each problem), or MOCK_BANK_ONLY: a Mock bank option with another provider';
export const PROVIDER_NOT_APPROVED_403 =
  'The key lacks the permission or the organization is not active (no code), or PROVIDER_NOT_APPROVED';

const PAYMENT_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  400: 'VALIDATION_FAILED: the request is invalid; error.details lists each problem',
  403: 'The key lacks the permission, or the organization is not active',
  404: 'Payment not found (in this organization)',
  409: 'A state conflict; error.code says which',
  502: 'PROVIDER_UNAVAILABLE: the provider could not be reached; nothing changed, retry later',
  503: 'PROVIDER_NOT_CONFIGURED or HOSTED_PAGES_NOT_CONFIGURED',
} as const;

export const paymentErrorResponses = (
  ...rows: (
    | keyof typeof PAYMENT_ERROR_RESPONSES
    | [status: keyof typeof PAYMENT_ERROR_RESPONSES, text: string]
  )[]
) =>
  Object.fromEntries(
    rows.map((row) => (Array.isArray(row) ? row : [row, PAYMENT_ERROR_RESPONSES[row]])),
  ) as Record<number, string>;

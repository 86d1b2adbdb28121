import { ERROR_RESPONSES } from '../../catalogue/openapi-errors.ts';

/** Error rows of the payment operations, for `meta.openapi.errorResponses`. */
const PAYMENT_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  400: 'VALIDATION_FAILED (error.details lists each problem) or MOCK_BANK_ONLY',
  403: 'The key lacks the permission, the organization is not active, or PROVIDER_NOT_APPROVED',
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

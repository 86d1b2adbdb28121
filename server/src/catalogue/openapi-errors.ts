/** Error rows for `meta.openapi.errorResponses`, worded once for every router. */
export const ERROR_RESPONSES = {
  400: 'VALIDATION_FAILED: the request is invalid; error.details lists each problem',
  401: 'Missing or invalid API key',
  403: 'The key lacks the permission, or the organization is not active',
  404: 'Not found in the organization',
} as const;

export const errorResponses = (...statuses: (keyof typeof ERROR_RESPONSES)[]) =>
  Object.fromEntries(statuses.map((status) => [status, ERROR_RESPONSES[status]]));

import type { OpenAPIObject } from 'trpc-to-openapi';

/**
 * Realistic examples for the document, so the reference at /docs shows (and its curl samples
 * send) a body and parameters that work when pasted, with the merchant's own key
 * (issue 23 item 11). They are added by parameter and operation name, so an operation added
 * later gets the examples of the parameters it shares; Redocly and Spectral check each example
 * against its schema (server/test/openapi-generators.test.ts).
 */

/** Ids in the shapes the service issues (`pay_` + 24 base62; catalogue bank ids). */
const PAYMENT_ID = 'pay_7YKOenrdGEIGEgi83895RxLX';

const PARAMETER_EXAMPLES: Record<string, unknown> = {
  paymentId: PAYMENT_ID,
  id: 'mock-gb-albion',
  country: 'GB',
  search: 'albion',
  status: 'COMPLETED',
  provider: 'mock',
  limit: 20,
  offset: 0,
  page: 1,
};

const CREATE_PAYMENT = {
  amount: { value: '12.50', currency: 'GBP' },
  toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
  reference: 'Order 42',
  redirectUrl: 'https://shop.example/return?order=42',
  mockBank: { completeAfterSeconds: 5 },
};

/** Request bodies by "METHOD path". */
const BODY_EXAMPLES: Record<string, unknown> = {
  'post /payments': CREATE_PAYMENT,
  'post /payments/{paymentId}/mock-bank/approve': { preset: 'instant' },
  'post /payments/{paymentId}/mock-bank/reject': { reason: 'AM04' },
};

type Operation = {
  parameters?: Array<{ name: string; in: string; example?: unknown; schema?: { example?: unknown } }>;
  requestBody?: { content?: Record<string, { example?: unknown; examples?: unknown }> };
};

export function withExamples(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {}) as Array<[string, Operation]>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      for (const parameter of operation.parameters ?? []) {
        const example = PARAMETER_EXAMPLES[parameter.name];
        if (
          example !== undefined &&
          parameter.example === undefined &&
          parameter.schema?.example === undefined
        ) {
          parameter.example = example;
        }
      }
      const body = BODY_EXAMPLES[`${method} ${path}`];
      const json = operation.requestBody?.content?.['application/json'];
      if (body !== undefined && json && json.example === undefined && json.examples === undefined) {
        json.example = body;
      }
    }
  }
  return document;
}

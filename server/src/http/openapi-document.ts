import { FailureEnvelope } from '@pis/shared';
import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { Meta } from '../trpc/trpc.ts';

export const API_VERSION = '1.0.0';
export const API_KEY_SCHEME = 'ApiKeyAuth';

type JsonObject = Record<string, unknown>;
interface ResponseObject {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}

/**
 * The document is generated from the router, then told about what trpc-to-openapi cannot
 * know: every 2xx body is wrapped in the success envelope, every 4xx/5xx is the one failure
 * envelope (trpc-to-openapi's own error schemas are dropped), and declared `successStatus`
 * codes (201) replace 200.
 */
export function buildOpenApiDocument(router: AnyRouter, publicBaseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Payment Initiation Service',
    description:
      'Create account-to-account payments, send the customer to approve them, and read the result. ' +
      'Every response is an envelope: `{success: true, data}` or `{success: false, error}`. ' +
      'Authenticate with the `x-api-key` header.',
    version: API_VERSION,
    openApiVersion: '3.1.0',
    baseUrl: `${publicBaseUrl}/api`,
    securitySchemes: { [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    defs: { FailureEnvelope },
  });

  const successStatuses = successStatusByOperation(router);
  const failureRef = { $ref: '#/components/schemas/FailureEnvelope' };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, { responses?: JsonObject }>)) {
      const responses = operation.responses;
      if (!responses) continue;
      for (const [status, response] of Object.entries(responses) as [string, ResponseObject][]) {
        const json = response.content?.['application/json'];
        if (!json) continue;
        json.schema = status.startsWith('2')
          ? {
              type: 'object',
              required: ['success', 'data'],
              properties: { success: { type: 'boolean', enum: [true] }, data: json.schema ?? {} },
            }
          : failureRef;
      }
      addTransportFailures(operation as Operation, path, failureRef);
      const successStatus = successStatuses.get(`${method.toUpperCase()} ${path}`);
      if (successStatus && responses['200']) {
        operation.responses = { [successStatus]: responses['200'], ...withoutKey(responses, '200') };
      }
    }
  }
  const schemas = (document.components?.schemas ?? {}) as JsonObject;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  return document;
}

type Operation = { responses: Record<string, ResponseObject>; requestBody?: unknown };

/**
 * What the HTTP layer answers before any procedure runs, on every operation it can happen to:
 * 400 for a bad path parameter or broken URL, 413 / 415 for a body that is too large or not JSON.
 */
function addTransportFailures(operation: Operation, path: string, failureRef: unknown): void {
  const failure = (description: string): ResponseObject => ({
    description,
    content: { 'application/json': { schema: failureRef } },
  });
  if (path.includes('{') && !operation.responses['400']) {
    operation.responses['400'] = failure('VALIDATION_FAILED: a path parameter is invalid (error.details)');
  }
  if (operation.requestBody) {
    operation.responses['413'] ??= failure('PAYLOAD_TOO_LARGE: the body is over 100 KB');
    operation.responses['415'] ??= failure(
      'UNSUPPORTED_MEDIA_TYPE: the body must be JSON (Content-Type: application/json)',
    );
  }
}

function successStatusByOperation(router: AnyRouter): Map<string, number> {
  const statuses = new Map<string, number>();
  for (const procedure of Object.values(
    router._def.procedures as Record<string, { _def: { meta?: Meta } }>,
  )) {
    const meta = procedure._def.meta;
    if (meta?.openapi && meta.successStatus)
      statuses.set(`${meta.openapi.method} ${meta.openapi.path}`, meta.successStatus);
  }
  return statuses;
}

function withoutKey(object: JsonObject, key: string): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));
}

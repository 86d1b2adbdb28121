import { ERROR_KINDS, ErrorCode, FailureEnvelope, PUBLIC_ERROR_CODES } from '@pis/shared';
import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { type ErrorRows, transportErrorRows } from '../catalogue/openapi-errors.ts';
import type { Meta } from '../trpc/trpc.ts';

export const API_VERSION = '1.0.0';
export const API_KEY_SCHEME = 'ApiKeyAuth';

/** The promise of issue 14, also in the README: what may change within one API version. */
export const COMPATIBILITY_PROMISE = [
  '## Compatibility',
  'Within version 1 the API only grows. Without a new version we may add: operations; optional ' +
    'request fields and query parameters; fields in any response object (every response object ' +
    'allows unknown properties: ignore what you do not know); `error.code` values (accept codes you ' +
    'do not know and act on the HTTP status); error statuses on an operation for new failure cases. ' +
    'We will not, without a new version: remove or rename an operation, a field or an enum value; ' +
    "change a field's type or format; make an optional request field required; add values to " +
    '`PaymentStatus`, `FlowType` or the ISO codes; change what a success status means.',
  'Request objects are read as documented and unknown request fields are ignored (not refused); ' +
    'do not rely on sending them.',
].join('\n\n');

const RATE_LIMITS = [
  '## Rate limits',
  'Counted per API key, reads (GET) and writes apart, over fixed windows shared by every instance of ' +
    'the service (defaults: 600 reads and 120 writes a minute; the operator may change them). A ' +
    'counted answer carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and ' +
    '`RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers). Over the budget: 429 `RATE_LIMITED` ' +
    'with `Retry-After` in seconds; wait that long and retry. A request whose key is not proven is not counted.',
].join('\n\n');

const DESCRIPTION = [
  'Create account-to-account payments, send the customer to approve them, and read the result. ' +
    'Every response is an envelope: `{success: true, data}` or `{success: false, error}`, except ' +
    'the CSV of `GET /payments/export`. ' +
    'Authenticate with the `x-api-key` header.',
  RATE_LIMITS,
  COMPATIBILITY_PROMISE,
].join('\n\n');

/** Response headers every counted answer carries (see RATE_LIMITS), as components. */
const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: Schema }> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the current window for this key and kind (read or write)',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Policy': {
    description: 'The budget as `<limit>;w=<window seconds>`',
    schema: { type: 'string', example: '600;w=60' },
  },
};
const RETRY_AFTER = {
  description: 'Seconds to wait before the next request',
  schema: { type: 'integer', minimum: 0 },
};

const TAGS = [
  { name: 'Payments', description: 'Create, read, list, refresh and cancel payments' },
  { name: 'Banks', description: "Banks the organization's customers can pay from" },
  { name: 'Sandbox', description: 'Mock bank helpers for automated tests: play the customer' },
];

type JsonObject = Record<string, unknown>;
type Schema = JsonObject;
interface ResponseObject {
  description?: string;
  headers?: JsonObject;
  content?: Record<string, { schema?: Schema }>;
  'x-error-codes'?: string[];
}
interface Operation {
  responses: Record<string, ResponseObject>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
}

const SCHEMA_PREFIX = '#/components/schemas/';
const ref = (name: string, kind: 'schemas' | 'headers' = 'schemas') => ({
  $ref: kind === 'schemas' ? `${SCHEMA_PREFIX}${name}` : `#/components/headers/${name}`,
});
const refName = (schema: unknown): string | undefined => {
  const target = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof target === 'string' && target.startsWith(SCHEMA_PREFIX)
    ? target.slice(SCHEMA_PREFIX.length)
    : undefined;
};

/**
 * The document is generated from the router and the zod schemas in shared (each `.meta({ id })`
 * is one component), then told what trpc-to-openapi cannot know:
 * - every 2xx body is the success envelope around the procedure's output (one `<Name>Envelope`
 *   component per output), declared `successStatus` codes (201) replace 200;
 * - every failure status the service can answer on an operation is listed with the failure
 *   envelope and, in `x-error-codes`, the codes it carries (from the procedure's `meta.errors` and what the HTTP layer answers before any procedure runs); trpc-to-openapi's own error
 *   schemas, and its descriptions (cached per tRPC code, so one operation's text leaked into
 *   another's), are dropped;
 * - response objects allow unknown properties (additive changes must not break a strict
 *   decoder); request bodies with nothing required are optional;
 * - `error.code` is the `ErrorCode` enum.
 */
export function buildOpenApiDocument(
  router: AnyRouter,
  publicBaseUrl: string,
  /** The limits as this service applies them (rate-limits/rate-limits-docs.ts); the defaults' text without. */
  rateLimits: string = RATE_LIMITS,
): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: 'Payment Initiation Service',
    description: DESCRIPTION.replace(RATE_LIMITS, rateLimits),
    version: API_VERSION,
    openApiVersion: '3.1.0',
    baseUrl: `${publicBaseUrl}/api`,
    securitySchemes: { [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    defs: { FailureEnvelope, ErrorCode },
    // Generators and linters want both; the interactive reference is the place to start.
    contact: { name: 'Payment Initiation Service', url: `${publicBaseUrl}/docs` },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  });
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];

  const metas = metaByOperation(router);
  const inputs = inputByOperation(router);
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      const meta = metas.get(`${method.toUpperCase()} ${path}`);
      operation.responses = {
        ...(meta?.streamed
          ? streamedResponse(meta.streamed)
          : successResponses(operation, meta?.successStatus, schemas)),
        ...failureResponses(method, meta?.errors),
      };
      if (operation.requestBody)
        describeRequestBody(operation.requestBody, schemas, inputs.get(`${method.toUpperCase()} ${path}`));
    }
  }

  document.components = {
    ...document.components,
    headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER },
  } as typeof document.components;
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      for (const response of Object.values(operation.responses) as ResponseObject[]) {
        const rateLimit = Object.fromEntries(
          Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, ref(name, 'headers')]),
        );
        response.headers = { ...rateLimit, ...response.headers };
      }
    }
  }

  openResponseObjects(document, schemas);
  mergeOutputTwins(document, schemas);
  for (const name of ['Error', 'ErrorOutput']) {
    const properties = schemas[name]?.properties as JsonObject | undefined;
    if (properties?.code) properties.code = ref('ErrorCode');
  }
  dropUnusedComponents(document, schemas);
  (document as { tags?: unknown }).tags = TAGS;
  return document;
}

function metaByOperation(router: AnyRouter): Map<string, Meta> {
  const metas = new Map<string, Meta>();
  for (const procedure of Object.values(
    router._def.procedures as Record<string, { _def: { meta?: Meta } }>,
  )) {
    const meta = procedure._def.meta;
    if (meta?.openapi) metas.set(`${meta.openapi.method} ${meta.openapi.path}`, meta);
  }
  return metas;
}

function inputByOperation(router: AnyRouter): Map<string, z.ZodType> {
  const inputs = new Map<string, z.ZodType>();
  for (const procedure of Object.values(
    router._def.procedures as Record<string, { _def: { meta?: Meta; inputs?: z.ZodType[] } }>,
  )) {
    const { meta, inputs: parsers } = procedure._def;
    if (meta?.openapi && parsers?.[0]) inputs.set(`${meta.openapi.method} ${meta.openapi.path}`, parsers[0]);
  }
  return inputs;
}

/** The 2xx answer: the success envelope around the output, under its declared status. */
function successResponses(
  operation: Operation,
  successStatus: number | undefined,
  schemas: Record<string, Schema>,
): Record<string, ResponseObject> {
  const generated = operation.responses['200'];
  if (!generated) return {};
  const json = generated.content?.['application/json'];
  if (json) json.schema = envelopeOf(json.schema ?? {}, schemas);
  return { [String(successStatus ?? 200)]: { ...generated, description: generated.description ?? 'OK' } };
}

/**
 * A streamed answer (meta.streamed): the one exception to the envelope rule. Its media type with
 * a string body and an example; failures keep the failure envelope.
 */
function streamedResponse(streamed: NonNullable<Meta['streamed']>): Record<string, ResponseObject> {
  return {
    '200': {
      description: `${streamed.description} Not a JSON envelope: the exception to the envelope rule (failures before the first byte still answer the failure envelope).`,
      content: { [streamed.contentType]: { schema: { type: 'string' }, example: streamed.example } as never },
    },
  };
}

/** `<Name>Envelope` for a named output (one component, however many operations answer it). */
function envelopeOf(data: Schema, schemas: Record<string, Schema>): Schema {
  const envelope = {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean', const: true }, data },
  };
  const name = refName(data);
  if (!name) return envelope;
  const envelopeName = `${name.replace(/Output$/, '')}Envelope`;
  schemas[envelopeName] ??= { ...envelope, description: `A successful answer carrying a ${name}` };
  return ref(envelopeName);
}

/** Every failure status of the operation, each with the codes it can carry. */
function failureResponses(method: string, declared: ErrorRows | undefined): Record<string, ResponseObject> {
  const rows = new Map<number, { texts: string[]; codes: Set<string> }>();
  const add = (status: number, text: string, codes: readonly string[] = []) => {
    const row = rows.get(status) ?? { texts: [], codes: new Set<string>() };
    row.texts.push(text);
    for (const code of codes) row.codes.add(code);
    rows.set(status, row);
  };
  // A procedure's codes in the ErrorCode enum's order.
  const inEnumOrder = (codes: readonly string[]) => PUBLIC_ERROR_CODES.filter((code) => codes.includes(code));
  for (const [status, row] of Object.entries(declared ?? {}))
    add(Number(status), row.text, inEnumOrder(row.codes));
  for (const row of transportErrorRows(method.toUpperCase())) {
    if (!rows.has(row.status) || row.always) add(row.status, row.text, row.codes);
    else for (const code of row.codes) rows.get(row.status)?.codes.add(code);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, { texts, codes }] of [...rows].sort(([a], [b]) => a - b)) {
    const listed = [...codes];
    const codeless = Object.values(ERROR_KINDS).some((kind) => kind.status === status && !kind.publicCode);
    const codeText = [
      listed.length > 0 ? `error.code: ${listed.join(', ')}` : '',
      codeless ? 'no error.code where the spec gives none' : '',
    ]
      .filter(Boolean)
      .join('; ');
    responses[String(status)] = {
      description: `${texts.join('. ')}${codeText ? ` (${codeText})` : ''}`,
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': ref('Retry-After', 'headers') } }
        : {}),
      content: { 'application/json': { schema: ref('FailureEnvelope') } },
      'x-error-codes': listed,
    };
  }
  return responses;
}

/**
 * trpc-to-openapi rebuilds each body from the input (minus path parameters), which drops the
 * input schema's id and its `override` (the rules JSON Schema can say: `if`/`then`): a body
 * whose input has an id becomes that component again, with its override applied. A body with
 * no required field is optional (a generated client must not be made to send `{}`).
 */
function describeRequestBody(
  body: NonNullable<Operation['requestBody']>,
  schemas: Record<string, Schema>,
  input: z.ZodType | undefined,
): void {
  const meta = input ? z.globalRegistry.get(input) : undefined;
  for (const media of Object.values(body.content ?? {})) {
    const schema = media.schema;
    if (!schema) continue;
    if (typeof meta?.id === 'string' && !refName(schema)) {
      const { description: _generic, ...rendered } = schema;
      const component: Schema = {
        ...rendered,
        ...(meta.description ? { description: meta.description } : {}),
      };
      // zod-openapi's `override` (zod's own type knows a narrower one): a function or an object.
      const override = meta.override as unknown as ((context: JsonObject) => void) | JsonObject | undefined;
      if (typeof override === 'function') override({ jsonSchema: component, zodSchema: input, io: 'input' });
      else if (override) Object.assign(component, override);
      schemas[meta.id] = component;
      media.schema = ref(meta.id);
    }
    const resolved = schemas[refName(media.schema) ?? ''] ?? media.schema ?? {};
    const required = resolved.required as unknown[] | undefined;
    body.required = Array.isArray(required) && required.length > 0;
  }
}

/**
 * Calls `visit` on every object of a JSON tree. With `schemas`, a `$ref` to a component is
 * followed too, once: `followed` ends up holding every component the tree reaches.
 */
function eachObject(
  node: unknown,
  visit: (object: JsonObject) => void,
  schemas?: Record<string, Schema>,
  followed = new Set<string>(),
): void {
  if (Array.isArray(node)) {
    for (const item of node) eachObject(item, visit, schemas, followed);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const object = node as JsonObject;
  visit(object);
  const name = schemas && refName(object);
  if (name && !followed.has(name)) {
    followed.add(name);
    eachObject(schemas[name], visit, schemas, followed);
  }
  for (const value of Object.values(object)) eachObject(value, visit, schemas, followed);
}

/** Response objects (and every component they reach) accept properties added later. */
function openResponseObjects(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  const followed = new Set<string>();
  const open = (object: JsonObject) => {
    if (object.additionalProperties === false) delete object.additionalProperties;
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      for (const response of Object.values(operation.responses)) {
        eachObject(response.content, open, schemas, followed);
      }
    }
  }
}

/**
 * zod-openapi names a schema rendered for both requests and responses `<Name>Output` when the
 * two renderings differ; once responses are open they are usually the same again: keep one.
 */
function mergeOutputTwins(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.replace(/Output$/, '');
    if (base !== name && schemas[base] && JSON.stringify(schemas[base]) === JSON.stringify(schemas[name])) {
      renames.set(name, base);
    }
  }
  if (renames.size === 0) return;
  const rename = (object: JsonObject) => {
    const target = renames.get(refName(object) ?? '');
    if (target) object.$ref = `${SCHEMA_PREFIX}${target}`;
  };
  for (const name of renames.keys()) delete schemas[name];
  eachObject(document.paths, rename);
  eachObject(schemas, rename);
  // A renamed twin can make another pair equal (ErrorOutput -> Error makes the envelopes match).
  mergeOutputTwins(document, schemas);
}

/** Components nothing refers to (linters flag them; the document stays what clients use). */
function dropUnusedComponents(document: OpenAPIObject, schemas: Record<string, Schema>): void {
  const used = new Set<string>();
  eachObject(document.paths, () => undefined, schemas, used);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

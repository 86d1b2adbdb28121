import { ERROR_KINDS } from '@pis/shared';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

// ajv-formats is CommonJS: its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;

type OpenApiDocument = {
  paths: Record<string, Record<string, { responses: Record<string, { 'x-error-codes'?: string[] }> }>>;
};

/** What a response was, as far as the document is concerned. */
export interface AnsweredRequest {
  method: string;
  url: string;
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Statuses where the spec gives no `error.code` (401, plain 403, 404): a code-less body is fine there. */
const CODELESS_STATUSES = new Set<number>(
  Object.values(ERROR_KINDS)
    .filter((kind) => !kind.publicCode)
    .map((kind) => kind.status),
);

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/**
 * Checks answers of /api operations against the served OpenAPI document: the status must be
 * listed for the operation, the body must match that response's schema, and a failure's
 * `error.code` must be one the document lists for that status (`x-error-codes`). Requests to
 * anything the document does not describe (other paths, methods, HEAD) are not its business.
 */
/** A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) holding the document as `openapi.json`. */
export const documentValidator = (document: object): Ajv2020 => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi.json');
  return ajv;
};

export const responseContract = (document: OpenApiDocument) => {
  const ajv = documentValidator(document);
  const validators = new Map<string, ValidateFunction>();
  // Static paths win over templated ones (/payments/providers is not /payments/{paymentId}).
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{[^}]+\}/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  /** Why the answer is not what the document says, or undefined when it is. */
  return (answer: AnsweredRequest): string | undefined => {
    const method = answer.method.toLowerCase();
    const path = new URL(answer.url, 'http://localhost').pathname;
    if (method === 'head' || !path.startsWith('/api/')) return undefined;
    const template = templates.find(
      (candidate) => candidate.pattern.test(path.slice(4)) && document.paths[candidate.template]?.[method],
    )?.template;
    if (!template) return undefined;
    const name = `${method.toUpperCase()} ${template}`;
    const responses = document.paths[template]?.[method]?.responses ?? {};
    const status = String(answer.statusCode);
    const documented = responses[status];
    if (!documented) {
      return `${name} answered ${status}, which the document does not list (it lists ${Object.keys(responses).join(', ')})`;
    }
    const contentType = String(answer.headers['content-type'] ?? '');
    // A streamed answer (the export's CSV): its documented media type is the whole contract.
    const media = Object.keys((documented as { content?: object }).content ?? {});
    if (!contentType.startsWith('application/json') && media.includes(contentType)) return undefined;
    if (!contentType.startsWith('application/json')) return `${name} ${status} answered ${contentType}`;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return `${name} ${status} answered a body that is not JSON`;
    }
    const key = `${template} ${method} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      const ref = `openapi.json#/${pointer('paths', template, method, 'responses', status, 'content', 'application/json', 'schema')}`;
      validate = ajv.compile({ $ref: ref });
      validators.set(key, validate);
    }
    if (!validate(body)) {
      return `${name} ${status} body does not match the document: ${ajv.errorsText(validate.errors)}\n${answer.body.slice(0, 500)}`;
    }
    if (answer.statusCode >= 400) {
      const code = (body as { error?: { code?: string } }).error?.code;
      const codes = documented['x-error-codes'] ?? [];
      if (code === undefined && !CODELESS_STATUSES.has(answer.statusCode) && codes.length > 0) {
        return `${name} ${status} answered without error.code; the document promises one of ${codes.join(', ')}`;
      }
      if (code !== undefined && !codes.includes(code)) {
        return `${name} ${status} answered error.code ${code}; the document lists ${codes.join(', ') || 'none'}`;
      }
    }
    return undefined;
  };
};

/**
 * Makes every `app.inject` of a test check its answer against the document the app serves
 * (issue 14): a new status, field or error code the document lacks fails the test that saw it.
 */
export const checkAnswersAgainstDocument = async (app: FastifyInstance): Promise<void> => {
  const inject = app.inject.bind(app) as (options: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const document = (await inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDocument;
  const check = responseContract(document);
  const checked = async (options: InjectOptions | string) => {
    const response = await inject(options);
    const request = typeof options === 'string' ? { method: 'GET', url: options } : options;
    const problem = check({
      method: request.method ?? 'GET',
      url: String(request.url ?? request.path ?? '/'),
      statusCode: response.statusCode,
      headers: response.headers,
      body: response.body,
    });
    if (problem) throw new Error(`The OpenAPI document does not describe this answer: ${problem}`);
    return response;
  };
  app.inject = checked as unknown as FastifyInstance['inject'];
};

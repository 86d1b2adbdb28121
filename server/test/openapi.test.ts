import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, test } from 'vitest';
import { createTestApp } from './helpers/test-app.ts';

const { app } = await createTestApp({ config: { publicBaseUrl: 'https://pay.example.com' } });
const response = await app.inject({ method: 'GET', url: '/api/openapi.json' });
const document = response.json();

type Operation = {
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    { description?: string; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
};
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation,
    })),
);

/** A response schema, through its `$ref` (2xx bodies are named envelope components). */
const resolve = (schema: Record<string, unknown> | undefined): Record<string, unknown> | undefined => {
  const ref = schema?.$ref;
  return typeof ref === 'string'
    ? document.components.schemas[ref.replace('#/components/schemas/', '')]
    : schema;
};

describe('GET /api/openapi.json', () => {
  test('is a valid OpenAPI 3 document (swagger-parser)', async () => {
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
  });

  test('version 1.0.0, server = PUBLIC_BASE_URL + /api, x-api-key scheme', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers).toEqual([{ url: 'https://pay.example.com/api' }]);
    expect(Object.values(document.components.securitySchemes)).toEqual([
      { type: 'apiKey', in: 'header', name: 'x-api-key' },
    ]);
  });

  test('documents every endpoint of the spec', () => {
    expect(operations.map((operation) => operation.name)).toEqual(
      expect.arrayContaining([
        'POST /payments',
        'GET /payments',
        'GET /payments/providers',
        'GET /payments/{paymentId}',
        'POST /payments/{paymentId}/sync',
        'POST /payments/{paymentId}/cancel',
        'GET /banks',
        'GET /banks/providers',
        'GET /banks/{id}',
      ]),
    );
  });

  test('every operation needs the key; 2xx are success envelopes, 4xx/5xx the failure envelope', () => {
    const scheme = Object.keys(document.components.securitySchemes)[0] as string;
    for (const { name, operation } of operations) {
      expect(operation.security, name).toEqual([{ [scheme]: [] }]);
      const statuses = Object.keys(operation.responses);
      expect(
        statuses.some((status) => status.startsWith('2')),
        name,
      ).toBe(true);
      expect(statuses, name).toEqual(expect.arrayContaining(['401', '403']));
      for (const [status, body] of Object.entries(operation.responses)) {
        const schema = resolve(body.content?.['application/json']?.schema);
        if (status.startsWith('2') && name === 'GET /payments/export') {
          // The one exception to the envelope rule, and said so: a CSV stream.
          expect(Object.keys(body.content ?? {}), name).toEqual(['text/csv; charset=utf-8']);
          expect(body.description, name).toContain('Not a JSON envelope');
        } else if (status.startsWith('2')) {
          expect(schema?.required, `${name} ${status}`).toEqual(['success', 'data']);
          expect(schema?.properties, `${name} ${status}`).toMatchObject({ success: { const: true } });
        } else {
          expect(body.content?.['application/json']?.schema, `${name} ${status}`).toEqual({
            $ref: '#/components/schemas/FailureEnvelope',
          });
        }
      }
    }
    const failure = document.components.schemas.FailureEnvelope;
    expect(failure.required).toEqual(['success', 'error']);
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
  });

  test('what the HTTP layer answers is documented: 413/415 on bodies, 400 on path parameters', () => {
    const create = document.paths['/payments'].post.responses;
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['413', '415']));
    for (const path of ['/payments/{paymentId}', '/banks/{id}']) {
      expect(Object.keys(document.paths[path].get.responses), path).toContain('400');
    }
  });

  test('payment creation is documented as 201', () => {
    const create = operations.find((operation) => operation.name === 'POST /payments');
    expect(Object.keys(create?.operation.responses ?? {})).toContain('201');
    expect(Object.keys(create?.operation.responses ?? {})).not.toContain('200');
  });
});

test('/docs serves the interactive reference of that document', async () => {
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.body).toContain('/api/openapi.json');
});

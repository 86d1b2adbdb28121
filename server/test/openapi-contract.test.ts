import { CreatePaymentInput, PUBLIC_ERROR_CODES } from '@pis/shared';
import { describe, expect, it } from 'vitest';
import { COMPATIBILITY_PROMISE } from '../src/http/openapi-document.ts';
import { documentValidator, responseContract } from './helpers/response-contract.ts';
import { createTestApp } from './helpers/test-app.ts';

// Issue 14: a document generated clients can live on. (openapi.test.ts checks it is valid and
// complete; openapi-generators.test.ts runs real generators and linters over it.)

const { app, factories } = await createTestApp();
const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
const schemas = document.components.schemas as Record<string, Record<string, unknown>>;

type Response = { 'x-error-codes'?: string[]; content?: { 'application/json'?: { schema?: unknown } } };
type Operation = {
  responses: Record<string, Response>;
  requestBody?: { required?: boolean; content: unknown };
};
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      method,
      operation,
    })),
);
const operation = (name: string) => operations.find((candidate) => candidate.name === name)!.operation;

/** Every object in a JSON tree, with its path. */
const walk = function* (node: unknown, path = '#'): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* walk(item, `${path}/${index}`);
  } else if (node && typeof node === 'object') {
    yield [path, node as Record<string, unknown>];
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${path}/${key}`);
  }
};

describe('1. one named component per resource and value type', () => {
  it('has the components a generator needs, generated from shared', () => {
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'Payment',
        'CreatedPayment',
        'HistoryEntry',
        'IsoStatus',
        'Amount',
        'Account',
        'Reference',
        'Bank',
        'PaymentStatus',
        'FlowType',
        'MockBankScenario',
        'PaymentEnvelope',
        'FailureEnvelope',
        'Error',
        'ErrorCode',
        'CreatePaymentRequest',
      ]),
    );
    expect(Object.keys(schemas).filter((name) => /Output$|^error\.|^__schema/.test(name))).toEqual([]);
  });

  it('every schema that appears more than once is a $ref to one component', () => {
    const seen = new Map<string, string[]>();
    for (const [path, node] of walk({ paths: document.paths, components: document.components })) {
      const isSchemaOfSubstance =
        (node.type === 'object' && node.properties) || (Array.isArray(node.enum) && node.enum.length > 1);
      if (!isSchemaOfSubstance || path.split('/').length <= 4) continue; // components themselves
      const key = JSON.stringify(node);
      seen.set(key, [...(seen.get(key) ?? []), path]);
    }
    const repeated = [...seen.values()].filter((paths) => paths.length > 1);
    expect(repeated).toEqual([]);
  });
});

describe('2. every answer listed, with its codes', () => {
  it('429 RATE_LIMITED, 500 INTERNAL_ERROR and 503 SERVICE_UNAVAILABLE on every operation; 413/415 on every POST; rate-limit headers on every answer', () => {
    for (const { name, method, operation } of operations) {
      expect(operation.responses['429']?.['x-error-codes'], name).toEqual(['RATE_LIMITED']);
      expect(operation.responses['500']?.['x-error-codes'], name).toEqual(['INTERNAL_ERROR']);
      expect(operation.responses['503']?.['x-error-codes'], name).toContain('SERVICE_UNAVAILABLE');
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys((response as { headers?: object }).headers ?? {});
        expect(headers, `${name} ${status}`).toEqual(
          expect.arrayContaining([
            'RateLimit-Limit',
            'RateLimit-Remaining',
            'RateLimit-Reset',
            'RateLimit-Policy',
          ]),
        );
        if (status === '429' || status === '503')
          expect(headers, `${name} ${status}`).toContain('Retry-After');
      }
      if (method === 'post') {
        expect(operation.responses['413']?.['x-error-codes'], name).toEqual(['PAYLOAD_TOO_LARGE']);
        expect(operation.responses['415']?.['x-error-codes'], name).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
      }
    }
  });

  it('sync reports the provider failure; cancel its provider failures and the conflict', () => {
    expect(operation('POST /payments/{paymentId}/sync').responses['502']?.['x-error-codes']).toEqual([
      'PROVIDER_UNAVAILABLE',
    ]);
    const cancel = operation('POST /payments/{paymentId}/cancel').responses;
    expect(cancel['409']?.['x-error-codes']).toEqual([
      'PAYMENT_NOT_CANCELLABLE',
      'PROVIDER_CALL_IN_PROGRESS',
    ]);
    expect(cancel['502']?.['x-error-codes']).toEqual(['PROVIDER_UNAVAILABLE']);
    expect(cancel['503']?.['x-error-codes']).toEqual(['PROVIDER_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE']);
  });

  it('the response check refuses what the document does not say (so it can fail)', () => {
    const check = responseContract(document);
    const answer = (statusCode: number, body: unknown, url = '/api/payments?limit=5') => ({
      method: 'GET',
      url,
      statusCode,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });
    const page = { payments: [], total: 0, limit: 5, offset: 0 };
    expect(check(answer(200, { success: true, data: page }))).toBeUndefined();
    // Open for additive change: an unknown field is fine.
    expect(check(answer(200, { success: true, data: { ...page, cursor: 'x' } }))).toBeUndefined();
    expect(check(answer(418, { success: false, error: { message: 'teapot' } }))).toMatch(
      /GET \/payments answered 418, which the document does not list/,
    );
    expect(check(answer(200, { success: true, data: { payments: [] } }))).toMatch(
      /must have required property/,
    );
    expect(
      check(answer(400, { success: false, error: { message: 'x', code: 'PAYMENT_NOT_CANCELLABLE' } })),
    ).toMatch(/error.code PAYMENT_NOT_CANCELLABLE; the document lists VALIDATION_FAILED/);
    expect(check(answer(400, { success: false, error: { message: 'x' } }))).toMatch(/without error.code/);
    expect(check(answer(404, { success: false, error: { message: 'Not found' } }))).toMatch(/does not list/);
    // Not an operation of the document: not its business.
    expect(check(answer(404, 'x', '/api/nowhere'))).toBeUndefined();
  });
});

describe('3. typed error codes', () => {
  it('error.code is the ErrorCode enum of every code the service emits, RATE_LIMITED included', () => {
    expect((schemas.Error as { properties: Record<string, unknown> }).properties.code).toEqual({
      $ref: '#/components/schemas/ErrorCode',
    });
    const errorCode = schemas.ErrorCode as {
      enum: string[];
      description: string;
      'x-enum-descriptions': string[];
    };
    expect(errorCode.enum).toEqual(PUBLIC_ERROR_CODES);
    expect(errorCode.enum).toContain('RATE_LIMITED');
    expect(errorCode['x-enum-descriptions']).toHaveLength(errorCode.enum.length);
    expect(errorCode.description).toMatch(/clients must accept codes they do not know/);
    for (const code of errorCode.enum) expect(errorCode.description).toContain(`\`${code}\``);
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const code of response['x-error-codes'] ?? [])
          expect(errorCode.enum, `${name} ${status}`).toContain(code);
      }
    }
  });
});

describe('4. open for additive change', () => {
  it('no response object is closed; the compatibility promise is in info.description', () => {
    const closed = [...walk(document)].filter(([, node]) => node.additionalProperties === false);
    expect(closed.map(([path]) => path)).toEqual([]);
    expect(document.info.description).toContain(COMPATIBILITY_PROMISE);
    expect(schemas.CreatePaymentRequest?.description).toMatch(/Unknown fields are ignored/);
  });
});

describe('5. rules in the schema', () => {
  const documentSays = documentValidator(document).compile({
    $ref: 'openapi.json#/components/schemas/CreatePaymentRequest',
  });
  const base = {
    toAccount: { accountName: 'Acme', iban: 'GB33BUKB20201555555555' },
    amount: { value: '10.50', currency: 'GBP' },
  };

  it('a client validating with the document agrees with the server', () => {
    const bodies: unknown[] = [
      base,
      { ...base, amount: { value: '0.0001', currency: 'EUR' } },
      { ...base, amount: { value: '0.01', currency: 'EUR' } },
      { ...base, amount: { value: '0.001', currency: 'KWD' } },
      { ...base, amount: { value: '1000', currency: 'JPY' } },
      { ...base, amount: { value: '1000.5', currency: 'JPY' } },
      { ...base, amount: { value: 1000.5, currency: 'JPY' } },
      { ...base, amount: { value: '0.0001', currency: 'GBP' } },
      { ...base, amount: { currency: 'GBP' } },
      { ...base, amount: { value: 12, currency: 'GBP' } },
      { ...base, amount: { value: '007.50', currency: 'GBP' } },
      { ...base, amount: { value: '0', currency: 'GBP' } },
      { ...base, amount: { value: '0.00', currency: 'GBP' } },
      { ...base, amount: { value: '1.23456', currency: 'GBP' } },
      { ...base, amount: { value: '-1', currency: 'GBP' } },
      { ...base, amount: { value: 0, currency: 'GBP' } },
      { ...base, amount: { value: '1e3', currency: 'GBP' } },
      { ...base, amount: { value: '10.50', currency: 'XXX' } },
      { ...base, amount: { value: '10.50', currency: 'gbp' } },
      { ...base, toAccount: { accountName: 'A', sortCode: '04-00-04', accountNumber: '12345678' } },
      { ...base, toAccount: { accountName: 'A', sortCode: '040004' } },
      { ...base, toAccount: { accountName: 'A', accountNumber: '12345678' } },
      { ...base, toAccount: { accountName: 'A' } },
      { ...base, toAccount: { accountName: '', iban: 'GB33BUKB20201555555555' } },
      { ...base, flowType: 'EMBEDDED_HOSTED_PAGES' },
      { ...base, flowType: 'EMBEDDED_HOSTED_PAGES', bankId: 'mock-gb-albion' },
      { ...base, flowType: 'HOSTED_PAGES' },
      { ...base, provider: 'Acme!' },
      { ...base, provider: 'acme' },
      { ...base, reference: 'x'.repeat(140) },
      { ...base, reference: 'x'.repeat(141) },
      { ...base, reference: { reference: 'Order 1', endToEndId: 'E'.repeat(36) } },
      { ...base, redirectUrl: 'https://shop.example/return?order=1' },
      { ...base, mockBank: { completeAfterSeconds: 3601 } },
      { ...base, mockBank: { preset: 'slow', rejectReason: 'AM04' } },
      { ...base, somethingNew: true },
    ];
    const disagreements = bodies.filter(
      (body) => documentSays(body) !== CreatePaymentInput.safeParse(body).success,
    );
    expect(disagreements).toEqual([]);
  });

  it('an amount needs both value and currency, and has no per-currency decimals rule', () => {
    const amount = schemas.AmountInput as { required?: string[]; allOf?: unknown };
    expect([...(amount.required ?? [])].sort()).toEqual(['currency', 'value']);
    expect(amount.allOf).toBeUndefined();
  });

  it('the amount pattern is positive with at most 4 decimal places, like the server', () => {
    const amount = schemas.AmountInput as { properties: { value: { anyOf: { pattern?: string }[] } } };
    const pattern = new RegExp(amount.properties.value.anyOf[0]?.pattern ?? 'missing');
    for (const value of ['1', '0.1', '0.0001', '10.5', '007.50', '123456789012345.1234', '0.01']) {
      expect(pattern.test(value), value).toBe(true);
    }
    for (const value of ['0', '0.0', '0.0000', '', '.5', '1.', '1.23456', '-1', '1e3', ' 1', '0.00001']) {
      expect(pattern.test(value), value).toBe(false);
    }
  });
});

describe('6. sandbox operations described exactly', () => {
  it('optional bodies are optional; 409 names the real codes', () => {
    for (const name of [
      'POST /payments/{paymentId}/mock-bank/approve',
      'POST /payments/{paymentId}/mock-bank/reject',
    ]) {
      const { requestBody, responses } = operation(name);
      expect(requestBody?.required, name).toBe(false);
      expect([...(responses['409']?.['x-error-codes'] ?? [])].sort(), name).toEqual([
        'BANK_NOT_CHOSEN',
        'PAYMENT_ALREADY_DECIDED',
        'PROVIDER_CALL_IN_PROGRESS',
      ]);
      expect(JSON.stringify(responses['409']), name).not.toContain('IDEMPOTENCY_KEY_REUSED');
    }
    expect(operation('POST /payments').requestBody?.required).toBe(true);
  });

  it('the server does accept them without a body', async () => {
    const { headers } = await factories.createMerchant();
    const create = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers,
      payload: {
        toAccount: { accountName: 'A', iban: 'GB33BUKB20201555555555' },
        amount: { value: '1', currency: 'GBP' },
      },
    });
    const { paymentId } = create.json().data;
    const approve = await app.inject({
      method: 'POST',
      url: `/api/payments/${paymentId}/mock-bank/approve`,
      headers,
    });
    expect(approve.statusCode).toBe(200);
    const again = await app.inject({
      method: 'POST',
      url: `/api/payments/${paymentId}/mock-bank/reject`,
      headers,
    });
    expect(again.json().error.code).toBe('PAYMENT_ALREADY_DECIDED');
  });
});

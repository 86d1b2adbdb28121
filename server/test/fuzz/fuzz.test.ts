import { FailureEnvelope, MOCK_BANK_CATALOGUE, PAYMENT_STATUSES } from '@pis/shared';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, test } from 'vitest';
import { appRouter } from '../../src/app-router.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, paymentBody, tokenOf } from '../payments/payment-fixtures.ts';
import {
  bodyText,
  contentType,
  type FuzzRequest,
  methodNoise,
  mutatedInput,
  pathParameter,
  queryString,
} from './fuzz-requests.ts';

/**
 * No input makes a 5xx, and every /api answer is the envelope. `npm test` runs a few thousand
 * cases; `npm run fuzz` runs FUZZ_RUNS (100,000) of them, split 2:1 between the REST operations
 * (taken from the OpenAPI document) and the customer pages' tRPC procedures.
 */
// A test-runner knob, not service configuration: it never reaches the app.
const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
const API_RUNS = Math.ceil((TOTAL_RUNS * 2) / 3);
const PAGE_RUNS = TOTAL_RUNS - API_RUNS;
/** A guard, not a target: 2-5 ms a request on a quiet machine, much more on a busy shared one. */
const timeoutFor = (runs: number) => 60_000 + runs * 100;

const { app, factories } = await createTestApp();
const merchant = await factories.createMerchant();
const reader = await factories.createMerchant('read');

const apiOnly = await Promise.all([1, 2, 3].map(() => created(app, merchant.headers)));
const hosted = await Promise.all(
  [1, 2, 3].map(() => created(app, merchant.headers, paymentBody({ flowType: 'HOSTED_PAGES' }))),
);
const paymentIds = [...apiOnly, ...hosted].map((payment) => payment.paymentId);
const mockBankTokens = apiOnly.map((payment) => tokenOf(payment.redirectUrl));
const hostedTokens = hosted.map((payment) => tokenOf(payment.redirectUrl));
const bankIds = MOCK_BANK_CATALOGUE.slice(0, 4).map((bank) => bank.id);

interface Operation {
  method: string;
  path: string;
  query: Record<string, readonly string[]>;
  bodies: readonly Json[] | undefined;
}
type Json = Parameters<typeof mutatedInput>[0][number];

const QUERY_VALUES: Record<string, readonly string[]> = {
  status: PAYMENT_STATUSES,
  provider: ['mock', 'other'],
  limit: ['1', '20', '100'],
  offset: ['0', '2'],
  country: ['GB', 'ie', 'DE'],
  paymentMethod: ['faster_payments', 'sepa_credit_transfer'],
  search: ['albion', 'a'],
  page: ['1', '2'],
};

const BODIES: Record<string, readonly Json[]> = {
  'POST /payments': [
    paymentBody(),
    paymentBody({
      amount: { value: 12.5, currency: 'EUR' },
      toAccount: { accountName: 'A', iban: 'DE89370400440532013000' },
    }),
    paymentBody({ flowType: 'HOSTED_PAGES', reference: { reference: 'Inv 1', endToEndId: 'E2E-1' } }),
    paymentBody({ flowType: 'EMBEDDED_HOSTED_PAGES', bankId: 'mock-gb-albion' }),
    paymentBody({ mockBank: { preset: 'realistic', rejectReason: 'AM04' } }),
  ] as Json[],
  'POST /payments/{paymentId}/mock-bank/approve': [{}, { preset: 'realistic' }, { completeAfterSeconds: 30 }],
  'POST /payments/{paymentId}/mock-bank/reject': [{}, { reason: 'AM04' }],
};

const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>
  >;
};
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const upper = method.toUpperCase();
    const query = Object.fromEntries(
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => [parameter.name, QUERY_VALUES[parameter.name] ?? ['x']]),
    );
    const bodies = upper === 'GET' ? undefined : (BODIES[`${upper} ${path}`] ?? [{}]);
    return { method: upper, path, query, bodies };
  }),
);

const apiKeyHeader = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>(merchant.headers) },
  { weight: 1, arbitrary: fc.constant<Record<string, string>>(reader.headers) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>({}, { 'x-api-key': 'pis_nope' }, { 'x-api-key': '' }),
  },
);

const apiRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...operations).chain((operation) =>
  fc
    .record({
      path: fc
        .tuple(pathParameter(paymentIds), pathParameter(bankIds))
        .map(([paymentId, bankId]) =>
          operation.path.replace('{paymentId}', paymentId).replace('{id}', bankId),
        ),
      query: queryString(operation.query),
      body: operation.bodies ? bodyText(mutatedInput(operation.bodies)) : fc.constant(undefined),
      type: contentType,
      key: apiKeyHeader,
      idempotencyKey: fc.option(fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), { freq: 4 }),
      method: methodNoise,
    })
    .map((parts) => ({
      method: parts.method ?? operation.method,
      url: `/api${parts.path}${parts.query}`,
      headers: {
        ...parts.key,
        ...(parts.type !== undefined ? { 'content-type': parts.type } : {}),
        ...(parts.idempotencyKey !== null ? { 'idempotency-key': parts.idempotencyKey } : {}),
      },
      ...(parts.body !== undefined ? { payload: parts.body } : {}),
    })),
);

type PageProcedure = { name: string; type: 'query' | 'mutation'; seeds: Json[] };
const PAGE_SEEDS: Record<string, (token: string) => Json> = {
  hostedSession: (token) => ({ token }),
  hostedBanks: (token) => ({ token, country: 'GB', search: 'a', page: 1, limit: 5 }),
  chooseBank: (token) => ({ token, bankId: 'mock-gb-albion' }),
  mockBankSession: (token) => ({ token }),
  approve: (token) => ({ token, scenario: { preset: 'realistic' } }),
  reject: (token) => ({ token, reason: 'CUST' }),
};
const pageProcedures: PageProcedure[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation' } }>,
)
  .filter(([path]) => path.startsWith('pages.'))
  .map(([path, procedure]) => {
    const name = path.slice('pages.'.length);
    const seed = PAGE_SEEDS[name] ?? ((token: string) => ({ token }));
    const tokens = name.startsWith('hosted') || name === 'chooseBank' ? hostedTokens : mockBankTokens;
    return { name, type: procedure._def.type, seeds: [...tokens, 'not-a-token'].map(seed) };
  });

const pageRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom(...pageProcedures), fc.boolean(), contentType, methodNoise)
  .chain(([procedure, batched, type, method]) =>
    bodyText(mutatedInput(procedure.seeds)).map((text): FuzzRequest => {
      const path = batched ? `pages.${procedure.name},pages.${procedure.name}` : `pages.${procedure.name}`;
      const input = batched ? `{"0":${text},"1":${text}}` : text;
      const batch = batched ? 'batch=1&' : '';
      if (procedure.type === 'query') {
        return {
          method: method ?? 'GET',
          url: `/trpc/${path}?${batch}input=${encodeURIComponent(input.toWellFormed())}`,
          headers: {},
        };
      }
      return {
        method: method ?? 'POST',
        url: `/trpc/${path}${batched ? '?batch=1' : ''}`,
        headers: type !== undefined ? { 'content-type': type } : {},
        payload: input,
      };
    }),
  );

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers)} ${(request.payload ?? '').slice(0, 300)}`;

/** The one documented exception to the envelope: a successful export is CSV (decision 055). */
const isCsvExport = (request: FuzzRequest, response: LightMyRequestResponse): boolean =>
  response.statusCode === 200 &&
  new URL(request.url, 'http://fuzz.invalid').pathname === '/api/payments/export' &&
  String(response.headers['content-type']).startsWith('text/csv');

/** The spec's envelope, exactly: success with data, or failure with a well-formed error. */
function assertEnvelope(request: FuzzRequest, response: LightMyRequestResponse): void {
  if (request.method === 'HEAD' || response.statusCode === 204 || isCsvExport(request, response)) return;
  const where = `${response.statusCode} for ${describeRequest(request)}: ${response.body.slice(0, 300)}`;
  if (!String(response.headers['content-type']).startsWith('application/json'))
    throw new Error(`not JSON: ${where}`);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  if (body.success === true && 'data' in body && Object.keys(body).length === 2 && response.statusCode < 400)
    return;
  const failure = FailureEnvelope.strict().safeParse(body);
  if (!failure.success || response.statusCode < 400) throw new Error(`not the envelope: ${where}`);
}

async function send(request: FuzzRequest): Promise<LightMyRequestResponse> {
  const response = await app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  });
  if (response.statusCode >= 500) {
    throw new Error(`${response.statusCode} for ${describeRequest(request)}: ${response.body.slice(0, 500)}`);
  }
  return response;
}

describe(`fuzz: ${TOTAL_RUNS} requests, no 5xx`, () => {
  test(
    `${API_RUNS} requests to the OpenAPI document's operations: no 5xx, the envelope on every answer`,
    async () => {
      expect(operations.length).toBeGreaterThanOrEqual(10);
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(apiRequest, async (request) => {
          const response = await send(request);
          assertEnvelope(request, response);
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        }),
        { numRuns: API_RUNS },
      );
      // The generators must reach past authentication and validation, not only bounce off them.
      for (const status of [200, 201, 400, 401, 404, 415])
        expect(statuses.get(status), String(status)).toBeGreaterThan(0);
    },
    timeoutFor(API_RUNS),
  );

  test(
    `${PAGE_RUNS} calls to the customer pages' procedures: no 5xx`,
    async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(pageRequest, async (request) => {
          const response = await send(request);
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        }),
        { numRuns: PAGE_RUNS },
      );
      for (const status of [200, 400]) expect(statuses.get(status), String(status)).toBeGreaterThan(0);
    },
    timeoutFor(PAGE_RUNS),
  );
});

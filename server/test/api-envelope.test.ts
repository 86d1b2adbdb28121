import { AppError } from '@pis/shared';
import Fastify from 'fastify';
import { afterAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../src/config.ts';
import { restApi } from '../src/http/rest-api.ts';
import type { Context } from '../src/trpc/context.ts';
import { createResponseMeta } from '../src/trpc/response-meta.ts';
import { createCallerFactory, publicProcedure, router } from '../src/trpc/trpc.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from './helpers/expect-envelope.ts';
import { createTestApp } from './helpers/test-app.ts';

const { app, factories } = await createTestApp();
const { headers } = await factories.createMerchant();
const json = { ...headers, 'content-type': 'application/json' };

/**
 * The real app has no POST procedure of its own yet (payments add them), so body handling is
 * also checked on a probe router mounted the same way: Fastify + restApi + our tRPC setup.
 */
const probeRouter = router({
  // Declared before `special` on purpose: static paths must still win.
  byId: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/things/{id}' } })
    .input(z.object({ id: z.string() }))
    .output(z.object({ matched: z.string() }))
    .query(({ input }) => ({ matched: `byId:${input.id}` })),
  special: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/things/special' } })
    .output(z.object({ matched: z.string() }))
    .query(() => ({ matched: 'special' })),
  create: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/things' }, successStatus: 201 })
    .input(
      z.object({
        name: z.string().max(10),
        count: z.number().int().min(0),
        owner: z.object({ email: z.email() }).optional(),
      }),
    )
    .output(z.object({ name: z.string(), count: z.number() }))
    .mutation(({ input }) => ({ name: input.name, count: input.count })),
  act: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/things/{id}/act' } })
    .input(z.object({ id: z.string() }))
    .output(z.object({ acted: z.string() }))
    .mutation(({ input }) => ({ acted: input.id })),
  gone: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/gone' } })
    .output(z.object({}))
    .query(() => {
      throw new AppError('LINK_EXPIRED', 'This link has expired');
    }),
  boom: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/boom' } })
    .output(z.object({}))
    .query(() => {
      throw new Error('secret internals: password=hunter2');
    }),
  badOutput: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/bad-output' } })
    .output(z.object({ n: z.number() }))
    .query(() => ({ n: 'not a number' }) as unknown as { n: number }),
});

const probe = Fastify({ bodyLimit: BODY_LIMIT_BYTES });
await probe.register(restApi, {
  prefix: '/api',
  router: probeRouter,
  createContext: () => ({}) as Context,
  responseMeta: createResponseMeta(probeRouter),
});
await probe.ready();
afterAll(() => probe.close());

const post = (url: string, payload: string, contentType = 'application/json') =>
  probe.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });

describe('framework answers are envelopes too', () => {
  test('unknown route -> 404', async () => {
    for (const url of [
      '/api/nope',
      '/api',
      '/api/',
      '/api/banks/x/y/z',
      '/api/%E2%9C%93',
      '/api/openapi.yaml',
    ]) {
      expect(expectFailure(await app.inject({ method: 'GET', url, headers }), 404)).toEqual({
        message: 'Not found',
      });
    }
  });

  test('a Host header no URL can be built from -> 400, however often it is sent', async () => {
    // Remembering the hosts that parsed (a parse per request saved) must never remember a junk one;
    // the port counts (tRPC builds its URL from the whole Host: a port of 99999 was a 500 there).
    for (const [host, url] of [
      ['bad host', '/api/banks'],
      ['bad host', '/api/banks'],
      ['example.com:99999', '/api/banks'],
      ['example.com:99999', '/trpc/banks.list'],
    ] as const) {
      const response = await app.inject({ method: 'GET', url, headers: { ...headers, host } });
      expect(expectValidationFailed(response)).toEqual([
        { field: 'Host', message: 'is not a valid host name' },
      ]);
    }
    expectSuccess(
      await app.inject({ method: 'GET', url: '/api/banks', headers: { ...headers, host: 'pay.example' } }),
      200,
    );
  });

  test('wrong method on a known path -> 404 envelope', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/api/banks', headers: json, payload: '{}' });
      expect(expectFailure(response, 404).message).toBe('Not found');
    }
    expectFailure(await app.inject({ method: 'OPTIONS', url: '/api/banks', headers }), 404);
  });

  test('HEAD answers what GET would, without a body', async () => {
    const ok = await app.inject({ method: 'HEAD', url: '/api/banks', headers });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('');
    expect((await app.inject({ method: 'HEAD', url: '/api/banks' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'HEAD', url: '/api/nope', headers })).statusCode).toBe(404);
  });

  test('a URL with broken percent-encoding -> 400 VALIDATION_FAILED envelope', async () => {
    for (const url of ['/api/banks/%E0%A4%A', '/api/payments/%E0%A4%A', '/api/%ED%A0%80']) {
      expect(expectValidationFailed(await app.inject({ method: 'GET', url, headers }))).toEqual([
        { field: 'path', message: 'is not a valid URL (bad percent-encoding)' },
      ]);
    }
  });

  test('NUL characters and unpaired surrogates are refused before anything stores them', async () => {
    const nul = await app.inject({ method: 'GET', url: '/api/payments?provider=a%00b', headers });
    expect(expectValidationFailed(nul)).toEqual([
      { field: 'provider', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' },
    ]);
    // A JSON escape can carry half a surrogate pair; a URL cannot (it decodes to U+FFFD).
    const surrogate = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { ...headers, 'content-type': 'application/json' },
      payload:
        '{"amount":{"value":"1","currency":"GBP"},"toAccount":{"accountName":"\\ud800","iban":"GB33BUKB20201555555555"}}',
    });
    expect(expectValidationFailed(surrogate)).toEqual([
      {
        field: 'toAccount.accountName',
        message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
      },
    ]);
  });

  test('malformed JSON -> 400 VALIDATION_FAILED with a body detail', async () => {
    for (const payload of ['{bad', '{"a":', 'nul', '\u0000', '{"a":1}}']) {
      const details = expectValidationFailed(
        await app.inject({ method: 'POST', url: '/api/banks', headers: json, payload }),
      );
      expect(details).toEqual([{ field: 'body', message: expect.stringMatching(/^must be valid JSON/) }]);
    }
  });

  test('JSON that is not an object -> 400', async () => {
    for (const payload of ['[]', '[{"name":"x"}]', '"text"', '42', 'true', 'null']) {
      const details = expectValidationFailed(await post('/api/things', payload));
      expect(details).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
    }
  });

  test('wrong content type -> 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'image/png',
    ]) {
      const error = expectFailure(await post('/api/things', 'name=x', type), 415);
      expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const noType = await probe.inject({
      method: 'POST',
      url: '/api/things',
      payload: '{"name":"a","count":1}',
    });
    expect(expectFailure(noType, 415).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test(`body over ${BODY_LIMIT_BYTES} bytes -> 413 PAYLOAD_TOO_LARGE`, async () => {
    const payload = JSON.stringify({ name: 'x', count: 1, pad: 'x'.repeat(BODY_LIMIT_BYTES) });
    const error = expectFailure(await post('/api/things', payload), 413);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expectFailure(await app.inject({ method: 'POST', url: '/api/banks', headers: json, payload }), 413);
  });

  test('a body just under the limit is read', async () => {
    const payload = JSON.stringify({ name: 'x', count: 1, pad: 'x'.repeat(BODY_LIMIT_BYTES - 100) });
    expectSuccess(await post('/api/things', payload), 201);
  });

  test('charset in the content type is fine', async () => {
    expectSuccess(
      await post('/api/things', '{"name":"ü","count":0}', 'application/json; charset=utf-8'),
      201,
    );
  });
});

describe('validation of a JSON body', () => {
  test('one detail per problem, field as a dot path', async () => {
    const details = expectValidationFailed(
      await post(
        '/api/things',
        JSON.stringify({ name: 'x'.repeat(11), count: -1, owner: { email: 'nope' } }),
      ),
    );
    expect(details.map((detail) => detail.field).sort()).toEqual(['count', 'name', 'owner.email']);
  });

  test('numbers as strings and strings as numbers are type errors, not coerced', async () => {
    const details = expectValidationFailed(
      await post('/api/things', JSON.stringify({ name: 12, count: '3' })),
    );
    expect(details.map((detail) => detail.field).sort()).toEqual(['count', 'name']);
    for (const count of ['3', true, null, [3]]) {
      const response = await post('/api/things', JSON.stringify({ name: 'a', count }));
      expect(expectValidationFailed(response), JSON.stringify(count)).toEqual([
        { field: 'count', message: expect.any(String) },
      ]);
    }
    // trpc-to-openapi's in-place coercion must not have leaked into the schema tRPC callers use.
    const caller = createCallerFactory(probeRouter)({} as Context);
    await expect(caller.create({ name: 'a', count: '3' as unknown as number })).rejects.toThrow();
  });

  test('missing fields, empty object, empty body', async () => {
    expect(
      expectValidationFailed(await post('/api/things', '{}'))
        .map((d) => d.field)
        .sort(),
    ).toEqual(['count', 'name']);
    expect(expectValidationFailed(await post('/api/things', '')).length).toBeGreaterThan(0);
  });

  test('unicode and huge strings do not break anything', async () => {
    expectSuccess(await post('/api/things', JSON.stringify({ name: '🏦銀行\u202e', count: 1 })), 201);
    const details = expectValidationFailed(
      await post('/api/things', JSON.stringify({ name: 'é'.repeat(50_000), count: 1 })),
    );
    expect(details).toEqual([{ field: 'name', message: expect.any(String) }]);
  });

  test('prototype keys are plain data', async () => {
    const response = await post(
      '/api/things',
      '{"name":"a","count":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
    );
    expectSuccess(response, 201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('fractional and negative numbers are rejected with the field named', async () => {
    expect(expectValidationFailed(await post('/api/things', '{"name":"a","count":1.5}'))).toEqual([
      { field: 'count', message: expect.any(String) },
    ]);
  });
});

describe('status and errors from procedures', () => {
  test('successStatus is applied (201) and the output is enveloped', async () => {
    expect(expectSuccess(await post('/api/things', '{"name":"a","count":2}'), 201)).toEqual({
      name: 'a',
      count: 2,
    });
  });

  test('a bodyless POST needs no content type', async () => {
    expect(expectSuccess(await probe.inject({ method: 'POST', url: '/api/things/t1/act' }))).toEqual({
      acted: 't1',
    });
    expect(expectSuccess(await post('/api/things/t1/act', ''))).toEqual({ acted: 't1' });
  });

  test('static paths win over {param} paths, whatever the declaration order', async () => {
    expect(expectSuccess(await probe.inject({ method: 'GET', url: '/api/things/special' }))).toEqual({
      matched: 'special',
    });
    expect(expectSuccess(await probe.inject({ method: 'GET', url: '/api/things/other' }))).toEqual({
      matched: 'byId:other',
    });
  });

  test('AppError keeps its status (even one tRPC has no code for) and code', async () => {
    expect(expectFailure(await probe.inject({ method: 'GET', url: '/api/gone' }), 410)).toEqual({
      message: 'This link has expired',
      code: 'LINK_EXPIRED',
    });
  });

  test('an unexpected error is a bare 500: no message, no stack', async () => {
    for (const url of ['/api/boom', '/api/bad-output']) {
      const response = await probe.inject({ method: 'GET', url });
      expect(expectFailure(response, 500)).toEqual({
        message: 'Internal server error',
        code: 'INTERNAL_ERROR',
      });
      expect(response.body).not.toContain('hunter2');
    }
  });
});

describe('no combination of method, path, content type and body gives a 5xx or a non-envelope', () => {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
  const paths = [
    '/api/payments',
    '/api/payments/providers',
    '/api/payments/pay_unknown',
    '/api/payments/pay_unknown/sync',
    '/api/payments/pay_unknown/cancel',
    '/api/payments/%E2%98%83?limit=-1&offset=1.5',
    '/api/banks?page=1.5&limit=-1&country=%00',
    '/api/banks/providers',
    `/api/banks/${'x'.repeat(300)}`,
    '/api/../api/banks',
    '/api/banks?search[]=a&search[]=b',
  ];
  const bodies = [
    undefined,
    '{}',
    '[1,2]',
    '{"toAccount":[],"amount":"ten"}',
    'not json',
    `{"a":"${'z'.repeat(200_000)}"}`,
  ];
  const types = ['application/json', 'text/plain'];
  test.each(methods)('%s', async (method) => {
    for (const path of paths) {
      for (const payload of bodies) {
        for (const type of types) {
          const response = await app.inject({
            method,
            url: path,
            headers: payload === undefined ? headers : { ...headers, 'content-type': type },
            ...(payload === undefined ? {} : { payload }),
          });
          const label = `${method} ${path.slice(0, 60)} ${type} ${payload?.slice(0, 30)}`;
          expect(response.statusCode, label).toBeLessThan(500);
          expect(response.json().success, label).toBe(response.statusCode < 400);
        }
      }
    }
  });
});

describe('/trpc', () => {
  test('serves the same procedures with tRPC framing and our error data', async () => {
    const ok = await app.inject({ method: 'GET', url: '/trpc/banks.providers', headers });
    expect(ok.json()).toEqual({ result: { data: { providers: ['mock'] } } });
    const input = encodeURIComponent(JSON.stringify({ limit: 0 }));
    const bad = await app.inject({ method: 'GET', url: `/trpc/banks.list?input=${input}`, headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.data.appError).toEqual({
      message: 'Validation failed',
      code: 'VALIDATION_FAILED',
      details: [{ field: 'limit', message: expect.any(String) }],
    });
    expect(bad.json().error.data.code).toBe('BAD_REQUEST');
    const unauthorized = await app.inject({ method: 'GET', url: '/trpc/banks.providers' });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.json().error.data.code).toBe('UNAUTHORIZED');
    expect(unauthorized.json().error.data.appError).toEqual({ message: 'Invalid API key' });
    expect(unauthorized.body).not.toContain('stack');
  });

  test('a batched call with long procedure names fits the path', async () => {
    // The largest batch allowed (TRPC_MAX_BATCH_SIZE, 10 by default): 160 characters of path.
    const names = Array.from({ length: 10 }, () => 'banks.providers').join(',');
    const response = await app.inject({ method: 'GET', url: `/trpc/${names}?batch=1&input={}`, headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(10);
  });
});

describe('outside /api', () => {
  test('unknown paths are 404 JSON, never 5xx; docs and the OpenAPI document are served', async () => {
    expect((await app.inject({ method: 'GET', url: '/nope' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/docs/' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/openapi.json' })).json().openapi).toBe('3.1.0');
  });
});

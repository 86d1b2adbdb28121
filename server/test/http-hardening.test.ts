import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildApp } from '../src/app.ts';
import { openOrm } from '../src/db/orm.ts';
import { inlineScriptHashes } from '../src/http/docs-page.ts';
import { redactedUrl } from '../src/logger.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from './helpers/expect-envelope.ts';
import { capturedLogger } from './helpers/log-capture.ts';
import { createTestApp } from './helpers/test-app.ts';
import { created, tokenOf, trpcQuery } from './payments/payment-fixtures.ts';

const dist = await mkdtemp(path.join(os.tmpdir(), 'pis-web-'));
await mkdir(path.join(dist, 'assets'));
await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>SPA</title>');
const { app, factories, orm, clock, config, databaseUrl } = await createTestApp({
  config: { webDistDir: dist },
});
const { headers, apiKey } = await factories.createMerchant();
const html = { accept: 'text/html' };

const cspOf = (response: { headers: Record<string, unknown> }) =>
  Object.fromEntries(
    String(response.headers['content-security-policy'])
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .map(([name = '', ...values]) => [name, values.join(' ')]),
  );

describe('security headers', () => {
  test('customer pages: a CSP of our own origin that no site may frame, nosniff, no Referer', async () => {
    for (const url of ['/pay/some-token', '/mock-bank/some-token', '/']) {
      const page = await app.inject({ method: 'GET', url, headers: html });
      expect(page.statusCode, url).toBe(200);
      const csp = cspOf(page);
      expect(csp['frame-ancestors'], url).toBe("'none'");
      expect(csp['default-src']).toBe("'self'");
      expect(csp['script-src']).toBe("'self'");
      expect(csp['object-src']).toBe("'none'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      // http in this config: HSTS would be meaningless (and wrong behind a local proxy).
      expect(page.headers['strict-transport-security']).toBeUndefined();
    }
  });

  test('/api and /trpc answers are never cached, successes and failures alike', async () => {
    const answers = [
      await app.inject({ method: 'GET', url: '/api/banks', headers }),
      await app.inject({ method: 'GET', url: '/api/banks' }),
      await app.inject({ method: 'GET', url: '/api/nope', headers }),
      await app.inject({ method: 'POST', url: '/api/payments', headers, payload: '{' }),
      await trpcQuery(app, 'pages.mockBankSession', { token: 'nope' }),
      await app.inject({ method: 'GET', url: '/trpc/nope' }),
    ];
    for (const answer of answers) {
      expect(answer.headers['cache-control'], answer.body).toBe('no-store');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    // The public OpenAPI document may be revalidated from cache; it holds no customer data.
    expect((await app.inject({ method: 'GET', url: '/api/openapi.json' })).headers['cache-control']).toBe(
      'no-cache',
    );
  });

  test("the API reference runs its inline start-up script by its hash, without 'unsafe-inline', and is not framable", async () => {
    const docs = await app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    const scriptSrc = cspOf(docs)['script-src'] ?? '';
    expect(scriptSrc).not.toContain('unsafe-inline');
    const pageScripts = inlineScriptHashes(docs.body);
    expect(pageScripts.length).toBeGreaterThan(0);
    expect(scriptSrc).toBe(["'self'", ...pageScripts].join(' '));
    expect(cspOf(docs)['frame-ancestors']).toBe("'none'");
    // The hash is of the script as served: one changed character is another hash.
    expect(inlineScriptHashes('<script>x</script>')).not.toEqual(inlineScriptHashes('<script>y</script>'));
  });

  test('bank logos stay embeddable in merchant checkouts', async () => {
    const logo = await app.inject({ method: 'GET', url: '/bank-logos/mock-gb-albion.svg' });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(logo.headers['x-content-type-options']).toBe('nosniff');
  });

  test('HSTS when the public origin is https', async () => {
    const secure = await buildApp({
      config: { ...config, publicBaseUrl: 'https://pay.example' },
      orm,
      clock,
    });
    const answer = await secure.inject({ method: 'GET', url: '/api/banks', headers });
    expect(answer.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    await secure.close();
  });
});

describe('x-request-id', () => {
  test('a usable id is echoed on the answer; a new UUID otherwise', async () => {
    const echoed = await app.inject({
      method: 'GET',
      url: '/api/banks',
      headers: { ...headers, 'x-request-id': 'req-42.a:b_c' },
    });
    expect(echoed.headers['x-request-id']).toBe('req-42.a:b_c');
    for (const bad of ['a'.repeat(129), 'two words', 'line\tbreak', '-leading-dash', '']) {
      const answer = await app.inject({
        method: 'GET',
        url: '/api/banks',
        headers: { ...headers, 'x-request-id': bad },
      });
      expect(answer.headers['x-request-id'], bad).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });

  test('on every answer: 401, 404, a refused Host, HEAD, pages, probes', async () => {
    const withId = { 'x-request-id': 'every-answer' };
    const answers = [
      await app.inject({ method: 'GET', url: '/api/payments', headers: withId }),
      await app.inject({ method: 'GET', url: '/nope.js', headers: withId }),
      await app.inject({ method: 'HEAD', url: '/api/banks', headers: { ...headers, ...withId } }),
      await app.inject({ method: 'GET', url: '/pay/x', headers: { ...html, ...withId } }),
      await app.inject({ method: 'GET', url: '/health', headers: withId }),
      await app.inject({ method: 'GET', url: '/docs', headers: { ...withId, host: 'a b' } }),
    ];
    for (const answer of answers) expect(answer.headers['x-request-id'], answer.body).toBe('every-answer');
  });

  test('every log line of a request carries its id', async () => {
    const log = capturedLogger();
    const loud = await buildApp({ config, orm, clock, logger: log.logger });
    await loud.inject({
      method: 'GET',
      url: '/api/payments?limit=0',
      headers: { ...headers, 'x-request-id': 'trace-me' },
    });
    await loud.inject({ method: 'GET', url: '/ready', headers: { 'x-request-id': 'trace-me-too' } });
    await loud.close();
    const lines = log.lines();
    const mine = lines.filter((line) => line.reqId === 'trace-me');
    expect(mine.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'request completed']),
    );
    expect(lines.filter((line) => line.reqId === 'trace-me-too')).toHaveLength(2);
    // Nothing logged during a request goes without an id.
    expect(
      lines.filter((line) => line.req !== undefined || line.res !== undefined).every((line) => line.reqId),
    ).toBe(true);
  });
});

describe('log redaction: link tokens and keys in URLs', () => {
  test('redactedUrl', () => {
    expect(redactedUrl('/pay/abc.def?x=1')).toBe('/pay/[redacted]?x=1');
    expect(redactedUrl('/mock-bank/abc.def')).toBe('/mock-bank/[redacted]');
    // The SPA's router ignores case (`/Mock-Bank/<token>` opens the page), and a link glued to
    // a base ending in `/` still brings its token to the server: neither may reach the log.
    expect(redactedUrl('/PAY/abc.def')).toBe('/PAY/[redacted]');
    expect(redactedUrl('//Mock-Bank/abc.def?x=1')).toBe('//Mock-Bank/[redacted]?x=1');
    expect(redactedUrl('/api/payments/pay_1/mock-bank/approve')).toBe(
      '/api/payments/pay_1/mock-bank/approve',
    );
    expect(redactedUrl('/api/banks?x-api-key=pis_secret&limit=1')).toBe(
      '/api/banks?x-api-key=[redacted]&limit=1',
    );
    expect(redactedUrl('/api/banks?API_KEY=pis_secret&apiKey=pis_2')).toBe(
      '/api/banks?API_KEY=[redacted]&apiKey=[redacted]',
    );
    const input = encodeURIComponent('{"token":"tok.sig","country":"GB"}');
    expect(decodeURIComponent(redactedUrl(`/trpc/pages.hostedBanks?input=${input}`))).toBe(
      '/trpc/pages.hostedBanks?input={"token":"[redacted]","country":"GB"}',
    );
    expect(redactedUrl('/trpc/pages.x?input=%E0%A4%A')).toBe('/trpc/pages.x?input=[redacted]');
  });

  test('a real request log holds no token and no key, at trace level', async () => {
    const captured = capturedLogger();
    const loud = await buildApp({
      config: { ...config, webDistDir: dist },
      orm,
      clock,
      logger: captured.logger,
    });
    const token = tokenOf((await created(loud, headers)).redirectUrl);
    await loud.inject({ method: 'GET', url: `/mock-bank/${token}`, headers: html });
    await trpcQuery(loud, 'pages.mockBankSession', { token });
    await loud.inject({ method: 'POST', url: '/trpc/pages.approve', payload: { token } });
    await loud.inject({ method: 'GET', url: `/api/banks?x-api-key=${apiKey}` });
    await loud.inject({ method: 'GET', url: `/api/banks?api_key=${encodeURIComponent(apiKey)}` });
    await loud.close();
    const log = captured.text();
    expect(log).toContain('/mock-bank/[redacted]');
    expect(log).toContain('pages.mockBankSession');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(0, 20));
    expect(log).not.toContain(apiKey.slice(12));
  });
});

describe('probes', () => {
  test('/health and /ready answer 200 on a reachable, migrated database, without a key', async () => {
    expect(expectSuccess(await app.inject({ method: 'GET', url: '/health' }))).toEqual({ status: 'ok' });
    expect(expectSuccess(await app.inject({ method: 'GET', url: '/ready' }))).toEqual({ status: 'ready' });
    expect((await app.inject({ method: 'GET', url: '/api/health', headers })).statusCode).toBe(404);
  });

  test('/ready is 503 NOT_READY with a migration missing, and when the database is gone; /health stays 200', async () => {
    const ownOrm = await openOrm(databaseUrl, { poolMax: 2 });
    const probe = await buildApp({ config, orm: ownOrm, clock });
    const connection = ownOrm.em.fork().getConnection();
    const [latest] = await connection.execute<{ id: number; name: string }[]>(
      'select id, name from mikro_orm_migrations order by id desc limit 1',
    );
    await connection.execute('delete from mikro_orm_migrations where id = ?', [latest?.id]);
    const pending = expectFailure(await probe.inject({ method: 'GET', url: '/ready' }), 503);
    expect(pending).toEqual({ message: 'Not ready: migrations pending', code: 'NOT_READY' });
    await connection.execute('insert into mikro_orm_migrations (id, name) values (?, ?)', [
      latest?.id,
      latest?.name,
    ]);
    expect(expectSuccess(await probe.inject({ method: 'GET', url: '/ready' }))).toEqual({ status: 'ready' });

    await probe.close();
    await ownOrm.close();

    // Nothing listens on port 1: the pool never connects.
    const deadOrm = await openOrm('postgres://postgres:x@127.0.0.1:1/gone', { poolMax: 1 });
    const stranded = await buildApp({ config, orm: deadOrm, clock });
    const gone = expectFailure(await stranded.inject({ method: 'GET', url: '/ready' }), 503);
    expect(gone).toEqual({ message: 'Not ready: database unreachable', code: 'NOT_READY' });
    expect((await stranded.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    await stranded.close();
    await deadOrm.close();
  });
});

test('unknown list parameters through the whole stack: 400, not an unfiltered list', async () => {
  expect(
    await expectValidationFailed(
      await app.inject({ method: 'GET', url: '/api/payments?status[]=COMPLETED', headers }),
    ),
  ).toEqual([{ field: 'status[]', message: 'is not a known parameter' }]);
});

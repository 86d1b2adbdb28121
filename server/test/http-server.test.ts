import net from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { createTestApp } from './helpers/test-app.ts';

/** Over a real socket: what Node's HTTP parser answers before Fastify must be an envelope too. */
const { app, factories } = await createTestApp();
await app.listen({ port: 0, host: '127.0.0.1' });
afterAll(() => app.close());
const { port } = app.server.address() as net.AddressInfo;
const { apiKey } = await factories.createMerchant();

function raw(
  request: string | Buffer,
  options: { end?: boolean } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
    // `end` half-closes at once: the server sees a client that gave up mid-request.
    if (options.end) socket.end(request);
    else socket.write(request);
  });
}

const get = (path: string, headers = '') =>
  raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${headers}\r\n`);

test('a normal request over HTTP', async () => {
  const response = await get('/api/banks/providers', `x-api-key: ${apiKey}\r\n`);
  expect(response.status).toBe(200);
  expect(response.body).toBe('{"success":true,"data":{"providers":["mock"]}}');
});

test('headers over 16 KB -> 431 envelope', async () => {
  const response = await get(`/api/banks?search=${'x'.repeat(20_000)}`, `x-api-key: ${apiKey}\r\n`);
  expect(response.status).toBe(431);
  expect(JSON.parse(response.body)).toEqual({
    success: false,
    error: { message: 'Request headers too large' },
  });
});

test('a malformed request -> 400 envelope', async () => {
  for (const request of ['NOT HTTP AT ALL\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header Line\r\n\r\n']) {
    const response = await raw(request);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      success: false,
      error: { message: 'Malformed HTTP request' },
    });
  }
});

test('UTF-8 bytes in the key header -> 401, not 500', async () => {
  const request = Buffer.concat([
    Buffer.from('GET /api/banks HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nx-api-key: pis_'),
    Buffer.from('ÄÖÜ🙂'.repeat(8), 'utf8'),
    Buffer.from('\r\n\r\n'),
  ]);
  const response = await raw(request);
  expect(response.status).toBe(401);
  expect(JSON.parse(response.body)).toEqual({ success: false, error: { message: 'Invalid API key' } });
});

test('a chunked body without a content type and an aborted body do not break the server', async () => {
  const chunked = await raw(
    'POST /api/payments HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n' +
      `x-api-key: ${apiKey}\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  );
  expect(chunked.status).toBe(415);
  const lying = await raw(
    'POST /api/payments HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n' +
      `Content-Length: 100\r\nx-api-key: ${apiKey}\r\n\r\n{"a":1}`,
    { end: true },
  );
  expect(lying.status === 400 || Number.isNaN(lying.status)).toBe(true);
  expect((await get('/api/banks/providers', `x-api-key: ${apiKey}\r\n`)).status).toBe(200);
});

test('odd Host headers and paths outside /api never give a 5xx', async () => {
  for (const [path, headers] of [
    ['/docs', 'Host: a b\r\n'],
    ['/api/banks', 'Host: a b\r\n'],
    ['/trpc/banks.list', 'Host: a b\r\n'],
    ['/', 'Host: a b\r\nAccept: text/html\r\n'],
    ['/docs', 'Host: [::1\r\n'],
    ['/docs/', 'X-Forwarded-Host: evil.example\r\nX-Forwarded-Proto: javascript\r\n'],
    ['/bank-logos/%00.svg', ''],
    ['/../../etc/passwd', ''],
    ['/%2e%2e/%2e%2e/etc/passwd', ''],
    ['/trpc/nope', ''],
  ] as const) {
    const response = await raw(
      `GET ${path} HTTP/1.1\r\n${headers.startsWith('Host') ? '' : 'Host: localhost\r\n'}Connection: close\r\n${headers}\r\n`,
    );
    expect(response.status, `${path} ${headers}`).toBeLessThan(500);
    expect(response.body).not.toContain('root:');
  }
});

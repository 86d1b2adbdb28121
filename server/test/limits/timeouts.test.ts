import { connect } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { created } from '../payments/payment-fixtures.ts';
import { createInstances } from './limits-helpers.ts';

/**
 * One instance with a single pooled connection, a short acquire wait and statement timeout, so
 * a row lock held from outside shows both: the statement that waits on it is cancelled, and a
 * request that finds the only connection busy stops waiting for it.
 */
const {
  apps: [app],
  factories,
  databaseUrl,
} = await createInstances({
  count: 1,
  config: {
    timeouts: { requestMs: 500, connectionMs: 2_000, statementMs: 300, poolAcquireMs: 150 },
    maxConnections: 3,
  },
  orm: { poolMax: 1, statementTimeoutMs: 300, acquireTimeoutMs: 150 },
});
if (!app) throw new Error('one instance expected');
const { headers } = await factories.createMerchant();
// A real socket for the slow-client tests (inject has none).
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('not listening');
const { port } = address;

/** Holds the payment's row lock from another connection until `release()`. */
async function lockPayment(paymentId: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from payment where id = $1 for update', [paymentId]);
  return {
    release: async () => {
      await client.query('rollback');
      await client.end();
    },
  };
}

describe('database timeouts answer a clean envelope', () => {
  it('a statement past statement_timeout is 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const { paymentId } = await created(app, headers);
    const lock = await lockPayment(paymentId);
    try {
      const started = Date.now();
      const answer = await app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers });
      expect(Date.now() - started).toBeLessThan(5_000);
      const error = expectFailure(answer, 503);
      expect(error).toEqual({ message: 'The service is busy: retry shortly', code: 'SERVICE_UNAVAILABLE' });
      expect(answer.headers['retry-after']).toBe('1');
    } finally {
      await lock.release();
    }
    // Nothing was left half-done: the payment can still be cancelled.
    expectSuccess(await app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers }));
  });

  it('no pooled connection within the acquire timeout is 503 too, on /api and /trpc', async () => {
    const { paymentId } = await created(app, headers);
    const lock = await lockPayment(paymentId);
    try {
      // Holds the only pooled connection until the statement timeout cancels it.
      const blocked = app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [rest, trpc] = await Promise.all([
        app.inject({ method: 'GET', url: '/api/payments', headers }),
        app.inject({ method: 'GET', url: `/trpc/payments.list?input=${encodeURIComponent('{}')}`, headers }),
      ]);
      expect(expectFailure(rest, 503).code).toBe('SERVICE_UNAVAILABLE');
      expect(rest.headers['retry-after']).toBe('1');
      expect(trpc.statusCode).toBe(503);
      expect(trpc.json().error.data.appError.code).toBe('SERVICE_UNAVAILABLE');
      expect((await blocked).statusCode).toBe(503);
    } finally {
      await lock.release();
    }
  });
});

describe('slow clients', () => {
  it('a request that sends 1 byte of a 100-byte body gets 408 and its socket closed within about a second', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /api/payments HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `x-api-key: ${headers['x-api-key']}\r\nContent-Length: 100\r\n\r\n{`,
    );
    await closed;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(3_000);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('{"success":false,"error":{"message":"Request timeout"}}');
  });
});

describe('idle connections', () => {
  it('a connection that never sends a byte is closed within a few seconds', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    expect(received).toMatch(/^(HTTP\/1\.1 408 |$)/);
    // Closed by the header/request timeout (500 ms here) or the idle timeout (2 s), whichever
    // Node's once-a-second check sees first; never left open for minutes.
    expect(Date.now() - started).toBeLessThan(3_500);
  });

  it('a keep-alive connection idle after its answer is closed after CONNECTION_TIMEOUT_MS, and says so', async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    for (let tries = 0; tries < 200 && !received.includes('\r\n\r\n'); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const answered = Date.now();
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    // Not Fastify's default 72 s: the same 2 s as any idle socket here.
    expect(received.toLowerCase()).toContain('keep-alive: timeout=2');
    await closed;
    expect(Date.now() - answered).toBeLessThan(4_000);
  });
});

describe('open connections (MAX_CONNECTIONS)', () => {
  it('past the maximum a new connection is closed at once; the open ones are still served', async () => {
    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      // Closed by the idle timeout while the test runs: a reset is not a failure.
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      return socket;
    };
    const held = [await open(), await open(), await open()];
    // Node drops a connection past maxConnections as it accepts it ('drop'), before any
    // request or idle timeout could close it.
    const dropped = new Promise<void>((resolve) => app.server.once('drop', () => resolve()));
    const extra = connect(port, '127.0.0.1');
    // Node may reset the dropped connection: an 'error' (ECONNRESET) here is the expected outcome.
    extra.on('error', () => {});
    let extraReceived = '';
    extra.on('data', (chunk) => {
      extraReceived += chunk.toString('utf8');
    });
    await new Promise<void>((resolve) => extra.on('close', () => resolve()));
    await dropped;
    expect(extraReceived).toBe('');
    // One of the held connections still gets its answer.
    const first = held[0] as (typeof held)[number];
    let received = '';
    first.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    first.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await new Promise<void>((resolve) => first.on('close', () => resolve()));
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    for (const socket of held) socket.destroy();
  });
});

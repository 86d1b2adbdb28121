import type { CreatedApiKey, DashboardSession } from '@pis/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { logsRouter } from '../../src/observability/logs.procedures.ts';
import { signInFailures } from '../../src/observability/metrics.ts';
import { purgeRequestLog, RequestLogWriter } from '../../src/observability/request-log.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { adminCli, oneJsonLine } from '../helpers/admin-cli.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { paymentBody } from '../payments/payment-fixtures.ts';

/**
 * Issue 20, item 4: the merchant's request log (batched after the answer, masked, 30 days,
 * searchable, scoped to the organization) and the audit log (who did what, append-only).
 */

const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 4 });
const clock = new TestClock();
// Flushed by the tests (flush()), never by its timer or a full queue: what is written, and when, is theirs.
const writer = new RequestLogWriter(orm, silentLogger(), {
  flushEveryMs: 3_600_000,
  flushAt: Number.POSITIVE_INFINITY,
});
const app = await buildApp({
  config: testConfig({ databaseUrl: database.url }),
  orm,
  clock,
  requestLog: writer,
});
await app.ready();
afterAll(async () => {
  await writer.stop();
  await app.close();
  await orm.close();
  await database.drop();
});

let addresses = 0;
async function merchant() {
  const b = new DashboardBrowser(app, `198.51.100.${++addresses}`);
  const session = await b.signUp();
  const key = data<CreatedApiKey>(
    await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
  );
  return { b, session, apiKey: key.secret, keyId: key.apiKey.id, prefix: key.apiKey.prefix };
}
type Page = {
  entries: {
    id: string;
    route: string;
    status: number;
    requestId: string;
    keyPrefix: string;
    errorCode: string | null;
    idempotencyKey: string | null;
    method: string;
  }[];
  nextBefore: string | null;
};
const requests = async (b: DashboardBrowser, input: Record<string, unknown> = {}) =>
  data<Page>(await b.query('logs.requests', input)).entries;

const a = await merchant();
const other = await merchant();

describe('the request log', () => {
  it('a busy instance writes as soon as a batch is queued, without waiting for its timer', async () => {
    // Entries that wait a second for the timer outlive the young generation: the GC cost of the log.
    const busy = new RequestLogWriter(orm, silentLogger(), { flushEveryMs: 3_600_000, flushAt: 3 });
    const requestId = `busy-${Date.now()}`;
    const entry = (n: number) => ({
      organizationId: a.session.organization.id,
      at: new Date(),
      method: 'GET',
      route: '/api/payments',
      status: 200,
      durationMs: 1,
      keyPrefix: a.prefix,
      requestId: `${requestId}-${n}`,
      idempotencyKey: null,
      bodies: true,
      requestBody: undefined,
      responseBody: '{"data":[]}',
    });
    const written = async () =>
      (
        await orm.em.execute<{ n: number }[]>(
          'select count(*)::int as n from request_log where request_id like ?',
          [`${requestId}-%`],
        )
      )[0]?.n;
    busy.add(entry(1));
    busy.add(entry(2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await written()).toBe(0);
    busy.add(entry(3));
    await expect.poll(written, { timeout: 2_000 }).toBe(3);
    await busy.stop();
  });

  it('writes nothing on the request path: entries appear when the batch is written', async () => {
    const before = await orm.em.execute<{ n: number }[]>('select count(*)::int as n from request_log');
    const answer = await app.inject({
      method: 'GET',
      url: '/api/payments',
      headers: { 'x-api-key': a.apiKey },
    });
    expect(answer.statusCode).toBe(200);
    const queued = await orm.em.execute<{ n: number }[]>('select count(*)::int as n from request_log');
    expect(queued[0]?.n).toBe(before[0]?.n);
    await writer.flush();
    const written = await orm.em.execute<{ n: number }[]>('select count(*)::int as n from request_log');
    expect(written[0]?.n).toBe((before[0]?.n ?? 0) + 1);
  });

  it('lists the organization’s own requests, newest first, searchable by status, route, key and request id', async () => {
    const headers = { 'x-api-key': a.apiKey, 'content-type': 'application/json' };
    const createdAnswer = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { ...headers, 'idempotency-key': 'order-1001-attempt-1', 'x-request-id': 'req-create-1' },
      payload: paymentBody({ flowType: 'HOSTED_PAGES', reference: `leak ${a.apiKey}` }),
    });
    expect(createdAnswer.statusCode).toBe(201);
    const paymentId = (createdAnswer.json() as { data: { paymentId: string } }).data.paymentId;
    await app.inject({
      method: 'GET',
      url: `/api/payments/${paymentId}`,
      headers: { ...headers, 'x-request-id': 'req-read-1' },
    });
    await app.inject({ method: 'GET', url: '/api/payments/pay_doesnotexist', headers });
    await app.inject({ method: 'POST', url: '/api/payments', headers, payload: { amount: 'lots' } });
    await app.inject({
      method: 'GET',
      url: '/api/payments',
      headers: { 'x-api-key': other.apiKey, 'x-request-id': 'req-other-1' },
    });
    // A key of nobody's: belongs to no organization, logged nowhere.
    await app.inject({
      method: 'GET',
      url: '/api/payments',
      headers: { 'x-api-key': `pis_${'Z'.repeat(48)}` },
    });
    await writer.flush();

    const all = await requests(a.b);
    expect(all.map((entry) => entry.requestId)).not.toContain('req-other-1');
    expect(all.every((entry) => entry.keyPrefix === a.prefix)).toBe(true);
    const ids = all.map((entry) => Number(entry.id));
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const create = all.find((entry) => entry.requestId === 'req-create-1');
    expect(create).toMatchObject({
      method: 'POST',
      route: '/api/payments',
      status: 201,
      errorCode: null,
      idempotencyKey: 'order-1001-attempt-1',
    });

    const failures = await requests(a.b, { status: '4xx' });
    expect(failures.map((entry) => [entry.status, entry.errorCode]).sort()).toEqual([
      [400, 'VALIDATION_FAILED'],
      // The spec's 404 envelope has no code: the log keeps what the merchant got.
      [404, null],
    ]);
    expect((await requests(a.b, { status: 404 })).map((entry) => entry.route)).toEqual([
      '/api/payments/{paymentId}',
    ]);
    expect((await requests(a.b, { route: '/api/payments/{paymentId}' })).length).toBe(2);
    expect((await requests(a.b, { requestId: 'req-read-1' })).map((entry) => entry.status)).toEqual([200]);
    expect((await requests(a.b, { keyPrefix: other.prefix })).length).toBe(0);
    expect((await requests(other.b)).map((entry) => entry.requestId)).toEqual(['req-other-1']);

    // Pages by cursor.
    const first = data<Page>(await a.b.query('logs.requests', { limit: 2 }));
    expect(first.entries).toHaveLength(2);
    const second = data<Page>(await a.b.query('logs.requests', { limit: 2, before: first.nextBefore }));
    expect(Number(second.entries[0]?.id)).toBeLessThan(Number(first.entries[1]?.id));

    // One request's page: its bodies, masked.
    const detail = data<{ requestBody: string; responseBody: string }>(
      await a.b.query('logs.request', { id: create?.id }),
    );
    const request = JSON.parse(detail.requestBody);
    expect(request.toAccount.accountNumber).toBe('****5678');
    expect(request.reference).toBe(`leak ${a.apiKey.slice(0, 17)}[masked]`);
    expect(detail.responseBody).toContain(paymentId);
    expect(detail.responseBody).toMatch(/\/pay\/\[masked\]/);
    // Another organization's entry does not exist for this one.
    expect(failure(await other.b.query('logs.request', { id: create?.id }), 404).message).toBe(
      'Request log entry not found',
    );
  });

  it('a HEAD is logged without a body (none went over the wire); a repeated read stores its masked answer each time', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { 'x-api-key': a.apiKey, 'content-type': 'application/json' },
      payload: paymentBody(),
    });
    const { paymentId } = JSON.parse(created.body).data as { paymentId: string };
    const read = (method: 'GET' | 'HEAD', requestId: string) =>
      app.inject({
        method,
        url: `/api/payments/${paymentId}`,
        headers: { 'x-api-key': a.apiKey, 'x-request-id': requestId },
      });
    const head = await read('HEAD', 'req-head-1');
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    for (const id of ['req-poll-1', 'req-poll-2']) expect((await read('GET', id)).statusCode).toBe(200);
    await writer.flush();
    const bodies = await orm.em.execute<{ request_id: string; response_body: string | null }[]>(
      `select request_id, response_body from request_log where request_id in ('req-head-1', 'req-poll-1', 'req-poll-2')
        order by request_id`,
    );
    expect(bodies.map((row) => row.request_id)).toEqual(['req-head-1', 'req-poll-1', 'req-poll-2']);
    expect(bodies[0]?.response_body).toBeNull();
    // The second read's masked text is the remembered one: the same, account number masked.
    expect(bodies[1]?.response_body).toContain(paymentId);
    expect(bodies[1]?.response_body).not.toContain('12345678');
    expect(bodies[2]?.response_body).toBe(bodies[1]?.response_body);
  });

  it('never stores an API key, a password, a session token or a customer link token', async () => {
    const rows = await orm.em.execute<{ row: string }[]>(
      'select row_to_json(r)::text as row from request_log r',
    );
    const everything = rows.map((row) => row.row).join('\n');
    for (const secret of [a.apiKey, other.apiKey, a.b.cookie, other.b.cookie, a.session.password]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toMatch(/\/pay\/[A-Za-z0-9_-]{20,}/);
  });

  it('a key matching no stored key writes nothing, whatever prefix it shows (a prefix is not secret)', async () => {
    const forged = `${a.prefix}${'A'.repeat(40)}`;
    const answer = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { 'x-api-key': forged, 'content-type': 'application/json', 'x-request-id': 'req-forged-1' },
      payload: { note: 'Your key leaked: rotate it at https://evil.example' },
    });
    expect(answer.statusCode).toBe(401);
    await writer.flush();
    expect(await requests(a.b, { requestId: 'req-forged-1' })).toEqual([]);
  });

  it('cuts keys and link tokens in property names, URL-encoded text, the request id and the idempotency key', async () => {
    const pasted = a.apiKey;
    const answer = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: {
        'x-api-key': a.apiKey,
        'content-type': 'application/json',
        'x-request-id': pasted,
        'idempotency-key': `order-${pasted}`,
      },
      payload: {
        ...paymentBody(),
        metadata: { [pasted]: 'x', 'https://h.example/pay/tok.en.sig': 1 },
        reference: `k%3D${pasted.replaceAll('_', '%5F')}`,
      },
    });
    expect(answer.statusCode).toBeLessThan(500);
    await writer.flush();
    const rows = await orm.em.execute<{ row: string }[]>(
      `select row_to_json(r)::text as row from request_log r where organization_id = ?`,
      [a.session.organization.id],
    );
    const everything = rows.map((row) => row.row).join('\n');
    expect(everything).not.toContain(pasted);
    expect(everything).not.toContain(pasted.replaceAll('_', '%5F'));
    expect(everything).not.toContain('tok.en.sig');
  });

  it('keeps 30 days: the workers’ purge deletes older entries only', async () => {
    await orm.em.execute(
      `insert into request_log (organization_id, at, method, route, status, duration_ms, key_prefix, request_id)
        values (?, now() - interval '31 days', 'GET', '/api/payments', 200, 3, ?, 'req-old')`,
      [a.session.organization.id, a.prefix],
    );
    expect((await requests(a.b, { requestId: 'req-old' })).length).toBe(1);
    const before = (await requests(a.b)).length;
    expect(await purgeRequestLog(orm)).toBe(1);
    expect((await requests(a.b, { requestId: 'req-old' })).length).toBe(0);
    expect((await requests(a.b)).length).toBe(before - 1);
  });

  it('refuses bad filters with VALIDATION_FAILED', async () => {
    expect(failure(await a.b.query('logs.requests', { status: 'ok' }), 400).code).toBe('VALIDATION_FAILED');
    expect(failure(await a.b.query('logs.requests', { before: "1' or 1=1" }), 400).code).toBe(
      'VALIDATION_FAILED',
    );
    expect(failure(await a.b.query('logs.requests', { requestId: 'x'.repeat(500) }), 400).code).toBe(
      'VALIDATION_FAILED',
    );
  });
});

describe('the audit log', () => {
  type Audit = {
    entries: {
      action: string;
      actor: string;
      actorType: string;
      target: string | null;
      details: Record<string, unknown> | null;
    }[];
  };
  const audit = async (b: DashboardBrowser) => data<Audit>(await b.query('logs.audit')).entries;

  it('records who did what in the dashboard and the CLI, for the organization only', async () => {
    const m = await merchant();
    const email = m.session.user.email;
    // A failed sign-in, a sign-out, a sign-in.
    const stranger = new DashboardBrowser(app, '198.51.100.200');
    expect(
      failure(await stranger.mutation('account.signIn', { email, password: 'wrong password!!' }), 401).status,
    ).toBe(401);
    data(await m.b.mutation('account.signOut'));
    await m.b.signIn(email, m.session.password);
    await m.b.mutation('apiKeys.revoke', { apiKeyId: m.keyId });
    await m.b.mutation('settings.setReturnOrigins', { origins: ['https://shop.example'] });
    const { admin } = adminCli(database.url);
    oneJsonLine(await admin('key:create', '--org', m.session.organization.id, '--permissions', 'read'));

    const entries = await audit(m.b);
    expect(entries.map((entry) => entry.action)).toEqual([
      'operator.command',
      'settings.changed',
      'api_key.revoked',
      'session.signed_in',
      'session.signed_out',
      'session.sign_in_failed',
      'api_key.created',
    ]);
    expect(entries.find((entry) => entry.action === 'api_key.revoked')).toMatchObject({
      actorType: 'user',
      actor: email,
      target: m.keyId,
    });
    expect(entries.find((entry) => entry.action === 'operator.command')).toMatchObject({
      actorType: 'operator',
      target: 'key:create',
    });
    expect(JSON.stringify(entries)).not.toContain(m.session.password);
    expect(JSON.stringify(entries)).not.toContain('wrong password');
    // Another organization sees none of it.
    expect(JSON.stringify(await audit(other.b))).not.toContain(email);
  });

  it('an anonymous stranger grows no table: failures for no account are counted, throttled attempts write nothing', async () => {
    // Issue 31 item 4: 5 wrong passwords and 10 throttled attempts, for unknown addresses too, had
    // written 15 audit rows (under no organization).
    const auditRows = async () =>
      Number(
        (
          await orm.em.execute<{ n: string }[]>(
            `select count(*) as n from audit_log where action = 'session.sign_in_failed'`,
          )
        )[0]?.n,
      );
    const unknownFailures = async () =>
      (await signInFailures.get()).values.find((value) => value.labels.account === 'unknown')?.value ?? 0;
    const before = await auditRows();
    const countedBefore = await unknownFailures();

    const stranger = new DashboardBrowser(app, '198.51.100.201');
    const typed = `${a.apiKey} my secret password`;
    for (let attempt = 0; attempt < 5; attempt++) {
      failure(await stranger.mutation('account.signIn', { email: typed, password: 'wrong password!!' }), 401);
    }
    expect(await auditRows()).toBe(before);
    expect(await unknownFailures()).toBe(countedBefore + 5);

    // A member's address: each wrong password is the organization's to see, until the throttle
    // refuses (10 a window for one email from one address); a refused attempt writes nothing.
    const m = await merchant();
    const guesser = new DashboardBrowser(app, '198.51.100.202');
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 15; attempt++) {
      const refused = await guesser.mutation('account.signIn', {
        email: m.session.user.email,
        password: 'wrong password!!',
      });
      statuses.push(refused.statusCode);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    expect(await auditRows()).toBe(before + 10);
    const own = await orm.em.execute<{ actor: string; organization_id: string }[]>(
      `select actor, organization_id from audit_log where action = 'session.sign_in_failed' and organization_id = ?`,
      [m.session.organization.id],
    );
    expect(own).toHaveLength(10);
    expect(new Set(own.map((row) => row.actor))).toEqual(new Set([m.session.user.email]));

    // Guessers at other addresses get the throttle's guesses each, but the account's audit rows
    // stay bounded (10 in 15 minutes; the rest are counted).
    for (const address of ['198.51.100.203', '198.51.100.204']) {
      const another = new DashboardBrowser(app, address);
      for (let attempt = 0; attempt < 5; attempt++) {
        await another.mutation('account.signIn', {
          email: m.session.user.email,
          password: 'wrong password!!',
        });
      }
    }
    expect(await auditRows()).toBe(before + 10);
  });

  it('cannot be edited: no procedure changes it and the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    for (const procedure of Object.values(logsRouter._def.procedures)) {
      expect((procedure as { _def: { type: string } })._def.type).toBe('query');
    }
    await expect(orm.em.execute(`update audit_log set actor = 'someone else'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(orm.em.execute('delete from audit_log')).rejects.toThrow(/append-only/);
    await expect(orm.em.execute('truncate audit_log')).rejects.toThrow(/append-only/);
    const [row] = await orm.em.execute<{ n: number }[]>('select count(*)::int as n from audit_log');
    expect(row?.n).toBeGreaterThan(0);
  });
});

export type { DashboardSession };

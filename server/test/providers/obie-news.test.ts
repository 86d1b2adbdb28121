import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPair, importJWK, SignJWT } from 'jose';
import { afterAll, describe, expect, test } from 'vitest';
import { eventToken, type NotifierOptions } from '../../../sandbox-bank/src/bank/notifications.ts';
import { NO_FAULTS, writeFaults } from '../../../sandbox-bank/src/faults.ts';
import { startTestBank, until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import { Payment } from '../../src/db/entities/index.ts';
import { openOrm } from '../../src/db/orm.ts';
import { startBackground } from '../../src/lifecycle/background.ts';
import { silentLogger } from '../../src/logger.ts';
import type { PaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import { expectFailure } from '../helpers/expect-envelope.ts';
import { factories } from '../helpers/factories.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { created, createPayment, getPayment, paymentBody, post } from '../payments/payment-fixtures.ts';
import { openObieLink } from './obie-test-setup.ts';

/**
 * News without the merchant asking, and outages, with the real sandbox bank: its notifications
 * (through a switchable relay to our route) and our pg-boss polling each move a payment in the
 * database with no read at all; an outage fails creates cleanly, sync reports it, GET hides it,
 * and everything catches up afterwards.
 */
const PUBLIC_BASE_URL = 'http://localhost:3000';
const CALLBACK = `${PUBLIC_BASE_URL}/providers/obie/callback`;
const BANK_ID = 'obie-sandbox-bank';

// The bank's notifications reach our route through this relay while `relay.on`.
const relay = { on: false, forwarded: 0 };
let deliver: (body: string, contentType: string) => Promise<number> = async () => 503;
const relayServer = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', async () => {
    if (!relay.on) {
      response.statusCode = 202;
      response.end();
      return;
    }
    relay.forwarded++;
    response.statusCode = await deliver(body, String(request.headers['content-type']));
    response.end();
  });
});
await new Promise<void>((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
const relayPort = (relayServer.address() as { port: number }).port;

const bankDir = await mkdtemp(path.join(os.tmpdir(), 'obie-news-bank-'));
const bankDatabase = await createTestDatabase();
const bank = await startTestBank({
  dataDir: bankDir,
  databaseUrl: bankDatabase.url,
  redirectUris: [CALLBACK],
  eventUrl: `http://127.0.0.1:${relayPort}/event-notifications`,
  stepMs: 200,
});

const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 6 });
const config = testConfig({
  databaseUrl: database.url,
  publicBaseUrl: PUBLIC_BASE_URL,
  obieConnections: [{ bankId: BANK_ID, name: 'Sandbox Bank', clientFile: path.join(bankDir, 'client.json') }],
});
const background = await startBackground({
  config,
  orm,
  databaseUrl: database.url,
  clock: systemClock,
  logger: silentLogger(),
  runWorker: true,
});
// Polling switchable per test: notifications alone, then polling alone.
const polling = { on: false };
const scheduler: PaymentScheduler = {
  ...background.scheduler,
  providerPollDue: async (paymentId, attempt, dueAt) => {
    if (polling.on) await background.scheduler.providerPollDue?.(paymentId, attempt, dueAt);
  },
};
const app = await buildApp({ config, orm, clock: systemClock, scheduler });
await app.ready();
deliver = async (body, contentType) =>
  (
    await app.inject({
      method: 'POST',
      url: '/api/providers/obie/event-notifications',
      headers: { 'content-type': contentType },
      payload: body,
    })
  ).statusCode;

afterAll(async () => {
  await app.close();
  await background.stop();
  await bank.stop();
  await orm.close();
  await database.drop();
  await bankDatabase.drop();
  await rm(bankDir, { recursive: true, force: true });
  await new Promise((resolve) => relayServer.close(resolve));
});

const make = factories(orm, systemClock);
const merchant = await make.createMerchant();
await make.approveProvider(merchant.organizationId, 'obie');
const { headers } = merchant;

/** Status as stored: no domain read, so nothing is caught up or refreshed by looking. */
const storedStatus = async (paymentId: string) =>
  (await orm.em.fork().findOneOrFail(Payment, { id: paymentId })).status;

async function approvedAtBank(): Promise<string> {
  const payment = await created(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID }));
  const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
    action: 'approve',
  });
  const url = new URL(redirect);
  const back = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
  expect(back.statusCode).toBe(200);
  return payment.paymentId;
}

describe('news reaches the database with no read', () => {
  test('notifications alone (polling off)', async () => {
    relay.on = true;
    polling.on = false;
    const before = relay.forwarded;
    const paymentId = await approvedAtBank();
    await until(async () => (await storedStatus(paymentId)) === 'COMPLETED', 15_000);
    expect(relay.forwarded).toBeGreaterThan(before);
  });

  test('polling alone (notifications off)', async () => {
    relay.on = false;
    polling.on = true;
    const paymentId = await approvedAtBank();
    await until(async () => (await storedStatus(paymentId)) === 'COMPLETED', 20_000);
  });
});

describe('notifications that are not the bank', () => {
  test('a SET signed by another key, or garbage, is refused with 400 and changes nothing', async () => {
    const { privateKey } = await generateKeyPair('PS256');
    const forged = await new SignJWT({ events: {} })
      .setProtectedHeader({ alg: 'PS256', kid: 'forged' })
      .setIssuer('https://127.0.0.1')
      .setAudience('pis-obie')
      .setIssuedAt()
      .sign(privateKey);
    for (const payload of [forged, 'garbage']) {
      const answer = await app.inject({
        method: 'POST',
        url: '/api/providers/obie/event-notifications',
        headers: { 'content-type': 'application/jwt' },
        payload,
      });
      expect(answer.statusCode).toBe(400);
      expect(answer.json().error.code).toBe('NOTIFICATION_INVALID');
    }
  });
});

describe('a notification signed by the bank itself, for another audience', () => {
  test('is refused with 400; the same notification addressed to us is accepted', async () => {
    // The bank's own key and issuer, exactly as its notifier signs.
    const signer = {
      issuer: bank.issuer,
      apiBase: bank.apiBase,
      kid: bank.keys.bankSigningKey.kid,
      signingKey: await importJWK(bank.keys.bankSigningKey, 'PS256'),
    } as NotifierOptions;
    const send = async (audience: string) =>
      app.inject({
        method: 'POST',
        url: '/api/providers/obie/event-notifications',
        headers: { 'content-type': 'application/jwt' },
        payload: await eventToken(signer, audience, 'pmt-unknown', 'domestic-payments'),
      });
    const elsewhere = await send('another-client');
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error.code).toBe('NOTIFICATION_INVALID');
    expect((await send(bank.clientConfig.clientId)).statusCode).toBe(202);
  });

  test('its type, its age and its jti are checked: another typ, an old one and a replay are refused', async () => {
    // Issue 31 item 7: any SET the bank ever signed for us, replayed or years old, was taken.
    const signingKey = await importJWK(bank.keys.bankSigningKey, 'PS256');
    const token = (options: { typ?: string; issuedAt?: number; jti?: string } = {}) =>
      new SignJWT({ events: {} })
        .setProtectedHeader({ alg: 'PS256', kid: bank.keys.bankSigningKey.kid, typ: options.typ ?? 'JWT' })
        .setIssuer(bank.issuer)
        .setAudience(bank.clientConfig.clientId)
        .setIssuedAt(options.issuedAt ?? Math.floor(Date.now() / 1000))
        .setJti(options.jti ?? randomUUID())
        .sign(signingKey);
    const post = async (jwt: string) =>
      (
        await app.inject({
          method: 'POST',
          url: '/api/providers/obie/event-notifications',
          headers: { 'content-type': 'application/jwt' },
          payload: jwt,
        })
      ).statusCode;
    const fresh = await token();
    expect(await post(fresh)).toBe(202);
    expect(await post(fresh)).toBe(400);
    expect(await post(await token({ typ: 'secevent+jwt' }))).toBe(400);
    expect(await post(await token({ issuedAt: Math.floor(Date.now() / 1000) - 3_600 }))).toBe(400);
    expect(await post(await token())).toBe(202);
  });
});

describe('a bank outage', () => {
  test('create fails cleanly with nothing stored; sync reports it, GET hides it; recovery catches up', async () => {
    relay.on = false;
    polling.on = false;
    const payment = await created(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID }));
    const paymentId = payment.paymentId;
    writeFaults(bankDir, { ...NO_FAULTS, outage: true });
    try {
      // The bank reads its fault switches every second.
      await until(
        async () => (await post(app, headers, `/api/payments/${paymentId}/sync`)).statusCode === 502,
        5_000,
      );
      const count = await orm.em.fork().count(Payment, {});
      const failed = expectFailure(
        await createPayment(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
        502,
      );
      expect(failed.code).toBe('PROVIDER_UNAVAILABLE');
      expect(await orm.em.fork().count(Payment, {})).toBe(count);
      const sync = expectFailure(await post(app, headers, `/api/payments/${paymentId}/sync`), 502);
      expect(sync.code).toBe('PROVIDER_UNAVAILABLE');
      const read = await getPayment(app, headers, paymentId);
      expect(read.statusCode).toBe(200);
      expect(read.json().data.status).toBe('AUTHORIZING');
    } finally {
      writeFaults(bankDir, NO_FAULTS);
    }
    // Back up: the customer can finish, and the payment catches up.
    const redirect = await until(async () => {
      try {
        return await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
          action: 'approve',
        });
      } catch {
        return undefined;
      }
    }, 10_000);
    const url = new URL(redirect);
    expect((await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` })).statusCode).toBe(200);
    await until(async () => {
      await post(app, headers, `/api/payments/${paymentId}/sync`);
      return (await storedStatus(paymentId)) === 'COMPLETED';
    }, 10_000);
  });
});

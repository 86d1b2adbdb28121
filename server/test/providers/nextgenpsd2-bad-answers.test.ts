import { createHash, createVerify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import {
  CreatePaymentInput,
  type PaymentRecord,
  randomId,
  receivePayment,
  sendToProvider,
} from '@pis/shared';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { loadOrCreateKeys } from '../../../sandbox-bank/src/keys.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { createNextgenpsd2Provider } from '../../src/providers/nextgenpsd2/nextgenpsd2-provider.ts';
import { ProviderOutcomeUnknownError } from '../../src/providers/payment-provider.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

/**
 * The bank's answers are the bank's word: a scripted XS2A "bank" (https with the sandbox bank's
 * local CA, no mTLS check) answers what each test says, and the adapter must neither move a
 * payment on it nor keep what it cannot use.
 */
const PUBLIC_BASE_URL = 'https://pay.example';
const BANK_ID = 'sandbox-bank-eu';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };
type Script = (request: Seen, response: ServerResponse) => void;
let script: Script = (_request, response) => response.writeHead(500).end();
const seen: Seen[] = [];
const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nextgenpsd2-'));
const keys = await loadOrCreateKeys(dataDir);
const server = https.createServer(
  { cert: keys.serverCertPem, key: keys.serverKeyPem },
  (request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      seen.push(entry);
      script(entry, response);
    });
  },
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
const clientFile = path.join(dataDir, 'xs2a-client.json');
await writeFile(
  clientFile,
  JSON.stringify({
    baseUrl: `https://127.0.0.1:${port}/xs2a`,
    // Its customer pages, on another port of the same host (as Sandbox Bank EU's).
    scaRedirectOrigins: [`http://127.0.0.1:${port - 1}`],
    transport: {
      certificatePem: keys.client.transportCertPem,
      privateKeyPem: keys.client.transportKeyPem,
      caCertificatePem: keys.caCertPem,
    },
  }),
);

const ours = await createTestDatabase();
const orm = await openOrm(ours.url, { poolMax: 4 });
const provider = createNextgenpsd2Provider(
  [{ bankId: BANK_ID, name: 'Scripted bank', clientFile }],
  { publicBaseUrl: PUBLIC_BASE_URL, linkSigningSecret: 'l'.repeat(32) },
  orm,
  silentLogger(),
  PUBLIC_BASE_URL,
);
afterAll(async () => {
  await provider.close?.();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await orm.close();
  await ours.drop();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
});

function newPayment(amount = '42.00'): PaymentRecord {
  const now = new Date();
  const received = receivePayment(
    CreatePaymentInput.parse({
      toAccount: { accountName: 'Kaffeehaus Berlin GmbH', iban: 'DE89370400440532013000' },
      amount: { value: amount, currency: 'EUR' },
      reference: 'Order 42',
      provider: 'nextgenpsd2',
      bankId: BANK_ID,
    }),
    { id: randomId('pay'), organizationId: 'org_test', endToEndId: 'E2E42' },
    now,
  );
  return sendToProvider(received.record, BANK_ID, now).record;
}

const created = (scaRedirect = `http://127.0.0.1:${port - 1}/xs2a/sca/sca-1`) => ({
  transactionStatus: 'RCVD',
  paymentId: 'sct-1',
  _links: { scaRedirect: { href: scaRedirect } },
});
const rowOf = async (paymentId: string) =>
  (
    await orm.em
      .getConnection()
      .execute<{ bankPaymentId: string | null }[]>(
        'select bank_payment_id as "bankPaymentId" from nextgenpsd2_payment where payment_id = ?',
        [paymentId],
      )
  )[0];

/** A payment started at the scripted bank (its POST answered 201 RCVD). */
async function startedPayment() {
  script = (_request, response) => json(response, 201, created());
  const payment = newPayment();
  await provider.startPayment(payment, new Date());
  return payment;
}

describe('nextgenpsd2 against a bank that answers badly', () => {
  test('every request is signed: Digest, X-Request-ID, Date, Signature over them, the certificate', async () => {
    const payment = await startedPayment();
    const [post] = seen;
    expect(post?.url).toBe('/xs2a/v1/payments/sepa-credit-transfers');
    const headers = post?.headers ?? {};
    expect(headers.digest).toBe(
      `SHA-256=${createHash('sha256')
        .update(post?.body ?? '')
        .digest('base64')}`,
    );
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(String(headers.date)).getTime()).toBeGreaterThan(Date.now() - 60_000);
    // No customer in this request (API_ONLY): the address we reach the bank from, as the document says.
    expect(headers['psu-ip-address']).toBe('127.0.0.1');
    const redirect = new URL(String(headers['tpp-redirect-uri']));
    expect(`${redirect.origin}${redirect.pathname}`).toBe(
      `${PUBLIC_BASE_URL}/providers/nextgenpsd2/callback`,
    );
    expect(redirect.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(headers['tpp-nok-redirect-uri']).toBe(`${redirect.href}&nok=1`);
    expect(Buffer.from(String(headers['tpp-signature-certificate']), 'base64').length).toBeGreaterThan(100);
    const signature = /headers="([^"]+)",signature="([^"]+)"/.exec(String(headers.signature));
    expect(signature?.[1]).toBe('digest x-request-id tpp-redirect-uri date (request-target)');
    const text = (signature?.[1] ?? '')
      .split(' ')
      .map((name) =>
        name === '(request-target)' ? `${name}: post ${post?.url}` : `${name}: ${String(headers[name])}`,
      )
      .join('\n');
    expect(
      createVerify('RSA-SHA256')
        .update(text)
        .verify(keys.client.transportCertPem, signature?.[2] ?? '', 'base64'),
    ).toBe(true);
    expect(JSON.parse(post?.body ?? '')).toEqual({
      endToEndIdentification: 'E2E42',
      instructedAmount: { currency: 'EUR', amount: '42.00' },
      creditorAccount: { iban: 'DE89370400440532013000' },
      creditorName: 'Kaffeehaus Berlin GmbH',
      remittanceInformationUnstructured: 'Order 42',
    });
    expect((await rowOf(payment.id))?.bankPaymentId).toBe('sct-1');
  });

  test('a 201 that is not the document: refused, nothing kept', async () => {
    for (const body of [
      { transactionStatus: 'RCVD', _links: {} },
      { ...created(), paymentId: '../x' },
      'not json',
    ]) {
      script = (_request, response) =>
        typeof body === 'string' ? response.writeHead(201).end(body) : json(response, 201, body);
      const payment = newPayment();
      await expect(provider.startPayment(payment, new Date())).rejects.toThrow(/document|JSON/);
      expect(await rowOf(payment.id)).toBeUndefined();
      expect(await provider.hasPayment(payment, new Date())).toBe(false);
    }
  });

  test("PSU-IP-Address: the customer's public address when the start is theirs, else ours", async () => {
    script = (_request, response) => json(response, 201, created());
    const told = async (customerAddress: string) => {
      await provider.startPayment(newPayment(), new Date(), { customerAddress });
      return seen.at(-1)?.headers['psu-ip-address'];
    };
    expect(await told('81.2.69.160')).toBe('81.2.69.160');
    expect(await told('2a00:1450:4001:81b::200e')).toBe('2a00:1450:4001:81b::200e');
    expect(await told('::ffff:81.2.69.160')).toBe('81.2.69.160');
    // A proxy's, our own network's or no address at all (TRUST_PROXY unset behind a load
    // balancer): not the customer's, so ours, never passed on as it is.
    for (const notTheCustomers of ['10.0.0.7', '192.168.1.20', '127.0.0.1', 'fd00::1', 'unknown']) {
      expect(await told(notTheCustomers)).toBe('127.0.0.1');
    }
  });

  test('a scaRedirect to a script, with user information, to another host or port: refused and withdrawn', async () => {
    for (const href of [
      'javascript:alert(1)',
      'https://user@127.0.0.1/sca',
      'https://evil.example/sca',
      // The bank's own host, another port than its pages'.
      `http://127.0.0.1:${port + 1}/xs2a/sca/sca-1`,
    ]) {
      script = (request, response) =>
        request.method === 'POST' ? json(response, 201, created(href)) : response.writeHead(204).end();
      const payment = newPayment();
      await expect(provider.startPayment(payment, new Date())).rejects.toThrow(/configured origin/);
      expect(seen.at(-1)).toMatchObject({
        method: 'DELETE',
        url: '/xs2a/v1/payments/sepa-credit-transfers/sct-1',
      });
      expect(await provider.hasPayment(payment, new Date())).toBe(false);
    }
  });

  test("the bank's refusal: its tppMessages in the error; FORMAT_ERROR is the merchant's to fix", async () => {
    script = (_request, response) =>
      json(response, 400, {
        tppMessages: [
          { category: 'ERROR', code: 'FORMAT_ERROR', path: 'creditorAccount.iban', text: 'not a valid IBAN' },
        ],
      });
    const payment = newPayment();
    await expect(provider.startPayment(payment, new Date())).rejects.toMatchObject({
      kind: 'VALIDATION_FAILED',
      message: expect.stringContaining('creditorAccount.iban'),
    });
    expect(await rowOf(payment.id)).toBeUndefined();
    script = (_request, response) =>
      json(response, 401, { tppMessages: [{ category: 'ERROR', code: 'CERTIFICATE_INVALID' }] });
    await expect(provider.startPayment(newPayment(), new Date())).rejects.toThrow(
      /401 \(CERTIFICATE_INVALID/,
    );
    script = (_request, response) => json(response, 503, { tppMessages: [{ code: 'SERVICE_UNAVAILABLE' }] });
    const refused = provider.startPayment(newPayment(), new Date());
    await expect(refused).rejects.toThrow(/503/);
    await expect(refused).rejects.not.toBeInstanceOf(ProviderOutcomeUnknownError);
  });

  test('a stored scaRedirect off the pages origin (stored under an earlier rule) is not handed out', async () => {
    const payment = await startedPayment();
    script = (_request, response) => json(response, 200, { transactionStatus: 'RCVD' });
    expect(await provider.authorize?.(payment, new Date())).toBe(created()._links.scaRedirect.href);
    await orm.em
      .getConnection()
      .execute(`update nextgenpsd2_payment set sca_redirect = ? where payment_id = ?`, [
        `http://127.0.0.1:${port + 1}/xs2a/sca/sca-1`,
        payment.id,
      ]);
    expect(await provider.authorize?.(payment, new Date())).toBeNull();
  });

  test('a POST whose answer is lost is an unknown outcome; hasPayment then says no', async () => {
    for (const lose of [
      (_request: Seen, response: ServerResponse) => response.socket?.destroy(),
      (_request: Seen, response: ServerResponse) => json(response, 504, {}),
    ]) {
      script = lose;
      const payment = newPayment();
      await expect(provider.startPayment(payment, new Date())).rejects.toBeInstanceOf(
        ProviderOutcomeUnknownError,
      );
      // The row before the call stays (the state the bank was given), but no bank payment is known.
      expect(await rowOf(payment.id)).toEqual({ bankPaymentId: null });
      expect(await provider.hasPayment(payment, new Date())).toBe(false);
      expect(await provider.authorize?.(payment, new Date())).toBeNull();
    }
  });

  test('a status the table does not know, or a body off the schema, moves nothing: the read throws', async () => {
    const payment = await startedPayment();
    for (const body of [
      { transactionStatus: 'WXYZ' },
      { transactionStatus: 42 },
      { transactionStatus: 'constructor' },
      { transactionStatus: 'ACSC', fundsAvailable: 'yes' },
      { transactionStatus: 'ACSC', psuMessage: 'x'.repeat(100_000) },
    ]) {
      script = (_request, response) => json(response, 200, body);
      await expect(provider.readStatus(payment, new Date())).rejects.toThrow();
    }
    // A known one is news.
    script = (_request, response) => json(response, 200, { transactionStatus: 'ACSP', fundsAvailable: true });
    const update = await provider.readStatus(payment, new Date());
    expect(update(payment, new Date()).record).toMatchObject({
      status: 'ACCEPTED',
      providerStatus: { transaction: 'ACSP' },
    });
  });

  test('cancel: 405 past RCVD is not cancellable; 405 when already CANC is a repeat; RESOURCE_UNKNOWN is never taken for gone', async () => {
    const payment = await startedPayment();
    let status = 'ACSP';
    script = (request, response) => {
      if (request.method === 'DELETE')
        return json(response, 405, { tppMessages: [{ category: 'ERROR', code: 'CANCELLATION_INVALID' }] });
      return json(response, 200, { transactionStatus: status });
    };
    await expect(provider.cancelPayment(payment, new Date())).rejects.toMatchObject({
      kind: 'PAYMENT_NOT_CANCELLABLE',
    });
    status = 'CANC';
    await provider.cancelPayment(payment, new Date());
    // The bank does not know it as ours (a changed certificate?): unknown, never "cancelled".
    script = (_request, response) =>
      json(response, 403, { tppMessages: [{ category: 'ERROR', code: 'RESOURCE_UNKNOWN' }] });
    await expect(provider.cancelPayment(payment, new Date())).rejects.toBeInstanceOf(
      ProviderOutcomeUnknownError,
    );
  });
});

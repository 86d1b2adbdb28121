import path from 'node:path';
import {
  AppError,
  CreatePaymentInput,
  type PaymentRecord,
  randomId,
  receivePayment,
  sendToProvider,
} from '@pis/shared';
import { afterAll, describe, expect, test } from 'vitest';
import { startTestBank, until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerDecides, tppFor } from '../../../sandbox-bank/test/support/xs2a.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { readXs2aClient } from '../../src/providers/nextgenpsd2/nextgenpsd2-client.ts';
import {
  createNextgenpsd2Provider,
  scaPagesCheck,
} from '../../src/providers/nextgenpsd2/nextgenpsd2-provider.ts';
import type { CallbackOutcome, PaymentProvider, StatusUpdate } from '../../src/providers/payment-provider.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

/**
 * The `nextgenpsd2` adapter on its own against the real Sandbox Bank EU (its own database, free
 * ports, a fresh TPP certificate): start, the customer at the bank's pages without a browser
 * (sandbox-bank/test/support/xs2a.ts), back through the callback, statuses read until final.
 * The core (claims, routes) is not involved: each answer's step is applied to the record here.
 */
const PUBLIC_BASE_URL = 'http://localhost:3000';
const BANK_ID = 'sandbox-bank-eu';
const CREDITOR_IBAN = 'DE89370400440532013000';

const bankDatabase = await createTestDatabase();
const bank = await startTestBank({ databaseUrl: bankDatabase.url, stepMs: 200 });
const ours = await createTestDatabase();
const orm = await openOrm(ours.url, { poolMax: 4 });
const clientFile = path.join(bank.dataDir, 'xs2a-client.json');
const links = { publicBaseUrl: PUBLIC_BASE_URL, linkSigningSecret: 'l'.repeat(32) };
const provider = createNextgenpsd2Provider(
  [{ bankId: BANK_ID, name: 'Sandbox Bank EU', clientFile }],
  links,
  orm,
  silentLogger(),
  PUBLIC_BASE_URL,
);
/** The bank's own client (sandbox-bank's test helper): reads checked with Ajv against the official document. */
const tpp = tppFor({ ...bank.xs2a.clientConfig.transport, baseUrl: bank.xs2a.baseUrl });
afterAll(async () => {
  await provider.close?.();
  await tpp.close();
  await orm.close();
  await bank.stop();
  await ours.drop();
  await bankDatabase.drop();
});

/** A payment as the core hands it to the adapter: received, then sent to the bank (AUTHORIZING). */
function newPayment(amount = '42.00'): PaymentRecord {
  const now = new Date();
  const received = receivePayment(
    CreatePaymentInput.parse({
      toAccount: { accountName: 'Kaffeehaus Berlin GmbH', iban: CREDITOR_IBAN },
      amount: { value: amount, currency: 'EUR' },
      reference: `Order ${amount}`,
      provider: 'nextgenpsd2',
      bankId: BANK_ID,
    }),
    { id: randomId('pay'), organizationId: 'org_test', endToEndId: `E2E${Date.now()}` },
    now,
  );
  return sendToProvider(received.record, BANK_ID, now).record;
}

const apply = (payment: PaymentRecord, update: StatusUpdate) => update(payment, new Date()).record;

function news(outcome: CallbackOutcome) {
  if (outcome.kind !== 'news') throw new Error(`expected news, got ${JSON.stringify(outcome)}`);
  return outcome;
}

async function started(amount = '42.00', at: PaymentProvider = provider) {
  const payment = newPayment(amount);
  const { customerUrl } = await at.startPayment(payment, new Date());
  return { payment, customerUrl };
}

/** The bank's page our link leads to, then the customer's decision there; the URL they come back to. */
async function customerAtBank(payment: PaymentRecord, decision: Parameters<typeof customerDecides>[1]) {
  const scaRedirect = await provider.authorize?.(payment, new Date());
  expect(scaRedirect).toMatch(new RegExp(`^${bank.pagesUrl}/xs2a/sca/sca-[0-9a-f]{32}$`));
  return new URL(await customerDecides(scaRedirect as string, decision));
}

async function readUntil(payment: PaymentRecord, done: (record: PaymentRecord) => boolean) {
  let record = payment;
  await until(async () => {
    record = apply(record, await provider.readStatus(record, new Date()));
    return done(record);
  }, 8_000);
  return record;
}

/** The bank's payment id and status of one of ours, read by the bank's own client and checked against the document. */
async function atBank(paymentId: string) {
  const [row] = await orm.em
    .getConnection()
    .execute<{ bankPaymentId: string; product: string }[]>(
      `select bank_payment_id as "bankPaymentId", product from nextgenpsd2_payment where payment_id = ?`,
      [paymentId],
    );
  if (!row) return undefined;
  const answer = await tpp.call('GET', `/v1/payments/${row.product}/${row.bankPaymentId}/status`, {
    schema: 'paymentInitiationStatusResponse-200_json',
  });
  return answer.body as { transactionStatus: string; fundsAvailable?: boolean; psuMessage?: string };
}

describe('nextgenpsd2 through Sandbox Bank EU', () => {
  test('reads its client file with zod', () => {
    expect(readXs2aClient(clientFile).baseUrl).toBe(bank.xs2a.baseUrl);
    // The bank names its customer host: the only place its scaRedirect may lead (no origins configured).
    expect(readXs2aClient(clientFile).scaRedirectOrigins).toEqual([new URL(bank.pagesUrl).origin]);
    expect(() => readXs2aClient(path.join(bank.dataDir, 'client.json'))).toThrow(/not valid/);
  });

  test('start -> the bank page -> approve -> callback (ACTC) -> reads until ACSC', async () => {
    const { payment, customerUrl } = await started('12.34');
    expect(customerUrl).toMatch(/^http:\/\/localhost:3000\/providers\/nextgenpsd2\/authorize\/[^/]+$/);
    expect(await provider.hasPayment(payment, new Date())).toBe(true);
    expect(await atBank(payment.id)).toEqual({ transactionStatus: 'RCVD' });
    // Still waiting: the read says so and moves nothing.
    const waiting = apply(payment, await provider.readStatus(payment, new Date()));
    expect(waiting).toMatchObject({ status: 'AUTHORIZING', providerStatus: { transaction: 'RCVD' } });

    const back = await customerAtBank(waiting, { action: 'approve' });
    expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_BASE_URL}/providers/nextgenpsd2/callback`);
    expect(back.searchParams.get('nok')).toBeNull();
    const outcome = news((await provider.completeAuthorization?.(back, new Date())) as CallbackOutcome);
    expect(outcome.paymentId).toBe(payment.id);
    const approved = apply(waiting, outcome.update);
    expect(['AUTHORIZED', 'ACCEPTED', 'COMPLETED']).toContain(approved.status);

    // The customer's link leads nowhere now, and the same return is not taken twice.
    expect(await provider.authorize?.(approved, new Date())).toBeNull();
    expect(await provider.completeAuthorization?.(back, new Date())).toEqual({
      kind: 'refused',
      reason: 'this authorization was already used',
    });

    const completed = await readUntil(approved, (record) => record.status === 'COMPLETED');
    expect(completed).toMatchObject({ isoCode: 'ACSC', providerStatus: { transaction: 'ACSC' } });
    expect(await atBank(payment.id)).toEqual({ transactionStatus: 'ACSC', fundsAvailable: true });
    // Authorised: the merchant can no longer cancel it.
    await expect(provider.cancelPayment(completed, new Date())).rejects.toMatchObject({
      kind: 'PAYMENT_NOT_CANCELLABLE',
    });
  });

  test('the customer rejects: RJCT / CUST (the SCA failed), whatever the return says', async () => {
    const { payment } = await started('20.00');
    const back = await customerAtBank(payment, { action: 'reject' });
    expect(back.searchParams.get('nok')).toBe('1');
    const outcome = news((await provider.completeAuthorization?.(back, new Date())) as CallbackOutcome);
    const refused = apply(payment, outcome.update);
    expect(refused).toMatchObject({
      status: 'FAILED',
      isoCode: 'RJCT',
      isoReason: 'CUST',
      providerStatus: { transaction: 'RJCT', sca: 'failed' },
    });
    expect((await atBank(payment.id))?.transactionStatus).toBe('RJCT');
  });

  test('over the €50 pocket account: approved, then RJCT / AM04', async () => {
    const { payment } = await started('60.00');
    const back = await customerAtBank(payment, { action: 'approve', account: 'eu-pocket' });
    const approved = apply(
      payment,
      news((await provider.completeAuthorization?.(back, new Date())) as CallbackOutcome).update,
    );
    expect(approved.status).toBe('AUTHORIZED');
    const failed = await readUntil(approved, (record) => record.status === 'FAILED');
    expect(failed).toMatchObject({ isoCode: 'RJCT', isoReason: 'AM04' });
    expect(await atBank(payment.id)).toMatchObject({ transactionStatus: 'RJCT', fundsAvailable: false });
  });

  test('cancel while RCVD: CANC at the bank, safe to repeat; the link then leads nowhere', async () => {
    const { payment } = await started('5.00');
    await provider.cancelPayment(payment, new Date());
    expect((await atBank(payment.id))?.transactionStatus).toBe('CANC');
    await provider.cancelPayment(payment, new Date());
    const cancelled = apply(payment, await provider.readStatus(payment, new Date()));
    expect(cancelled).toMatchObject({ status: 'CANCELLED', isoCode: 'CANC' });
    expect(await provider.authorize?.(cancelled, new Date())).toBeNull();
  });

  test('a return without a decision, a forged state, a missing state: nothing moves', async () => {
    const { payment } = await started('7.00');
    const scaRedirect = (await provider.authorize?.(payment, new Date())) as string;
    const [row] = await orm.em
      .getConnection()
      .execute<{ state: string }[]>('select state from nextgenpsd2_payment where payment_id = ?', [
        payment.id,
      ]);
    // The customer's browser claims a refusal the bank never saw: the bank's RCVD decides.
    const early = new URL(`${PUBLIC_BASE_URL}/providers/nextgenpsd2/callback?state=${row?.state}&nok=1`);
    const outcome = news((await provider.completeAuthorization?.(early, new Date())) as CallbackOutcome);
    expect(apply(payment, outcome.update)).toMatchObject({ status: 'AUTHORIZING' });
    // ... and the customer can still go to the bank's page.
    expect(await provider.authorize?.(payment, new Date())).toBe(scaRedirect);

    for (const forged of ['state=AAAAAAAAAAAAAAAAAAAAAA', 'state=../../x', '']) {
      const outcomeOfForged = await provider.completeAuthorization?.(
        new URL(`${PUBLIC_BASE_URL}/providers/nextgenpsd2/callback?${forged}`),
        new Date(),
      );
      expect(outcomeOfForged?.kind).toBe('refused');
    }
  });

  test("a scaRedirect off the bank's configured pages origin is never handed out", async () => {
    const strict = createNextgenpsd2Provider(
      [
        {
          bankId: BANK_ID,
          name: 'Sandbox Bank EU',
          clientFile,
          scaRedirectOrigins: ['https://psd2.bank.example'],
        },
      ],
      links,
      orm,
      silentLogger(),
      PUBLIC_BASE_URL,
    );
    try {
      const payment = newPayment('9.00');
      const before = await bank.database.pool.query<{ n: number }>(
        `select count(*)::int as n from xs2a_payments where status = 'CANC'`,
      );
      await expect(strict.startPayment(payment, new Date())).rejects.toThrow(/configured origin/);
      expect(await strict.hasPayment(payment, new Date())).toBe(false);
      expect(await strict.authorize?.(payment, new Date())).toBeNull();
      // What the bank made was withdrawn there.
      const after = await bank.database.pool.query<{ n: number }>(
        `select count(*)::int as n from xs2a_payments where status = 'CANC'`,
      );
      expect(after.rows[0]?.n).toBe((before.rows[0]?.n ?? 0) + 1);
    } finally {
      await strict.close?.();
    }
  });

  test("without configured origins a scaRedirect must be on the API's own origin, port included", () => {
    const pages = scaPagesCheck(undefined, new URL('https://psd2.bank.example/xs2a'));
    expect(pages(new URL('https://psd2.bank.example/sca/1'))).toBe(true);
    expect(pages(new URL('https://psd2.bank.example:8443/sca/1'))).toBe(false);
    expect(pages(new URL('http://psd2.bank.example/sca/1'))).toBe(false);
    expect(pages(new URL('https://user@psd2.bank.example/sca/1'))).toBe(false);
    expect(pages(new URL('https://psd2.bank.example.evil.example/sca/1'))).toBe(false);
    const named = scaPagesCheck(['http://127.0.0.1:3300'], new URL('https://127.0.0.1:3301/xs2a'));
    expect(named(new URL('http://127.0.0.1:3300/xs2a/sca/1'))).toBe(true);
    expect(named(new URL('http://127.0.0.1:3302/xs2a/sca/1'))).toBe(false);
    expect(named(new URL('https://127.0.0.1:3301/xs2a/sca/1'))).toBe(false);
  });

  test('a payment the bank cannot take is refused before it is called', async () => {
    const payment = {
      ...newPayment('1.00'),
      toAccount: { accountName: 'Acme', sortCode: '123456', accountNumber: '12345678' },
    };
    await expect(provider.startPayment(payment, new Date())).rejects.toBeInstanceOf(AppError);
    expect(await provider.hasPayment(payment, new Date())).toBe(false);
  });

  test('no row: a read catches up only, a cancel has nothing to do', async () => {
    const payment = newPayment('3.00');
    expect(apply(payment, await provider.readStatus(payment, new Date())).status).toBe('AUTHORIZING');
    await provider.cancelPayment(payment, new Date());
    expect(await provider.hasPayment(payment, new Date())).toBe(false);
    expect(provider.bankIds?.()).toEqual([BANK_ID]);
  });
});

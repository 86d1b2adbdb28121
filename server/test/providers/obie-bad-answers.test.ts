import { afterAll, describe, expect, test } from 'vitest';
import { type AnswerFault, NO_FAULTS, writeFaults } from '../../../sandbox-bank/src/faults.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { ObieAuthorization, Payment, ProviderClaim } from '../../src/db/entities/index.ts';
import { silentLogger } from '../../src/logger.ts';
import { pollDelayMs, pollProviderPayment } from '../../src/payments/poll-provider.ts';
import { createObieProvider } from '../../src/providers/obie/obie-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { created, createPayment, paymentBody, post, readPayment } from '../payments/payment-fixtures.ts';
import { BANK_ID, CALLBACK, obieWithSandboxBank, openObieLink } from './obie-test-setup.ts';

/**
 * Issue 19, "Bad input": a bank that answers garbage, JSON without the OB fields, an unsigned or
 * wrongly signed answer, or a 500. The real sandbox bank's `answers` fault bends its PISP API
 * (token and PAR stay true, so each case reaches exactly the adapter's checks). For each: sync
 * says what happened (502 PROVIDER_UNAVAILABLE), a GET answers 200 with the last known status,
 * a create fails clearly and stores nothing, the poller keeps the status and backs off; once the
 * bank answers truly again, nothing was lost.
 */
// Steps a minute apart: an approved payment stays SUBMITTED (bank RCVD) for the whole file.
const {
  bank,
  connections: CONNECTIONS,
  polls,
  app,
  factories,
  orm,
  clock,
  config,
  pollRecorder,
} = await obieWithSandboxBank({
  stepMs: 60_000,
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'obie');
const { headers } = merchant;

const obie = createObieProvider(CONNECTIONS, config, orm, silentLogger());
afterAll(() => obie.close());
const workerDeps = {
  em: orm.em,
  clock,
  config,
  providers: createProviderRegistry([obie]),
  scheduler: pollRecorder,
  logger: silentLogger(),
};

/** The bank re-reads its fault switches every second. */
async function bankAnswers(answers: AnswerFault | null) {
  writeFaults(bank.dataDir, { ...NO_FAULTS, answers });
  await new Promise((resolve) => setTimeout(resolve, 2_200));
}

const sync = (paymentId: string) => post(app, headers, `/api/payments/${paymentId}/sync`);
const counts = async () => {
  const em = orm.em.fork();
  return {
    payments: await em.count(Payment, {}),
    claims: await em.count(ProviderClaim, {}),
    authorizations: await em.count(ObieAuthorization, {}),
  };
};

// Before any fault: one payment waiting for the customer, one the bank has received.
const waiting = await created(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID }));
const submitted = await created(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID }));
{
  const redirect = new URL(
    await customerAt(await openObieLink(app, submitted.redirectUrl), CALLBACK, { action: 'approve' }),
  );
  const back = await app.inject({ method: 'GET', url: `${redirect.pathname}${redirect.search}` });
  if (back.statusCode !== 200) throw new Error(`callback answered ${back.statusCode}`);
}
const known = {
  [waiting.paymentId]: await readPayment(app, headers, waiting.paymentId),
  [submitted.paymentId]: await readPayment(app, headers, submitted.paymentId),
};

test('the payments start where the faults will find them', () => {
  expect(known[waiting.paymentId]?.status).toBe('AUTHORIZING');
  expect(known[submitted.paymentId]?.status).toBe('SUBMITTED');
});

const FAULTS: { answers: AnswerFault; what: string }[] = [
  { answers: 'garbage', what: 'a signed body that is not JSON' },
  { answers: 'shapeless', what: 'signed JSON without the OB fields' },
  { answers: 'unsigned', what: 'the true answer with no x-jws-signature' },
  { answers: 'forged', what: 'the true answer under a signature over another body' },
  { answers: 'error500', what: 'a 500' },
];

describe.each(FAULTS)('a bank that answers $answers ($what)', ({ answers }) => {
  test('sync 502, GET the last known status, create stores nothing, the poller backs off; then it recovers', async () => {
    await bankAnswers(answers);
    try {
      for (const paymentId of [waiting.paymentId, submitted.paymentId]) {
        const refused = expectFailure(await sync(paymentId), 502);
        expect(refused.code).toBe('PROVIDER_UNAVAILABLE');
        // A read hides the failure: 200, exactly what we knew.
        expect(await readPayment(app, headers, paymentId)).toEqual(known[paymentId]);

        const before = polls.length;
        await pollProviderPayment(workerDeps, paymentId, 3);
        expect(polls.slice(before)).toEqual([{ paymentId, attempt: 4, delayMs: pollDelayMs(4) }]);
        expect((await orm.em.fork().findOneOrFail(Payment, { id: paymentId })).status).toBe(
          known[paymentId]?.status,
        );
      }

      const before = await counts();
      const failed = expectFailure(
        await createPayment(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
        502,
      );
      expect(failed.code).toBe('PROVIDER_UNAVAILABLE');
      expect(await counts()).toEqual(before);
    } finally {
      await bankAnswers(null);
    }
    for (const paymentId of [waiting.paymentId, submitted.paymentId]) {
      const again = expectSuccess<{ status: string }>(await sync(paymentId));
      expect(again.status).toBe(known[paymentId]?.status);
    }
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBankCommand } from '../src/cli/admin.ts';
import {
  freshDatabase,
  REDIRECT_URI,
  startCatcher,
  startTestBank,
  type TestBank,
  until,
} from './support/bank.ts';
import { authorisedConsent, connect, consentRequest, paymentRequest } from './support/provider-client.ts';

/** The bank's scriptable behaviour: balances, restarts, a dead callback, and the fault switches. */
describe('the sandbox bank', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  async function bankAndProvider(overrides: Parameters<typeof startTestBank>[0] = {}) {
    const bank = await startTestBank(overrides);
    const provider = await connect(bank.clientConfig);
    cleanup.push(
      () => bank.stop(),
      () => provider.close(),
    );
    return { bank, provider };
  }
  const balance = async (bank: TestBank, id: string) =>
    (await bank.database.pool.query('select balance from accounts where id = $1', [id])).rows[0]
      .balance as string;

  it('rejects a payment above the chosen account’s balance with AM04, and debits nothing', async () => {
    const { bank, provider } = await bankAndProvider();
    const { clientToken, consentId, request, accessToken } = await authorisedConsent(provider, REDIRECT_URI, {
      amount: '300.00',
      account: 'acc-savings',
    });
    const funds = await provider.api('GET', `/domestic-payment-consents/${consentId}/funds-confirmation`, {
      token: accessToken,
    });
    expect(funds.body.Data.FundsAvailableResult.FundsAvailable).toBe(false);
    const paid = await provider.api('POST', '/domestic-payments', {
      token: accessToken,
      body: paymentRequest(consentId, request),
    });
    const id = paid.body.Data.DomesticPaymentId;
    const rejected = await until(async () => {
      const answer = await provider.api('GET', `/domestic-payments/${id}`, {
        token: clientToken,
        schema: 'OBWriteDomesticResponse5',
      });
      return answer.body.Data.Status === 'RJCT' ? answer : undefined;
    });
    expect(rejected.body.Data.StatusReason[0].StatusReasonCode).toBe('AM04');
    expect(await balance(bank, 'acc-savings')).toBe('250.00');
    const details = await provider.api('GET', `/domestic-payments/${id}/payment-details`, {
      token: clientToken,
      schema: 'OBWritePaymentDetailsResponse1',
    });
    expect(details.body.Data.PaymentStatus).toEqual([
      expect.objectContaining({ Status: 'RJCT', StatusDetail: { Status: 'RJCT', StatusReason: 'AM04' } }),
    ]);
  });

  it('debits the £10,000.00 current account once, and finishes a payment after a restart', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-bank-restart-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const databaseUrl = await freshDatabase();
    const first = await startTestBank({ dataDir, databaseUrl, stepMs: 1_500 });
    const firstProvider = await connect(first.clientConfig);
    expect(await balance(first, 'acc-current')).toBe('10000.00');
    const { consentId, request, accessToken } = await authorisedConsent(firstProvider, REDIRECT_URI, {
      amount: '1234.56',
    });
    const paid = await firstProvider.api('POST', '/domestic-payments', {
      token: accessToken,
      body: paymentRequest(consentId, request),
    });
    expect(paid.body.Data.Status).toBe('RCVD');
    const kid = first.clientConfig.signingKey.kid;
    await firstProvider.close();
    await first.stop(); // with the payment still RCVD

    const second = await bankAndProvider({ dataDir, databaseUrl, stepMs: 200 });
    expect(second.bank.clientConfig.signingKey.kid).toBe(kid);
    const token = await second.provider.clientCredentials();
    await until(async () => {
      const answer = await second.provider.api(
        'GET',
        `/domestic-payments/${paid.body.Data.DomesticPaymentId}`,
        {
          token,
        },
      );
      return answer.body.Data.Status === 'ACSC' ? true : undefined;
    });
    expect(await balance(second.bank, 'acc-current')).toBe('8765.44');
  });

  it('keeps working while its callback is down, and delivers once it is back', async () => {
    const catcher = await startCatcher();
    cleanup.push(() => catcher.close());
    catcher.failWith(500);
    const { bank, provider } = await bankAndProvider({ eventUrl: catcher.url });
    const { clientToken, consentId, request, accessToken } = await authorisedConsent(provider, REDIRECT_URI);
    const paid = await provider.api('POST', '/domestic-payments', {
      token: accessToken,
      body: paymentRequest(consentId, request),
    });
    await until(async () => {
      const answer = await provider.api('GET', `/domestic-payments/${paid.body.Data.DomesticPaymentId}`, {
        token: clientToken,
      });
      return answer.body.Data.Status === 'ACSC' ? true : undefined;
    });
    await until(() => (catcher.received.length >= 3 ? true : undefined));
    const failing = await bank.database.pool.query(
      "select count(*)::int as n from event_notifications where delivered_at is null and last_error = 'HTTP 500'",
    );
    expect(failing.rows[0].n).toBeGreaterThan(0);
    catcher.failWith(undefined);
    await until(
      async () =>
        (
          await bank.database.pool.query(
            'select count(*)::int as n from event_notifications where delivered_at is null',
          )
        ).rows[0].n === 0
          ? true
          : undefined,
      15_000,
    );
  });

  it('answers its PISP API wrongly when told (garbage, shapeless, unsigned, forged, 500), tokens still true', async () => {
    const { bank, provider } = await bankAndProvider();
    const token = await provider.clientCredentials();
    const read = () =>
      provider
        .api('GET', '/domestic-payment-consents/pdc-00000000000000000000000000000000', { token })
        .catch((error: unknown) => error);
    const answering = async (mode: string, looks: (answer: unknown) => boolean) => {
      expect(runBankCommand(['sandbox-bank:answers', '--mode', mode], bank.dataDir).code).toBe(0);
      await until(async () => (looks(await read()) ? true : undefined), 2_500);
    };
    // The reference client verifies each signature before it trusts a body, then parses it.
    await answering('garbage', (answer) => answer instanceof SyntaxError);
    await answering(
      'shapeless',
      (answer) =>
        (answer as { status?: number; text?: string }).status === 200 &&
        (answer as { text: string }).text === '{"Data":{},"Links":{},"Meta":{}}',
    );
    await answering('unsigned', (answer) => /did not sign/.test(String(answer)));
    await answering(
      'forged',
      (answer) => (answer as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
    await answering(
      'error500',
      (answer) =>
        (answer as { status?: number; body?: { Errors?: { ErrorCode: string }[] } }).status === 500 &&
        (answer as { body: { Errors: { ErrorCode: string }[] } }).body.Errors[0]?.ErrorCode === 'U500',
    );
    expect(await provider.clientCredentials()).toBeTruthy();
    runBankCommand(['sandbox-bank:answers', '--off'], bank.dataDir);
    await until(
      async () => (((await read()) as { status?: number }).status === 400 ? true : undefined),
      2_500,
    );
  });

  it('switches outage, throttling and slowness on and off from its CLI within 2 seconds', async () => {
    const { bank, provider } = await bankAndProvider();
    const token = await provider.clientCredentials();
    const read = () =>
      provider.api('GET', '/domestic-payment-consents/pdc-00000000000000000000000000000000', { token });

    expect(runBankCommand(['sandbox-bank:outage', '--on'], bank.dataDir).code).toBe(0);
    const down = await until(async () => {
      const answer = await read();
      return answer.status === 503 ? answer : undefined;
    }, 2_500);
    expect(down.body.Errors[0].ErrorCode).toBe('U503');
    const page = await fetch(`${bank.pagesUrl}/`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('Sandbox Bank is unavailable');
    await expect(provider.clientCredentials()).rejects.toBeTruthy();

    runBankCommand(['sandbox-bank:outage', '--off'], bank.dataDir);
    runBankCommand(['sandbox-bank:throttle', '--retry-after', '7'], bank.dataDir);
    const throttled = await until(async () => {
      const answer = await read();
      return answer.status === 429 ? answer : undefined;
    }, 2_500);
    expect(throttled.headers.get('retry-after')).toBe('7');

    runBankCommand(['sandbox-bank:throttle', '--off'], bank.dataDir);
    runBankCommand(['sandbox-bank:slow', '--ms', '800'], bank.dataDir);
    await until(async () => {
      const started = Date.now();
      const answer = await read();
      return answer.status === 400 && Date.now() - started >= 800 ? true : undefined;
    }, 4_000);

    expect(runBankCommand(['sandbox-bank:faults', '--clear'], bank.dataDir).code).toBe(0);
    expect(runBankCommand(['sandbox-bank:outage'], bank.dataDir).code).toBe(2);
    await until(async () => {
      const started = Date.now();
      const answer = await read();
      return answer.status === 400 && Date.now() - started < 800 ? true : undefined;
    }, 2_500);
    expect(
      (await provider.api('POST', '/domestic-payment-consents', { token, body: consentRequest() })).status,
    ).toBe(201);
  });
});

import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { querySummary, startTracing } from '../../src/observability/tracing.ts';
import { signUpWithTwoStep } from '../accounts/two-step-steps.ts';
import { DashboardBrowser } from '../dashboard/dashboard-browser.ts';
import type { TestClock } from '../helpers/test-clock.ts';
import { created, paymentBody, post, readPayment, tokenOf } from '../payments/payment-fixtures.ts';
import { BANK_ID, CALLBACK, obieWithSandboxBank, openObieLink } from '../providers/obie-test-setup.ts';

/**
 * Issue 31 item 2: exported spans held the TOTP setup secret byte for byte, the argon2 hash, the
 * CSRF token, recovery-code hashes, a `/pay/<token>` link from the idempotency row and a payee's
 * account number: MikroORM 7 inlines values into the SQL text it sends, and that text was the
 * statement span's `db.query.text`. Walked here: sign-up, two-step set up, a create with an
 * Idempotency-Key, an `obie` payment paid at the sandbox bank; then every attribute of every
 * exported span is searched for each secret.
 */
const { SimpleSpanProcessor, InMemorySpanExporter: Exporter } = await import('@opentelemetry/sdk-trace');
const setup = await obieWithSandboxBank({ stepMs: 200 });
const { app, orm, factories } = setup;
const clock = setup.clock as TestClock;
const exporter: InMemorySpanExporter = new Exporter();
const tracing = await startTracing({ endpoint: 'http://127.0.0.1:9/', serviceName: 'pis-test' }, [
  new SimpleSpanProcessor({ exporter }),
]);
afterAll(() => tracing.shutdown());

/** A payee account number nothing else in the run has. */
const ACCOUNT_NUMBER = '73104926';
const body = (overrides: Record<string, unknown> = {}) =>
  paymentBody({
    toAccount: { accountName: 'Trace Ltd', sortCode: '04-00-04', accountNumber: ACCOUNT_NUMBER },
    ...overrides,
  });

describe('traces carry no secret and no customer data', () => {
  it('no exported span attribute holds a secret, a hash, a link token or an account number', async () => {
    const b = new DashboardBrowser(app, '198.51.100.77');
    const { session, setup: twoStep, recoveryCodes } = await signUpWithTwoStep(b, clock);
    expect(recoveryCodes.length).toBeGreaterThan(0);

    const merchant = await factories.createMerchant();
    await factories.approveProvider(merchant.organizationId, 'obie');
    const hosted = await created(app, { ...merchant.headers, 'idempotency-key': 'order-trace-1' }, body());
    // The replay reads the idempotency row, whose stored answer holds the customer link.
    await created(app, { ...merchant.headers, 'idempotency-key': 'order-trace-1' }, body());

    const obie = await created(app, merchant.headers, body({ provider: 'obie', bankId: BANK_ID }));
    const bankPage = await openObieLink(app, obie.redirectUrl);
    const redirect = await customerAt(bankPage, CALLBACK, { action: 'approve' });
    const url = new URL(redirect);
    expect((await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` })).statusCode).toBe(200);
    await until(async () => {
      await post(app, merchant.headers, `/api/payments/${obie.paymentId}/sync`);
      return (await readPayment(app, merchant.headers, obie.paymentId)).status === 'COMPLETED'
        ? true
        : undefined;
    });

    const [user] = await orm.em
      .fork()
      .execute<{ password_hash: string; totp_recovery_hashes: string[] }[]>(
        'select password_hash, totp_recovery_hashes from dashboard_user where id = ?',
        [session.user.id],
      );
    const secrets: Record<string, string> = {
      'TOTP secret': twoStep.setupKey,
      'argon2 hash': String(user?.password_hash),
      'CSRF token': session.csrfToken,
      'hosted link token': tokenOf(hosted.redirectUrl),
      'obie link token': tokenOf(obie.redirectUrl),
      'account number': ACCOUNT_NUMBER,
      ...Object.fromEntries(
        (user?.totp_recovery_hashes ?? []).map((hash, i) => [`recovery hash ${i}`, hash]),
      ),
      ...Object.fromEntries(recoveryCodes.map((code, i) => [`recovery code ${i}`, code])),
    };
    const spans = exporter.getFinishedSpans();
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(20);
    const exported = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes })));
    for (const [what, secret] of Object.entries(secrets)) {
      expect(secret.length, what).toBeGreaterThan(5);
      expect(exported.includes(secret), `${what} in a span`).toBe(false);
    }
    // Every statement still says what it did and where.
    expect(statements.every((span) => typeof span.attributes['db.query.summary'] === 'string')).toBe(true);
    expect(statements.some((span) => span.attributes['db.query.summary'] === 'insert dashboard_user')).toBe(
      true,
    );
    // A statement whose values were bound keeps its text (placeholders, no values).
    expect(statements.some((span) => String(span.attributes['db.query.text'] ?? '').includes('$1'))).toBe(
      true,
    );
  });

  it('summarises a statement by its operation and first table, never its values', () => {
    expect(querySummary(`insert into "payment" ("id") values ('pay_1')`)).toBe('insert payment');
    expect(querySummary(`update dashboard_user set totp_secret = 'JBSWY3DP' where id = 'u'`)).toBe(
      'update dashboard_user',
    );
    expect(querySummary('select 1')).toBe('select');
    expect(querySummary(`with k as (select * from api_key) select * from k`)).toBe('with api_key');
  });
});

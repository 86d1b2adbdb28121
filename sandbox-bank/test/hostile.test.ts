import { describe, expect, it } from 'vitest';
import { REDIRECT_URI } from './support/bank.ts';
import { customerAt } from './support/customer.ts';
import {
  authorisedConsent,
  bankWithProvider,
  consentRequest,
  paymentRequest,
} from './support/provider-client.ts';

/**
 * What a hostile provider (holding the client's own keys and certificate) could send past the
 * signature and token checks: each answers the OB envelope, never a 500, and changes nothing.
 */
describe('a hostile provider', () => {
  const started = bankWithProvider();
  const { count } = started;

  it('cannot ask for a fraction of a penny (the balance column keeps pence: nothing would be debited)', async () => {
    const before = await count('consents');
    for (const amount of ['0.004', '1.005', '10.10000']) {
      const answer = await started.provider.api('POST', '/domestic-payment-consents', {
        token: started.clientToken,
        body: consentRequest(amount),
      });
      expect(answer.status, amount).toBe(400);
      expect(answer.body.Errors[0].ErrorCode).toBe('U001');
      expect(answer.body.Errors[0].Path).toBe('Data.Initiation.InstructedAmount.Amount');
    }
    expect(await count('consents')).toBe(before);
    const whole = await started.provider.api('POST', '/domestic-payment-consents', {
      token: started.clientToken,
      body: consentRequest('7'),
    });
    expect(whole.status).toBe(201);
  });

  it('cannot make the bank fail with JSON the database cannot store or that nests without end', async () => {
    const before = await count('consents');
    const raw = JSON.stringify(consentRequest());
    const bodies = {
      nul: raw.replace('Acme Coffee Ltd', 'Acme\\u0000Coffee'),
      'lone surrogate': raw.replace('Acme Coffee Ltd', 'Acme\\ud800Coffee'),
      'nul in a key': raw.replace('"Risk":{', '"Risk":{"DeliveryAddress":{"a\\u0000":"b"},'),
      'deep nesting': raw.replace(
        '"Risk":{',
        `"Risk":{"DeliveryAddress":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}},`,
      ),
    };
    for (const [name, body] of Object.entries(bodies)) {
      const answer = await started.provider.api('POST', '/domestic-payment-consents', {
        token: started.clientToken,
        rawBody: body,
      });
      expect(answer.status, name).toBe(400);
      expect(answer.body.Errors[0].ErrorCode, name).toBe('U009');
    }
    expect(await count('consents')).toBe(before);
  });

  it('gets 415 for a body that is not JSON, whatever parser the framework has for its type', async () => {
    const raw = JSON.stringify(consentRequest());
    for (const type of ['text/plain', 'text/plain; charset=utf-8']) {
      const answer = await started.provider.api('POST', '/domestic-payment-consents', {
        token: started.clientToken,
        rawBody: raw,
        headers: { 'content-type': type },
      });
      expect(answer.status, type).toBe(415);
      expect(answer.body.Errors[0].ErrorCode).toBe('U415');
    }
  });

  it('gets the signed OB envelope for a malformed or overlong path', async () => {
    for (const path of ['/domestic-payments/%E0%A4%A', `/domestic-payment-consents/${'a'.repeat(500)}`]) {
      const answer = await started.provider.api('GET', path, { token: started.clientToken });
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.body.Errors[0].ErrorCode, path).toMatch(/^U\d{3}$/);
    }
  });

  it('cannot have a consent that names the debtor account paid from another one', async () => {
    const request = consentRequest('3.00', 'SWEEP-1') as ReturnType<typeof consentRequest> & {
      Data: { Initiation: { DebtorAccount?: object } };
    };
    request.Data.Initiation.DebtorAccount = {
      SchemeName: 'UK.OBIE.SortCodeAccountNumber',
      Identification: '60161331926820',
      Name: 'Savings account',
    };
    const consent = await started.provider.api('POST', '/domestic-payment-consents', {
      token: started.clientToken,
      body: request,
    });
    const consentId = consent.body.Data.ConsentId;
    const status = async () =>
      (
        await started.bank.database.pool.query(
          'select status, debtor_account_id from consents where id = $1',
          [consentId],
        )
      ).rows[0];

    const other = await started.provider.authorizationUrl(consentId);
    await expect(
      customerAt(other.url, REDIRECT_URI, { action: 'approve', account: 'acc-current' }),
    ).rejects.toThrow();
    expect(await status()).toEqual({ status: 'AWAU', debtor_account_id: null });

    const named = await started.provider.authorizationUrl(consentId);
    const callback = await customerAt(named.url, REDIRECT_URI, { action: 'approve', account: 'acc-savings' });
    await started.provider.exchange(callback, named);
    expect(await status()).toEqual({ status: 'AUTH', debtor_account_id: 'acc-savings' });
  });

  it('cannot spend one consent twice by racing payments under different idempotency keys', async () => {
    const { consentId, request, accessToken } = await authorisedConsent(started.provider, REDIRECT_URI);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        started.provider.api('POST', '/domestic-payments', {
          token: accessToken,
          body: paymentRequest(consentId, request),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    const made = await started.bank.database.pool.query(
      'select count(*) from payments where consent_id = $1',
      [consentId],
    );
    expect(Number(made.rows[0].count)).toBe(1);
  });

  it('cannot point an authorization at another consent with query parameters beside request_uri', async () => {
    const intended = await started.provider.api('POST', '/domestic-payment-consents', {
      token: started.clientToken,
      body: consentRequest('1.00', 'INTENDED'),
    });
    const other = await started.provider.api('POST', '/domestic-payment-consents', {
      token: started.clientToken,
      body: consentRequest('900.00', 'OTHER'),
    });
    const authorization = await started.provider.authorizationUrl(intended.body.Data.ConsentId);
    const url = new URL(authorization.url);
    url.searchParams.set(
      'claims',
      JSON.stringify({
        id_token: { openbanking_intent_id: { value: other.body.Data.ConsentId, essential: true } },
      }),
    );
    url.searchParams.set('redirect_uri', 'https://evil.example/callback');
    const callback = await customerAt(url, REDIRECT_URI, { action: 'approve' });
    expect(callback.startsWith(REDIRECT_URI)).toBe(true);
    const statuses = await started.bank.database.pool.query(
      'select id, status from consents where id = any($1)',
      [[intended.body.Data.ConsentId, other.body.Data.ConsentId]],
    );
    expect(Object.fromEntries(statuses.rows.map((row) => [row.id, row.status]))).toEqual({
      [intended.body.Data.ConsentId]: 'AUTH',
      [other.body.Data.ConsentId]: 'AWAU',
    });
  });
});

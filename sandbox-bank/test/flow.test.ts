import { createLocalJWKSet, type JWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatcher, startTestBank, type TestBank, until } from './support/bank.ts';
import { customerAt } from './support/customer.ts';
import { assertEventNotification, assertMatches } from './support/ob-schemas.ts';
import { connect, consentRequest, type Provider, paymentRequest } from './support/provider-client.ts';

/** The whole domestic payment as a provider runs it, every body checked against the standard. */
describe('a domestic payment through the sandbox bank', () => {
  let bank: TestBank;
  let provider: Provider;
  let catcher: Awaited<ReturnType<typeof startCatcher>>;

  beforeAll(async () => {
    catcher = await startCatcher();
    bank = await startTestBank({ eventUrl: catcher.url });
    provider = await connect(bank.clientConfig);
  });
  afterAll(async () => {
    await provider?.close();
    await bank?.stop();
    await catcher?.close();
  });

  it('goes from consent to ACSC, and tells the client at each step', async () => {
    const discovery = provider.config.serverMetadata();
    expect(discovery.authorization_endpoint).toBe(`${bank.pagesUrl}/auth`);
    expect(discovery.tls_client_certificate_bound_access_tokens).toBe(true);

    const clientToken = await provider.clientCredentials();
    const request = consentRequest('12.50', 'ORDER-FLOW-1');
    assertMatches('OBWriteDomesticConsent4', request);
    const created = await provider.api('POST', '/domestic-payment-consents', {
      token: clientToken,
      body: request,
      schema: 'OBWriteDomesticConsentResponse5',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.Data.Status).toBe('AWAU');
    const consentId: string = created.body.Data.ConsentId;

    const read = await provider.api('GET', `/domestic-payment-consents/${consentId}`, {
      token: clientToken,
      schema: 'OBWriteDomesticConsentResponse5',
    });
    expect(read.body.Data.Status).toBe('AWAU');

    const authorization = await provider.authorizationUrl(consentId);
    expect(authorization.url.origin).toBe(bank.pagesUrl);
    const callback = await customerAt(authorization.url, bank.clientConfig.redirectUris[0]!, {
      action: 'approve',
    });
    expect(new URL(callback).searchParams.get('response')).toBeTruthy();
    const tokens = await provider.exchange(callback, authorization);
    const claims = tokens.claims();
    expect(claims?.openbanking_intent_id).toBe(consentId);
    expect(claims?.acr).toBe('urn:openbanking:psd2:sca');

    const authorised = await provider.api('GET', `/domestic-payment-consents/${consentId}`, {
      token: clientToken,
      schema: 'OBWriteDomesticConsentResponse5',
    });
    expect(authorised.body.Data.Status).toBe('AUTH');
    expect(authorised.body.Data.Debtor.Name).toBe('Current account');

    const funds = await provider.api('GET', `/domestic-payment-consents/${consentId}/funds-confirmation`, {
      token: tokens.access_token,
      schema: 'OBWriteFundsConfirmationResponse1',
    });
    expect(funds.body.Data.FundsAvailableResult.FundsAvailable).toBe(true);

    const payment = paymentRequest(consentId, request);
    assertMatches('OBWriteDomestic2', payment);
    const submitted = await provider.api('POST', '/domestic-payments', {
      token: tokens.access_token,
      body: payment,
      schema: 'OBWriteDomesticResponse5',
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body.Data.Status).toBe('RCVD');
    const paymentId: string = submitted.body.Data.DomesticPaymentId;

    const consumed = await provider.api('GET', `/domestic-payment-consents/${consentId}`, {
      token: clientToken,
    });
    expect(consumed.body.Data.Status).toBe('COND');

    const seen: string[] = [];
    const completed = await until(async () => {
      const answer = await provider.api('GET', `/domestic-payments/${paymentId}`, {
        token: clientToken,
        schema: 'OBWriteDomesticResponse5',
      });
      seen.push(answer.body.Data.Status);
      return answer.body.Data.Status === 'ACSC' ? answer : undefined;
    });
    expect(completed.body.Data.Status).toBe('ACSC');
    // Never backwards: the statuses seen are in the engine's order.
    const order = ['RCVD', 'ACSP', 'ACSC'];
    expect(seen.map((status) => order.indexOf(status))).toEqual(
      [...seen.map((status) => order.indexOf(status))].sort(),
    );

    const details = await provider.api('GET', `/domestic-payments/${paymentId}/payment-details`, {
      token: clientToken,
      schema: 'OBWritePaymentDetailsResponse1',
    });
    expect(details.body.Data.PaymentStatus.map((step: { Status: string }) => step.Status)).toEqual([
      'ACSP',
      'ACSC',
    ]);

    // One notification per status change, each a signed SET naming the payment.
    await until(() => (catcher.received.length >= 2 ? true : undefined));
    const bankKeys = createLocalJWKSet(bank.clientConfig.bankSigningKeys as { keys: JWK[] });
    for (const notification of catcher.received) {
      expect(notification.headers['content-type']).toBe('application/jwt');
      const { payload } = await jwtVerify(notification.body, bankKeys, {
        issuer: bank.issuer,
        audience: bank.clientConfig.clientId,
        algorithms: ['PS256'],
      });
      assertEventNotification(payload);
      const event = payload.events as Record<string, { subject: Record<string, string> }>;
      expect(
        event['urn:uk:org:openbanking:events:resource-update']?.subject['http://openbanking.org.uk/rid'],
      ).toBe(paymentId);
    }
  });
});

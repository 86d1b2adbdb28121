import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { REDIRECT_URI } from './support/bank.ts';
import { customerAt } from './support/customer.ts';
import {
  authorisedConsent,
  bankWithProvider,
  consentRequest,
  type Provider,
  paymentRequest,
} from './support/provider-client.ts';

/** Every refusal the issue lists: each answers the right error and changes nothing. */
describe('the bank refuses', () => {
  const started = bankWithProvider();
  const { count } = started;

  const postConsent = (options: Parameters<Provider['api']>[2]) =>
    started.provider.api('POST', '/domestic-payment-consents', options);

  describe('a request signature that is', () => {
    const body = consentRequest();
    const raw = JSON.stringify(body);

    it('missing', async () => {
      const before = await count('consents');
      const answer = await postConsent({ token: started.clientToken, rawBody: raw, signature: null });
      expect(answer.status).toBe(400);
      expect(answer.body.Errors[0].ErrorCode).toBe('U018');
      expect(await count('consents')).toBe(before);
    });

    it('made with a key that is not the client’s', async () => {
      const { privateKey } = await generateKeyPair('PS256');
      const answer = await postConsent({
        token: started.clientToken,
        rawBody: raw,
        signature: await started.provider.signBody(raw, {}, privateKey),
      });
      expect(answer.status).toBe(400);
      expect(answer.body.Errors[0].ErrorCode).toBe('U016');
    });

    it('over another body', async () => {
      const answer = await postConsent({
        token: started.clientToken,
        rawBody: raw,
        signature: await started.provider.signBody(JSON.stringify(consentRequest('99.00'))),
      });
      expect(answer.body.Errors[0].ErrorCode).toBe('U016');
    });

    it('dated in the future, or missing a critical claim, or not detached, or with an unknown kid', async () => {
      const future = await started.provider.signBody(raw, {
        'http://openbanking.org.uk/iat': Math.floor(Date.now() / 1000) + 3600,
      });
      expect(
        (await postConsent({ token: started.clientToken, rawBody: raw, signature: future })).body.Errors[0]
          .ErrorCode,
      ).toBe('U017');
      const noCrit = await started.provider.signBody(raw, { crit: ['http://openbanking.org.uk/iat'] });
      expect(
        (await postConsent({ token: started.clientToken, rawBody: raw, signature: noCrit })).status,
      ).toBe(400);
      const attached = (await started.provider.signBody(raw)).replace(
        '..',
        `.${Buffer.from(raw).toString('base64url')}.`,
      );
      expect(
        (await postConsent({ token: started.clientToken, rawBody: raw, signature: attached })).body.Errors[0]
          .ErrorCode,
      ).toBe('U020');
      const otherKid = await started.provider.signBody(raw, { kid: 'not-a-key' });
      expect(
        (await postConsent({ token: started.clientToken, rawBody: raw, signature: otherKid })).body.Errors[0]
          .ErrorCode,
      ).toBe('U016');
      const garbage = await postConsent({ token: started.clientToken, rawBody: raw, signature: '%%%..%%%' });
      expect(garbage.status).toBe(400);
    });
  });

  describe('at the authorization server', () => {
    it('an unsigned request object, or plain PAR parameters', async () => {
      const consent = await postConsent({ token: started.clientToken, body: consentRequest() });
      const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(
        JSON.stringify({
          iss: started.bank.clientConfig.clientId,
          aud: started.bank.issuer,
          client_id: started.bank.clientConfig.clientId,
          response_type: 'code',
          scope: 'openid payments',
          redirect_uri: REDIRECT_URI,
          exp: Math.floor(Date.now() / 1000) + 300,
          nbf: Math.floor(Date.now() / 1000),
        }),
      ).toString('base64url')}.`;
      await expect(
        client.buildAuthorizationUrlWithPAR(started.provider.config, { request: none }),
      ).rejects.toMatchObject({
        error: 'invalid_request_object',
      });
      await expect(
        client.buildAuthorizationUrlWithPAR(started.provider.config, {
          redirect_uri: REDIRECT_URI,
          scope: 'openid payments',
          response_type: 'code',
          claims: JSON.stringify({
            id_token: { openbanking_intent_id: { value: consent.body.Data.ConsentId, essential: true } },
          }),
        }),
      ).rejects.toMatchObject({ error: expect.stringMatching(/invalid_request/) });
    });

    it('a request object signed with a key that is not the client’s', async () => {
      const consent = await postConsent({ token: started.clientToken, body: consentRequest() });
      const { privateKey } = await generateKeyPair('PS256');
      const forged = await new SignJWT({
        client_id: started.bank.clientConfig.clientId,
        response_type: 'code',
        response_mode: 'jwt',
        scope: 'openid payments',
        redirect_uri: REDIRECT_URI,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        claims: {
          id_token: { openbanking_intent_id: { value: consent.body.Data.ConsentId, essential: true } },
        },
      })
        .setProtectedHeader({ alg: 'PS256', kid: started.bank.clientConfig.signingKey.kid })
        .setIssuer(started.bank.clientConfig.clientId)
        .setAudience(started.bank.issuer)
        .setIssuedAt()
        .setNotBefore('0s')
        .setExpirationTime('5m')
        .setJti(randomUUID())
        .sign(privateKey);
      await expect(
        client.buildAuthorizationUrlWithPAR(started.provider.config, { request: forged }),
      ).rejects.toMatchObject({
        error: 'invalid_request_object',
      });
    });

    it('a code exchange without the PKCE verifier', async () => {
      const consent = await postConsent({ token: started.clientToken, body: consentRequest() });
      const authorization = await started.provider.authorizationUrl(consent.body.Data.ConsentId);
      const callback = await customerAt(authorization.url, REDIRECT_URI, { action: 'approve' });
      await expect(
        client.authorizationCodeGrant(started.provider.config, new URL(callback), {
          expectedState: authorization.state,
          expectedNonce: authorization.nonce,
          idTokenExpected: true,
        }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it('a reused code', async () => {
      const consent = await postConsent({ token: started.clientToken, body: consentRequest() });
      const authorization = await started.provider.authorizationUrl(consent.body.Data.ConsentId);
      const callback = await customerAt(authorization.url, REDIRECT_URI, { action: 'approve' });
      await started.provider.exchange(callback, authorization);
      await expect(started.provider.exchange(callback, authorization)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
    });

    it('an authorization for an unknown consent, or one already authorised', async () => {
      const authorization = await started.provider.authorizationUrl('pdc-00000000000000000000000000000000');
      const callback = await customerAt(authorization.url, REDIRECT_URI, { action: 'approve' });
      await expect(started.provider.exchange(callback, authorization)).rejects.toMatchObject({
        error: 'invalid_request',
      });
    });

    it('a bank page without its interaction, or a form posted from another origin', async () => {
      const stale = await fetch(`${started.bank.pagesUrl}/interaction/not-a-real-one`);
      expect(stale.status).toBe(400);
      expect(await stale.text()).toContain('This sign-in has expired');
      const forged = await fetch(`${started.bank.pagesUrl}/interaction/not-a-real-one/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: 'action=approve&account=acc-current',
      });
      expect(forged.status).toBe(403);
      const noApi = await fetch(`${started.bank.pagesUrl}/token`, { method: 'POST' });
      expect(noApi.status).toBe(404);
    });

    it('a client without its TLS certificate', async () => {
      const bare = new Agent({ connect: { ca: started.bank.clientConfig.transport.caCertificatePem } });
      const response = await undiciFetch(`${started.bank.issuer}/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payments' }),
        dispatcher: bare,
      });
      expect(response.status).toBe(401);
      const api = await undiciFetch(
        `${started.bank.apiBase}/domestic-payment-consents/pdc-00000000000000000000000000000000`,
        {
          headers: { authorization: `Bearer ${started.clientToken}` },
          dispatcher: bare,
        },
      );
      expect(api.status).toBe(401);
      await bare.close();
    });
  });

  describe('the PISP API', () => {
    it('a token of another consent, and the wrong grant for a call', async () => {
      const first = await authorisedConsent(started.provider, REDIRECT_URI, { reference: 'ORDER-A' });
      const second = await authorisedConsent(started.provider, REDIRECT_URI, { reference: 'ORDER-B' });
      const before = await count('payments');
      const crossed = await started.provider.api('POST', '/domestic-payments', {
        token: first.accessToken,
        body: paymentRequest(second.consentId, second.request),
      });
      expect(crossed.status).toBe(403);
      const withClientToken = await started.provider.api('POST', '/domestic-payments', {
        token: started.clientToken,
        body: paymentRequest(first.consentId, first.request),
      });
      expect(withClientToken.status).toBe(403);
      const readWithCustomerToken = await started.provider.api(
        'GET',
        `/domestic-payment-consents/${first.consentId}`,
        {
          token: first.accessToken,
        },
      );
      expect(readWithCustomerToken.status).toBe(403);
      const noToken = await started.provider.api('GET', `/domestic-payment-consents/${first.consentId}`, {
        token: 'nonsense',
      });
      expect(noToken.status).toBe(401);
      expect(await count('payments')).toBe(before);
    });

    it('a payment that does not match its consent (U008), and a second payment on one consent', async () => {
      const { consentId, request, accessToken } = await authorisedConsent(started.provider, REDIRECT_URI);
      const other = structuredClone(paymentRequest(consentId, request));
      other.Data.Initiation.InstructedAmount.Amount = '999.99';
      const mismatch = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body: other,
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.Errors[0].ErrorCode).toBe('U008');
      const otherRisk = {
        ...paymentRequest(consentId, request),
        Risk: { PaymentContextCode: 'TransferToSelf' as const },
      };
      const riskMismatch = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body: otherRisk,
      });
      expect(riskMismatch.body.Errors[0].ErrorCode).toBe('U008');

      const paid = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body: paymentRequest(consentId, request),
      });
      expect(paid.status).toBe(201);
      const again = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body: paymentRequest(consentId, request),
      });
      expect(again.status).toBe(400);
      expect(again.body.Errors[0].ErrorCode).toBe('U007');
    });

    it('unknown ids with 400, not 404', async () => {
      for (const path of [
        '/domestic-payment-consents/pdc-00000000000000000000000000000000',
        '/domestic-payment-consents/not-an-id',
        '/domestic-payments/dp-00000000000000000000000000000000',
        '/domestic-payments/dp-00000000000000000000000000000000/payment-details',
        `/domestic-payments/${encodeURIComponent("' or 1=1 --")}`,
      ]) {
        const answer = await started.provider.api('GET', path, { token: started.clientToken });
        expect(answer.status, path).toBe(400);
        expect(answer.body.Errors[0].ErrorCode).toBe('U010');
      }
    });

    it('an idempotency key replayed: the same body gets the same consent, another body is refused', async () => {
      const key = randomUUID();
      const body = consentRequest('5.00', 'IDEMP-1');
      const first = await postConsent({ token: started.clientToken, body, idempotencyKey: key });
      const replay = await postConsent({ token: started.clientToken, body, idempotencyKey: key });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body.Data.ConsentId).toBe(first.body.Data.ConsentId);
      const before = await count('consents');
      const other = await postConsent({
        token: started.clientToken,
        body: consentRequest('6.00', 'IDEMP-1'),
        idempotencyKey: key,
      });
      expect(other.status).toBe(400);
      expect(other.body.Errors[0].ErrorCode).toBe('U012');
      expect(await count('consents')).toBe(before);
      const missing = await started.provider.api('POST', '/domestic-payment-consents', {
        token: started.clientToken,
        body,
        headers: { 'x-idempotency-key': 'k'.repeat(41) },
      });
      expect(missing.body.Errors[0].ErrorCode).toBe('U005');
    });

    it('a payment replayed under its idempotency key is the same payment', async () => {
      const { consentId, request, accessToken } = await authorisedConsent(started.provider, REDIRECT_URI);
      const key = randomUUID();
      const body = paymentRequest(consentId, request);
      const first = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body,
        idempotencyKey: key,
      });
      const replay = await started.provider.api('POST', '/domestic-payments', {
        token: accessToken,
        body,
        idempotencyKey: key,
      });
      expect(replay.status).toBe(201);
      expect(replay.body.Data.DomesticPaymentId).toBe(first.body.Data.DomesticPaymentId);
    });
  });

  describe('bad input', () => {
    it('bad JSON, a wrong content type, a huge body, a hostile interaction id: the envelope, never a 500', async () => {
      const before = await count('consents');
      const badJson = await postConsent({ token: started.clientToken, rawBody: '{"Data":' });
      expect(badJson.status).toBe(400);
      const wrongType = await postConsent({
        token: started.clientToken,
        rawBody: 'Data=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(wrongType.status).toBe(415);
      const huge = await postConsent({
        token: started.clientToken,
        rawBody: JSON.stringify({ Data: 'x'.repeat(200_000) }),
      });
      expect(huge.status).toBe(413);
      const notAnObject = await postConsent({ token: started.clientToken, rawBody: 'null' });
      expect(notAnObject.status).toBe(400);
      const extra = consentRequest() as Record<string, unknown>;
      extra.Status = 'AUTH';
      const unexpected = await postConsent({ token: started.clientToken, body: extra });
      expect(unexpected.status).toBe(400);
      expect(unexpected.body.Errors[0].ErrorCode).toBe('U004');
      const euros = consentRequest();
      euros.Data.Initiation.InstructedAmount.Currency = 'EUR';
      expect((await postConsent({ token: started.clientToken, body: euros })).body.Errors[0].ErrorCode).toBe(
        'U013',
      );
      const negative = consentRequest('-1.00');
      expect((await postConsent({ token: started.clientToken, body: negative })).status).toBe(400);
      const hostile = await started.provider.api(
        'GET',
        '/domestic-payment-consents/pdc-00000000000000000000000000000000',
        {
          token: started.clientToken,
          headers: { 'x-fapi-interaction-id': `<script>${'a'.repeat(300)}` },
        },
      );
      expect(hostile.headers.get('x-fapi-interaction-id')).toMatch(/^[0-9a-f-]{36}$/);
      const echoed = await started.provider.api(
        'GET',
        '/domestic-payment-consents/pdc-00000000000000000000000000000000',
        {
          token: started.clientToken,
          headers: { 'x-fapi-interaction-id': '93bac548-d2de-4546-b106-880a5018460d' },
        },
      );
      expect(echoed.headers.get('x-fapi-interaction-id')).toBe('93bac548-d2de-4546-b106-880a5018460d');
      const notAcceptable = await started.provider.api(
        'GET',
        '/domestic-payment-consents/pdc-00000000000000000000000000000000',
        {
          token: started.clientToken,
          headers: { accept: 'text/html' },
        },
      );
      expect(notAcceptable.status).toBe(406);
      expect(await count('consents')).toBe(before);
    });

    it('an expired or replayed client assertion at the token endpoint', async () => {
      const assertion = (exp: number, jti: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'PS256', kid: started.bank.clientConfig.signingKey.kid })
          .setIssuer(started.bank.clientConfig.clientId)
          .setSubject(started.bank.clientConfig.clientId)
          .setAudience(started.bank.issuer)
          .setIssuedAt()
          .setExpirationTime(exp)
          .setJti(jti)
          .sign(started.provider.signingKey);
      const token = (clientAssertion: string) =>
        undiciFetch(`${started.bank.issuer}/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            scope: 'payments',
            client_id: started.bank.clientConfig.clientId,
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: clientAssertion,
          }),
          dispatcher: started.provider.agent,
        });
      const expired = await token(await assertion(Math.floor(Date.now() / 1000) - 60, randomUUID()));
      expect(expired.status).toBe(401);
      const once = await assertion(Math.floor(Date.now() / 1000) + 60, randomUUID());
      expect((await token(once)).status).toBe(200);
      expect((await token(once)).status).toBe(401);
    });
  });
});

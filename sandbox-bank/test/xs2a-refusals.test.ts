import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { runAnyBankCommand, runBankCommand } from '../src/cli/admin.ts';
import { type CaMaterial, issueTppCertificate, loadOrCreateCa } from '../src/xs2a/certificates.ts';
import { tlsAgent, xs2aClient } from '../src/xs2a-client/client.ts';
import { until } from './support/bank.ts';
import { bankWithTpp, initiationHeaders, paymentBody, SCT, type Tpp, tppFor } from './support/xs2a.ts';
import { assertXs2aError } from './support/xs2a-schemas.ts';

/**
 * Every refusal of Sandbox Bank EU: the certificate (TLS and signing), the signature, the
 * request's format. Each answers the standard's code in a body valid against the document and
 * creates nothing. Then the fault switches, which cover this face as they cover the UK one.
 */
describe('Sandbox Bank EU refuses', () => {
  const started = bankWithTpp();
  const temp: string[] = [];
  afterAll(async () => {
    for (const dir of temp) await rm(dir, { recursive: true, force: true });
  });
  const bankCa = async () =>
    JSON.parse(await readFile(path.join(started.bank.dataDir, 'xs2a-ca.json'), 'utf8')) as CaMaterial;
  const tlsCa = () => started.bank.xs2a.clientConfig.transport.caCertificatePem;
  const ours = () => started.bank.xs2a.clientConfig.transport;
  /** A client signing with `signer` over a TLS connection made with `transport`'s certificate. */
  const clientWith = (signer: { certificatePem: string; privateKeyPem: string }, transport = signer) =>
    xs2aClient(
      { ...signer, caCertificatePem: tlsCa(), baseUrl: started.bank.xs2a.baseUrl },
      tlsAgent({ ...transport, caCertificatePem: tlsCa() }),
    );

  const set = (name: string, value: string) => (headers: Record<string, string>) => {
    headers[name] = value;
  };

  async function refused(
    answerOf: () => Promise<{ status: number; body: unknown }>,
    status: number,
    code: string,
    pathName?: string,
  ) {
    const before = await started.count();
    const answer = await answerOf();
    expect(answer.status).toBe(status);
    assertXs2aError(status, answer.body);
    const message = (answer.body as { tppMessages: { code: string; path?: string }[] }).tppMessages[0];
    expect(message?.code).toBe(code);
    if (pathName) expect(message?.path).toBe(pathName);
    expect(await started.count()).toBe(before);
  }
  const post = (tpp: Pick<Tpp, 'request'>, options: Parameters<Tpp['request']>[2] = {}) =>
    tpp.request('POST', SCT, { body: paymentBody(), headers: initiationHeaders, ...options });

  describe('a TLS client certificate that is', () => {
    it('missing: CERTIFICATE_MISSING', async () => {
      const client = xs2aClient(
        { ...ours(), caCertificatePem: tlsCa(), baseUrl: started.bank.xs2a.baseUrl },
        new Agent({ connect: { ca: tlsCa() } }),
      );
      await refused(() => post(client), 401, 'CERTIFICATE_MISSING');
      await client.close();
    });

    it('the UK face’s client certificate (another CA, no authorisation number): CERTIFICATE_INVALID', async () => {
      const uk = started.bank.clientConfig.transport;
      const client = clientWith(ours(), {
        certificatePem: uk.certificatePem,
        privateKeyPem: uk.privateKeyPem,
      });
      await refused(() => post(client), 401, 'CERTIFICATE_INVALID');
      await client.close();
    });

    it('from another CA, even with an authorisation number: CERTIFICATE_INVALID', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'xs2a-foreign-ca-'));
      temp.push(dir);
      const foreign = await issueTppCertificate(await loadOrCreateCa(dir), {
        authorisationNumber: 'PSDDE-BAFIN-123456',
        name: 'Impostor',
      });
      const client = clientWith(foreign);
      await refused(() => post(client), 401, 'CERTIFICATE_INVALID');
      await client.close();
    });

    it('expired: CERTIFICATE_EXPIRED', async () => {
      const expired = await issueTppCertificate(await bankCa(), {
        authorisationNumber: 'PSDDE-BAFIN-123456',
        name: 'Expired',
        notBefore: new Date(Date.now() - 10 * 24 * 3600 * 1000),
        validDays: 1,
      });
      const client = clientWith(expired);
      await refused(() => post(client), 401, 'CERTIFICATE_EXPIRED');
      await client.close();
    });
  });

  describe('a request signature', () => {
    it('missing: SIGNATURE_MISSING', async () => {
      await refused(() => post(started.tpp, { omit: ['signature'] }), 401, 'SIGNATURE_MISSING');
    });

    it('without TPP-Signature-Certificate: CERTIFICATE_MISSING', async () => {
      await refused(() => post(started.tpp, { omit: ['certificate'] }), 401, 'CERTIFICATE_MISSING');
    });

    it('with a TPP-Signature-Certificate that is not a certificate: CERTIFICATE_INVALID', async () => {
      await refused(
        () =>
          post(started.tpp, {
            tamper: set('tpp-signature-certificate', 'bm90IGEgY2VydA=='),
          }),
        401,
        'CERTIFICATE_INVALID',
      );
    });

    it('by another TPP than the TLS certificate’s: CERTIFICATE_INVALID', async () => {
      const other = await issueTppCertificate(await bankCa(), {
        authorisationNumber: 'PSDFR-ACPR-99999',
        name: 'Another TPP',
      });
      const client = clientWith(other, ours());
      await refused(() => post(client), 401, 'CERTIFICATE_INVALID');
      await client.close();
    });

    it('without a Digest: FORMAT_ERROR; with the Digest of another body: SIGNATURE_INVALID', async () => {
      await refused(
        () => post(started.tpp, { omit: ['digest'], signedHeaders: ['x-request-id'] }),
        400,
        'FORMAT_ERROR',
        'Digest',
      );
      await refused(
        () =>
          post(started.tpp, {
            tamper: set('digest', 'SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='),
          }),
        401,
        'SIGNATURE_INVALID',
      );
    });

    it('over a changed header, by another key, or not covering x-request-id: SIGNATURE_INVALID', async () => {
      await refused(
        () =>
          post(started.tpp, {
            tamper: set('tpp-redirect-uri', 'https://evil.example/'),
          }),
        401,
        'SIGNATURE_INVALID',
      );
      const stranger = await issueTppCertificate(await bankCa(), {
        authorisationNumber: 'PSDDE-BAFIN-123456',
        name: 'Same number, other key',
      });
      const wrongKey = xs2aClient(
        {
          ...ours(),
          privateKeyPem: stranger.privateKeyPem,
          caCertificatePem: tlsCa(),
          baseUrl: started.bank.xs2a.baseUrl,
        },
        tlsAgent({ ...ours(), caCertificatePem: tlsCa() }),
      );
      await refused(() => post(wrongKey), 401, 'SIGNATURE_INVALID');
      await wrongKey.close();
      await refused(
        () => post(started.tpp, { signedHeaders: ['digest', 'tpp-redirect-uri'] }),
        401,
        'SIGNATURE_INVALID',
      );
      await refused(
        () =>
          post(started.tpp, {
            tamper: set('signature', 'keyId="SN=01,CA=CN=x",signature="AAAA"'),
          }),
        401,
        'SIGNATURE_INVALID',
      );
    });

    it('is asked of reads too: a GET without one is refused', async () => {
      await refused(
        () => started.tpp.request('GET', `${SCT}/sct-${'0'.repeat(32)}/status`, { omit: ['signature'] }),
        401,
        'SIGNATURE_MISSING',
      );
    });
  });

  describe('a request that is malformed: FORMAT_ERROR naming what', () => {
    const cases: [string, Parameters<Tpp['request']>[2], string | undefined][] = [
      ['no X-Request-ID', { omit: ['x-request-id'] }, 'X-Request-ID'],
      [
        'an X-Request-ID that is not a UUID',
        { headers: { ...initiationHeaders, 'x-request-id': 'abc' } },
        'X-Request-ID',
      ],
      [
        'no PSU-IP-Address',
        { headers: { 'tpp-redirect-uri': initiationHeaders['tpp-redirect-uri'] } },
        'PSU-IP-Address',
      ],
      ['no TPP-Redirect-URI', { headers: { 'psu-ip-address': '10.0.0.1' } }, 'TPP-Redirect-URI'],
      [
        'a TPP-Redirect-URI over plain http to another host',
        { headers: { ...initiationHeaders, 'tpp-redirect-uri': 'http://merchant.example/back' } },
        'TPP-Redirect-URI',
      ],
      ['a body that is not JSON', { rawBody: '{"instructedAmount":' }, undefined],
      [
        'a currency other than EUR',
        { body: paymentBody('1.00', { instructedAmount: { currency: 'GBP', amount: '1.00' } }) },
        'instructedAmount.currency',
      ],
      ['more than 2 decimals', { body: paymentBody('1.005') }, 'instructedAmount.amount'],
      [
        'an invalid creditor IBAN',
        { body: paymentBody('1.00', { creditorAccount: { iban: 'DE00370400440532013000' } }) },
        'creditorAccount.iban',
      ],
      [
        'a creditor by sort code',
        { body: paymentBody('1.00', { creditorAccount: { bban: '60161331926819' } }) },
        'creditorAccount.iban',
      ],
      ['no creditorName', { body: { ...paymentBody(), creditorName: undefined } }, 'creditorName'],
      ['an unknown field', { body: paymentBody('1.00', { requestedExecutionTime: 'now' }) }, undefined],
      [
        'a debtor account of another bank',
        { body: paymentBody('1.00', { debtorAccount: { iban: 'DE89370400440532013000' } }) },
        'debtorAccount.iban',
      ],
    ];
    for (const [name, options, pathName] of cases) {
      it(name, async () => {
        await refused(() => post(started.tpp, options), 400, 'FORMAT_ERROR', pathName);
      });
    }
  });

  describe('hostile input, never a 500', () => {
    it('a NUL in a field, nesting thousands deep, a malformed path: FORMAT_ERROR', async () => {
      await refused(
        () => post(started.tpp, { body: { ...paymentBody(), creditorName: 'Kaffee\u0000haus' } }),
        400,
        'FORMAT_ERROR',
        'creditorName',
      );
      await refused(
        () => post(started.tpp, { rawBody: `${'['.repeat(6000)}${']'.repeat(6000)}` }),
        400,
        'FORMAT_ERROR',
      );
      await refused(() => started.tpp.request('GET', `${SCT}/%E0%A4%A/status`), 400, 'FORMAT_ERROR');
    });

    it('a body too large (413), not JSON (415), an Accept it cannot meet (406)', async () => {
      const large = await post(started.tpp, {
        body: { ...paymentBody(), remittanceInformationUnstructured: 'x'.repeat(20_000) },
      });
      expect(large.status).toBe(413);
      expect(large.body.tppMessages[0].code).toBe('FORMAT_ERROR');
      const plain = await post(started.tpp, {
        headers: { ...initiationHeaders, 'content-type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      await refused(
        () => post(started.tpp, { headers: { ...initiationHeaders, accept: 'text/html' } }),
        406,
        'NOT_ACCEPTABLE',
      );
    });

    it('without a certificate, nothing else is read: CERTIFICATE_MISSING before a broken body', async () => {
      const client = xs2aClient(
        { ...ours(), caCertificatePem: tlsCa(), baseUrl: started.bank.xs2a.baseUrl },
        new Agent({ connect: { ca: tlsCa() } }),
      );
      await refused(() => post(client, { rawBody: '{not json' }), 401, 'CERTIFICATE_MISSING');
      await client.close();
    });
  });

  it('an unknown product (404 PRODUCT_UNKNOWN), and another TPP’s or an unknown payment (403 RESOURCE_UNKNOWN)', async () => {
    await refused(
      () =>
        started.tpp.request('POST', '/v1/payments/pain.001-sepa-credit-transfers', {
          body: paymentBody(),
          headers: initiationHeaders,
        }),
      404,
      'PRODUCT_UNKNOWN',
    );
    const created = await started.tpp.call('POST', SCT, { body: paymentBody(), headers: initiationHeaders });
    const other = await issueTppCertificate(await bankCa(), {
      authorisationNumber: 'PSDFR-ACPR-99999',
      name: 'Another TPP',
    });
    const client = tppFor({ ...other, caCertificatePem: tlsCa(), baseUrl: started.bank.xs2a.baseUrl });
    await refused(
      () => client.call('GET', `${SCT}/${created.body.paymentId}/status`),
      403,
      'RESOURCE_UNKNOWN',
      'paymentId',
    );
    await refused(() => client.call('DELETE', `${SCT}/${created.body.paymentId}`), 403, 'RESOURCE_UNKNOWN');
    await refused(() => started.tpp.call('GET', `${SCT}/sct-${'f'.repeat(32)}`), 403, 'RESOURCE_UNKNOWN');
    await refused(() => started.tpp.call('GET', `${SCT}/'; drop table x`), 403, 'RESOURCE_UNKNOWN');
    await client.close();
  });

  it('issues a TPP certificate from its CLI that the bank then accepts', async () => {
    const { output, code } = await runAnyBankCommand(
      ['sandbox-bank:tpp-certificate', '--authorisation-number', 'PSDAT-FMA-4242', '--name', 'Shop AT'],
      started.bank.dataDir,
    );
    expect(code).toBe(0);
    const issued = JSON.parse(output);
    expect(issued.keyId).toMatch(/^SN=[0-9A-F]+,CA=CN=Sandbox Bank EU TPP CA/);
    const client = tppFor({ ...issued, baseUrl: started.bank.xs2a.baseUrl });
    const created = await client.call('POST', SCT, {
      body: paymentBody(),
      headers: initiationHeaders,
      schema: 'paymentInitationRequestResponse-201',
    });
    expect(created.status).toBe(201);
    await client.close();
    expect(
      (
        await runAnyBankCommand(
          ['sandbox-bank:tpp-certificate', '--authorisation-number', 'ACME'],
          started.bank.dataDir,
        )
      ).code,
    ).toBe(2);
  });

  it('the outage, throttle and slow switches cover this face and its pages (within 2 s)', async () => {
    const created = await started.tpp.call('POST', SCT, { body: paymentBody(), headers: initiationHeaders });
    const scaPage = created.body._links.scaRedirect.href;
    const statusPath = `${SCT}/${created.body.paymentId}/status`;
    try {
      runBankCommand(['sandbox-bank:outage', '--on'], started.bank.dataDir);
      const down = await until(async () => {
        const answer = await started.tpp.call('GET', statusPath);
        return answer.status === 503 ? answer : undefined;
      }, 3_000);
      expect(down.body.tppMessages[0].code).toBe('SERVICE_UNAVAILABLE');
      expect((await fetch(scaPage)).status).toBe(503);
      runBankCommand(['sandbox-bank:outage', '--off'], started.bank.dataDir);
      runBankCommand(['sandbox-bank:throttle', '--retry-after', '7'], started.bank.dataDir);
      const throttled = await until(async () => {
        const answer = await started.tpp.call('GET', statusPath);
        return answer.status === 429 ? answer : undefined;
      }, 3_000);
      expect(throttled.headers.get('retry-after')).toBe('7');
      expect(throttled.body.tppMessages[0].code).toBe('ACCESS_EXCEEDED');
      runBankCommand(['sandbox-bank:throttle', '--off'], started.bank.dataDir);
      runBankCommand(['sandbox-bank:slow', '--ms', '800'], started.bank.dataDir);
      await until(async () => {
        const begun = Date.now();
        const answer = await started.tpp.call('GET', statusPath);
        return answer.status === 200 && Date.now() - begun >= 800;
      }, 4_000);
    } finally {
      runBankCommand(['sandbox-bank:faults', '--clear'], started.bank.dataDir);
    }
    await until(async () => (await started.tpp.call('GET', statusPath)).status === 200, 3_000);
  });
});

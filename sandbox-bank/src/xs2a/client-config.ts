import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EU_ACCOUNTS, EU_BANK, EU_CUSTOMER } from './accounts.ts';
import { type CaMaterial, issueTppCertificate } from './certificates.ts';

/**
 * `xs2a-client.json` in the data folder: everything the service's `nextgenpsd2` provider needs
 * to call Sandbox Bank EU, as `client.json` is for the UK face. The bank issues the service's
 * TPP certificate on first start (authorisation number SANDBOX_BANK_TPP_ID) and keeps it; the
 * URLs are rewritten on every start.
 */
export interface Xs2aClientFile {
  description: string;
  bank: { id: string; name: string; country: string; bic: string };
  standard: 'Berlin Group NextGenPSD2 1.3.11';
  baseUrl: string;
  /** Where `_links.scaRedirect` sends the customer: the customer's host, not the API's (mTLS) one. */
  scaRedirectOrigins: string[];
  authorisationNumber: string;
  /** The TLS client certificate and its key; the same certificate signs requests (TPP-Signature-Certificate). */
  transport: { certificatePem: string; privateKeyPem: string; caCertificatePem: string };
  /** The CA that issues TPP certificates (organizationIdentifier = the authorisation number). */
  tppCaCertificatePem: string;
  signing: { keyId: string; algorithm: 'rsa-sha256'; headers: string };
  practiceAccounts: { name: string; iban: string; openingBalance: string; currency: 'EUR' }[];
  customer: { username: string; password: string };
}

export const xs2aClientFile = (dataDir: string) => path.join(dataDir, 'xs2a-client.json');

export async function writeXs2aClientConfig(options: {
  dataDir: string;
  ca: CaMaterial;
  tppId: string;
  baseUrl: string;
  pagesUrl: string;
  tlsCaCertificatePem: string;
}): Promise<Xs2aClientFile> {
  const file = xs2aClientFile(options.dataDir);
  const caCert = new X509Certificate(options.ca.certPem);
  let known: Pick<Xs2aClientFile, 'authorisationNumber' | 'transport'> | undefined;
  if (existsSync(file)) {
    try {
      known = JSON.parse(readFileSync(file, 'utf8')) as Xs2aClientFile;
      const cert = new X509Certificate(known.transport.certificatePem);
      const usable =
        known.authorisationNumber === options.tppId &&
        cert.checkIssued(caCert) &&
        cert.verify(caCert.publicKey) &&
        new Date(cert.validTo).getTime() > Date.now() + 24 * 3600 * 1000;
      if (!usable) known = undefined;
    } catch {
      known = undefined;
    }
  }
  let certificatePem = known?.transport.certificatePem;
  let privateKeyPem = known?.transport.privateKeyPem;
  if (!certificatePem || !privateKeyPem) {
    const issued = await issueTppCertificate(options.ca, {
      authorisationNumber: options.tppId,
      name: 'Payment Initiation Service',
    });
    certificatePem = issued.certificatePem;
    privateKeyPem = issued.privateKeyPem;
  }
  const cert = new X509Certificate(certificatePem);
  const content: Xs2aClientFile = {
    description:
      'Sandbox Bank EU (Berlin Group NextGenPSD2) issued this TPP certificate for the service (the nextgenpsd2 provider). See sandbox-bank/README.md.',
    bank: { ...EU_BANK },
    standard: 'Berlin Group NextGenPSD2 1.3.11',
    baseUrl: options.baseUrl,
    scaRedirectOrigins: [new URL(options.pagesUrl).origin],
    authorisationNumber: options.tppId,
    transport: { certificatePem, privateKeyPem, caCertificatePem: options.tlsCaCertificatePem },
    tppCaCertificatePem: options.ca.certPem,
    signing: {
      keyId: `SN=${cert.serialNumber},CA=${cert.issuer.split('\n').join(',')}`,
      algorithm: 'rsa-sha256',
      headers:
        'digest x-request-id, and psu-id, psu-corporate-id, tpp-redirect-uri, date when sent; (request-target) recommended',
    },
    practiceAccounts: EU_ACCOUNTS.map((account) => ({
      name: account.name,
      iban: account.iban,
      openingBalance: account.balance,
      currency: 'EUR',
    })),
    customer: { username: EU_CUSTOMER.username, password: EU_CUSTOMER.password },
  };
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  return content;
}

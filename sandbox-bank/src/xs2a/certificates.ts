import 'reflect-metadata';
import { createPrivateKey, KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

/**
 * Sandbox Bank EU's trust: its own certificate authority (playing a qualified trust service
 * provider) issues eIDAS-style certificates to TPPs, each carrying the TPP's authorisation
 * number in `organizationIdentifier` (OID 2.5.4.97), e.g. `PSDDE-BAFIN-123456`. One certificate
 * serves both as the TLS client certificate (QWAC) and to sign requests (QSealC). The CA's key is
 * kept (`xs2a-ca.json`, 0600) so that the CLI can issue certificates later
 * (`sandbox-bank:tpp-certificate`). A separate CA from the UK face's, which keeps no key.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export const ORGANIZATION_IDENTIFIER = '2.5.4.97';
/** ETSI TS 119 495: `PSD` + country + `-` + authority + `-` + the authority's number. */
export const AUTHORISATION_NUMBER = /^PSD[A-Z]{2}-[A-Z]{2,8}-[A-Za-z0-9.-]{1,64}$/;
export const DEFAULT_TPP_ID = 'PSDDE-BAFIN-123456';

export interface CaMaterial {
  certPem: string;
  keyPem: string;
}

export interface TppCertificate {
  authorisationNumber: string;
  certificatePem: string;
  privateKeyPem: string;
  /** Hex, as the `SN=` of the Signature's keyId. */
  serialNumber: string;
  /** The issuer's DN, as the `CA=` of the Signature's keyId. */
  issuer: string;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** rsa-sha256 is what the Implementation Guidelines' signature examples use. */
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;
const DAY_MS = 24 * 3600 * 1000;

export const caFile = (dataDir: string) => path.join(dataDir, 'xs2a-ca.json');

export async function loadOrCreateCa(dataDir: string): Promise<CaMaterial> {
  const file = caFile(dataDir);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as CaMaterial;
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Sandbox Bank EU TPP CA, O=PIS Sandbox Bank, C=DE',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3650 * DAY_MS),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const material = { certPem: cert.toString('pem'), keyPem: pem(keys.privateKey) };
  // Atomic, so a CLI call racing the first start never reads half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(material, null, 2)}\n`, { mode: 0o600 });
  if (!existsSync(file)) renameSync(temporary, file);
  return JSON.parse(readFileSync(file, 'utf8')) as CaMaterial;
}

export async function issueTppCertificate(
  ca: CaMaterial,
  options: { authorisationNumber: string; name: string; validDays?: number; notBefore?: Date },
): Promise<TppCertificate> {
  if (!AUTHORISATION_NUMBER.test(options.authorisationNumber))
    throw new Error(`not an authorisation number like ${DEFAULT_TPP_ID}: ${options.authorisationNumber}`);
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' }),
    EC,
    false,
    ['sign'],
  );
  const keys = (await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: new x509.Name([
      { CN: [options.name] },
      { O: [options.name] },
      { C: [options.authorisationNumber.slice(3, 5)] },
      { [ORGANIZATION_IDENTIFIER]: [options.authorisationNumber] },
    ]),
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + (options.validDays ?? 825) * DAY_MS),
    signingAlgorithm: EC,
    publicKey: keys.publicKey,
    signingKey: caKey as CryptoKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const node = new X509Certificate(cert.toString('pem'));
  return {
    authorisationNumber: options.authorisationNumber,
    certificatePem: cert.toString('pem'),
    privateKeyPem: pem(keys.privateKey),
    serialNumber: node.serialNumber,
    issuer: caCert.subject,
  };
}

/** The authorisation number a certificate carries, if any. */
export function authorisationNumberOf(cert: X509Certificate): string | undefined {
  const value = new x509.X509Certificate(cert.raw).subjectName.getField(ORGANIZATION_IDENTIFIER)[0];
  return value !== undefined && AUTHORISATION_NUMBER.test(value) ? value : undefined;
}

export function commonNameOf(cert: X509Certificate): string {
  return new x509.X509Certificate(cert.raw).subjectName.getField('CN')[0] ?? '';
}

function pem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x10;
  return Buffer.from(bytes).toString('hex');
}

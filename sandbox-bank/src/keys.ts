import 'reflect-metadata';
import { KeyObject, webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * The bank's key material, made on first start and kept in the data folder (nothing is
 * downloaded): a local CA, the bank's TLS certificate (signed by it), the bank's PS256 signing
 * key, and, for the one client the bank registers (the service's `obie` connection), a PS256
 * signing key and a TLS client certificate from the same CA. A real bank never holds its
 * client's private keys; this practice bank makes them so that `npm start` needs no set-up.
 */

export interface ClientMaterial {
  signingKey: JWK & { kid: string };
  transportCertPem: string;
  transportKeyPem: string;
}

export interface KeyMaterial {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** Private JWK (PS256) with `kid`: signs ID tokens, JARM, message signatures and SETs. */
  bankSigningKey: JWK & { kid: string };
  client: ClientMaterial;
}

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export async function loadOrCreateKeys(dataDir: string): Promise<KeyMaterial> {
  // 0755: the embedded Postgres runs as the `postgres` OS user when we are root and must reach
  // its folder inside; the key files themselves are 0600.
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const file = (name: string) => path.join(dataDir, name);
  const keysFile = file('keys.json');
  if (existsSync(keysFile)) return JSON.parse(readFileSync(keysFile, 'utf8')) as KeyMaterial;

  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + TEN_YEARS_MS);
  const caKeys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Sandbox Bank Local CA, O=PIS Sandbox Bank',
    notBefore,
    notAfter,
    signingAlgorithm: EC,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const issue = async (subject: string, usage: string, names: x509.JsonGeneralName[]) => {
    const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: EC,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    return { certPem: cert.toString('pem'), keyPem: pem(keys.privateKey) };
  };
  const server = await issue('CN=localhost, O=PIS Sandbox Bank', x509.ExtendedKeyUsage.serverAuth, [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
  ]);
  const client = await issue(
    'CN=pis-obie, O=Payment Initiation Service',
    x509.ExtendedKeyUsage.clientAuth,
    [],
  );

  const material: KeyMaterial = {
    caCertPem: ca.toString('pem'),
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    bankSigningKey: await signingJwk(),
    client: {
      signingKey: await signingJwk(),
      transportCertPem: client.certPem,
      transportKeyPem: client.keyPem,
    },
  };
  writeFileSync(keysFile, `${JSON.stringify(material, null, 2)}\n`, { mode: 0o600 });
  writeFileSync(file('ca.pem'), material.caCertPem);
  return material;
}

async function signingJwk(): Promise<JWK & { kid: string }> {
  const { privateKey } = await generateKeyPair('PS256', { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: 'PS256', use: 'sig' };
}

export function publicJwk(jwk: JWK & { kid: string }): JWK & { kid: string } {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk;
  return rest;
}

function pem(key: CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

function randomSerial(): string {
  // Positive: the first byte below 0x80.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

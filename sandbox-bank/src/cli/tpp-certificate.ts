import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AUTHORISATION_NUMBER, issueTppCertificate, loadOrCreateCa } from '../xs2a/certificates.ts';

/**
 * `sandbox-bank:tpp-certificate --authorisation-number PSDDE-BAFIN-123456 [--name NAME] [--out FILE]`:
 * Sandbox Bank EU's CA issues a TPP certificate (TLS client and signing, organizationIdentifier =
 * the authorisation number), as a qualified trust service provider would. Prints (or writes,
 * 0600) JSON with the certificate, its key, and the CAs to trust. Works whether the bank runs or
 * not: the CA lives in the data folder (`xs2a-ca.json`).
 */
export const TPP_CERTIFICATE_USAGE = `  sandbox-bank:tpp-certificate --authorisation-number PSDDE-BAFIN-123456 [--name NAME] [--out FILE]
                                            Sandbox Bank EU issues a TPP certificate (see the README)`;

export async function runTppCertificateCommand(
  argv: string[],
  dataDir: string,
): Promise<{ output: string; code: number }> {
  const { values } = parseArgs({
    args: argv.slice(1),
    options: {
      'authorisation-number': { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  const number = values['authorisation-number'];
  const name = values.name ?? 'Third Party Provider';
  if (!number || !AUTHORISATION_NUMBER.test(number) || name.length > 64 || /[\0\n]/.test(name))
    return { output: `Usage:\n${TPP_CERTIFICATE_USAGE}`, code: 2 };
  const ca = await loadOrCreateCa(dataDir);
  const issued = await issueTppCertificate(ca, { authorisationNumber: number, name });
  const keysFile = path.join(dataDir, 'keys.json');
  const tlsCa = existsSync(keysFile)
    ? (JSON.parse(readFileSync(keysFile, 'utf8')) as { caCertPem?: string }).caCertPem
    : undefined;
  const content = {
    authorisationNumber: number,
    keyId: `SN=${issued.serialNumber},CA=${issued.issuer}`,
    certificatePem: issued.certificatePem,
    privateKeyPem: issued.privateKeyPem,
    tppCaCertificatePem: ca.certPem,
    /** The CA of the bank's TLS certificate (made on the bank's first start). */
    caCertificatePem: tlsCa ?? null,
  };
  const json = `${JSON.stringify(content, null, 2)}\n`;
  if (!values.out) return { output: json.trimEnd(), code: 0 };
  writeFileSync(values.out, json, { mode: 0o600 });
  return { output: `TPP certificate for ${number} written to ${path.resolve(values.out)}`, code: 0 };
}

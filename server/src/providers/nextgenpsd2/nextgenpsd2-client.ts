import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * One ASPSP the `nextgenpsd2` provider connects to: our bank id, its name, and its TPP client file
 * (Sandbox Bank EU writes `.data/sandbox-bank/xs2a-client.json` on every start).
 */
export type Nextgenpsd2ConnectionConfig = {
  bankId: string;
  name: string;
  clientFile: string;
  /**
   * The origins the bank's SCA pages (`_links.scaRedirect`) may be on, e.g.
   * `['https://psd2.bank.example']`. Absent: those the client file names (the sandbox bank names
   * its customer host), else only the API base URL's own origin.
   */
  scaRedirectOrigins?: readonly string[];
};

const pem = (label: string) =>
  z
    .string()
    .max(20_000)
    .refine((value) => value.includes(`-----BEGIN ${label}`), `must be a PEM ${label}`);

/**
 * The fields of `xs2a-client.json` a TPP needs (the bank's other fields, such as its practice
 * accounts, are not read). The same certificate is the TLS client certificate (QWAC) and the
 * signing certificate (TPP-Signature-Certificate).
 */
export const Xs2aClient = z.object({
  bank: z.object({ id: z.string().min(1), name: z.string().min(1) }).optional(),
  /** `https://127.0.0.1:3301/xs2a`: the document's paths (`/v1/payments/...`) are appended. */
  baseUrl: z
    .url({ protocol: /^https$/, error: 'must be an https URL' })
    .transform((value) => value.replace(/\/+$/, '')),
  /** The origins of the bank's SCA pages, as the bank documents them (a connection's own setting wins). */
  scaRedirectOrigins: z
    .array(z.url({ protocol: /^https?$/ }))
    .max(10)
    .optional(),
  transport: z.object({
    certificatePem: pem('CERTIFICATE'),
    privateKeyPem: pem('PRIVATE KEY'),
    caCertificatePem: pem('CERTIFICATE'),
  }),
});
export type Xs2aClient = z.infer<typeof Xs2aClient>;

/**
 * Reads and checks a TPP client file. Read when the connection is first needed, not at start-up:
 * on a first `npm start` the bank writes it while the service starts.
 */
export function readXs2aClient(file: string): Xs2aClient {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`nextgenpsd2 client file ${file} could not be read: ${String(error)}`);
  }
  const parsed = Xs2aClient.safeParse(raw);
  if (!parsed.success)
    throw new Error(`nextgenpsd2 client file ${file} is not valid: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

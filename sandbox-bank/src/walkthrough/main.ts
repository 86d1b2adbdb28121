import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { ClientConfig } from '../app.ts';
import { loadConfig } from '../config.ts';
import { connect, consentRequest, paymentRequest } from './ob-client.ts';

/**
 * `npm run -w @pis/sandbox-bank walkthrough [-- AMOUNT]`: one domestic payment at the running
 * bank by hand, as a provider makes it, printing each step. You approve in your own browser and
 * paste back the address the bank sends you to.
 */
const amount = process.argv[2] ?? '25.00';
const config = loadConfig();
const clientConfig = JSON.parse(
  readFileSync(path.join(config.dataDir, 'client.json'), 'utf8'),
) as ClientConfig;
const say = (line: string) => process.stdout.write(`${line}\n`);

const provider = await connect(clientConfig).catch((error: unknown) => {
  process.stderr.write(
    `Cannot reach the bank at ${clientConfig.issuer}: ${String(error)}\n(is it running? is an outage switched on? npm run -s admin -- sandbox-bank:faults)\n`,
  );
  process.exit(1);
});
try {
  say(`Discovered ${clientConfig.issuer} (client ${clientConfig.clientId}, mutual TLS)`);
  const clientToken = await provider.clientCredentials();
  say('1. client credentials token (scope payments): ok');
  const request = consentRequest(amount, `WALK-${Date.now().toString(36).toUpperCase()}`);
  const consent = await provider.api('POST', '/domestic-payment-consents', {
    token: clientToken,
    body: request,
  });
  if (consent.status !== 201) throw new Error(`consent refused: ${consent.text}`);
  const consentId: string = consent.body.Data.ConsentId;
  say(`2. consent ${consentId}: ${consent.body.Data.Status} (signed request, signed answer verified)`);

  const authorization = await provider.authorizationUrl(consentId);
  say('3. pushed authorization request (signed request object, PKCE, JARM). Open this in your browser:');
  say(`\n   ${authorization.url.href}\n`);
  say(`   Sign in, choose an account, approve (or reject). The bank then sends you to`);
  say(`   ${clientConfig.redirectUris[0]} (that page may be an error page: it is the service's).`);
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const callback = (await prompt.question('   Paste the whole address you landed on: ')).trim();
  prompt.close();

  const tokens = await provider.exchange(callback, authorization);
  say(
    `4. JARM verified, code exchanged: token bound to consent ${String(tokens.claims()?.openbanking_intent_id)}`,
  );
  const funds = await provider.api('GET', `/domestic-payment-consents/${consentId}/funds-confirmation`, {
    token: tokens.access_token,
  });
  say(`5. funds available: ${String(funds.body.Data?.FundsAvailableResult?.FundsAvailable)}`);
  const payment = await provider.api('POST', '/domestic-payments', {
    token: tokens.access_token,
    body: paymentRequest(consentId, request),
  });
  if (payment.status !== 201) throw new Error(`payment refused: ${payment.text}`);
  const paymentId: string = payment.body.Data.DomesticPaymentId;
  say(`6. payment ${paymentId}: ${payment.body.Data.Status}`);
  let last = payment.body.Data.Status as string;
  while (last !== 'ACSC' && last !== 'RJCT') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const read = await provider.api('GET', `/domestic-payments/${paymentId}`, { token: clientToken });
    if (read.body.Data.Status !== last) {
      last = read.body.Data.Status;
      const reason = read.body.Data.StatusReason?.[0]?.StatusReasonCode;
      say(`   now ${last}${reason ? ` (${reason})` : ''}`);
    }
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await provider.close();
}

import path from 'node:path';
import { startBank } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';

/** `npm start` of the package (and of the repository, beside the service): the sandbox bank. */

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
const logger = createLogger(config.logLevel);
const bank = await startBank(config, logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'the sandbox bank could not start');
  process.stderr.write(
    `The sandbox bank could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});

const lines = [
  '',
  `Sandbox Bank ready (UK Open Banking v4.0, FAPI 1 Advanced) in ${process.uptime().toFixed(1)} s`,
  `  ${bank.pagesUrl}        customer pages (sign-in, approve)`,
  `  ${bank.issuer}       authorization server and PISP API (mTLS)`,
  `  ${bank.issuer}/.well-known/openid-configuration`,
  `  client config: ${path.join(config.dataDir, 'client.json')}`,
  `  ${bank.xs2a.baseUrl}/v1/payments/sepa-credit-transfers   Sandbox Bank EU (Berlin Group NextGenPSD2 1.3.11; mTLS, signed requests)`,
  `  TPP config: ${path.join(config.dataDir, 'xs2a-client.json')}`,
  '',
];
process.stdout.write(`${lines.join('\n')}\n`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'sandbox bank stopping');
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  void bank.close().then(() => process.exit(0));
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

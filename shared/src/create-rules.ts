import { z } from 'zod';
import { type Bank, type BankContext, findBank } from './banks.ts';
import { AppError, validationFailed } from './errors.ts';
import type { PaymentMode } from './lifecycle.ts';
import type { CreatePaymentCommand } from './payments.ts';
import { MOCK_PROVIDER } from './primitives.ts';
import { isPracticeBank, type ProviderDescriptor, providerDescriptor } from './providers/index.ts';

/**
 * The create rules that need more than the request body: who asks (approved providers), what
 * this service can serve, and the idempotency key. The server and the MSW kit both apply them.
 */

/** `Idempotency-Key` on create (as Stripe's); keys are per organization and mode (test, live) and kept 24 h. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export const IdempotencyKeyValue = z
  .string()
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(255, { error: 'must be at most 255 characters' })
  .regex(/^[\x20-\x7e]+$/, { error: 'must be printable ASCII' });

/** The header's value, validated; undefined when absent. A repeated header is refused. */
export const parseIdempotencyKey = (
  header: string | readonly string[] | null | undefined,
): string | undefined => {
  if (header === undefined || header === null) return undefined;
  const parsed = IdempotencyKeyValue.safeParse(typeof header === 'string' ? header : undefined);
  if (!parsed.success) {
    const message =
      typeof header === 'string' ? (parsed.error.issues[0]?.message ?? 'is invalid') : 'must be given once';
    throw validationFailed([{ field: 'Idempotency-Key', message }]);
  }
  return parsed.data;
};

/**
 * Fingerprint text of a validated request: key order, `10.5` vs `"10.5"` and spelled-out
 * defaults count as the same request.
 */
export const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${stableJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

export const idempotencyKeyReused = () =>
  new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was already used with a different request; use a new key for a new payment',
  );

export const providerNotConfigured = (provider: string) =>
  new AppError('PROVIDER_NOT_CONFIGURED', `Provider ${provider} cannot be used right now`);

/** The bank a payment may go to: known, reachable through its provider, active and taking payments. */
export const reachableBank = (bankId: string, provider: string, context: BankContext): Bank => {
  const bank = findBank(bankId, context);
  const reachable = bank?.providerSupport?.some((support) => support.provider === provider) ?? false;
  if (!bank || !reachable) {
    throw validationFailed([
      {
        field: 'bankId',
        message: `must name a bank your organization can reach with provider ${provider} (see GET /api/banks)`,
      },
    ]);
  }
  if (!bank.active || !bank.features.payments) {
    throw validationFailed([
      { field: 'bankId', message: 'names a bank that is not taking payments right now' },
    ]);
  }
  return bank;
};

export type CreateRulesContext = BankContext & {
  /** The caller's key's mode; test when absent. */
  mode?: PaymentMode | undefined;
  /** Whether this service has a working adapter for the provider. */
  isConfigured: (provider: string) => boolean;
  hostedPagesEnabled: boolean;
};

/** The create rules in the spec's order: 400 MOCK_BANK_ONLY, 403, 503s, then the bank. */
export const checkCreateRules = (command: CreatePaymentCommand, context: CreateRulesContext): void => {
  if (command.mockBank && command.provider !== MOCK_PROVIDER) {
    throw new AppError('MOCK_BANK_ONLY', `mockBank can only be used with provider ${MOCK_PROVIDER}`);
  }
  if (command.provider !== MOCK_PROVIDER && !context.approvedProviders.includes(command.provider)) {
    throw new AppError(
      'PROVIDER_NOT_APPROVED',
      `Organization is not approved for provider ${command.provider}`,
    );
  }
  if (
    context.mode === 'live' &&
    (command.provider === MOCK_PROVIDER || (command.bankId && isPracticeBank(command.bankId)))
  ) {
    throw new AppError(
      'PRACTICE_BANK_TEST_ONLY',
      command.provider === MOCK_PROVIDER
        ? `The ${MOCK_PROVIDER} provider takes only test payments: use a test API key, or a real provider`
        : `Bank ${command.bankId} is a practice bank and takes only test payments: use a test API key`,
    );
  }
  if (!context.isConfigured(command.provider)) throw providerNotConfigured(command.provider);
  if (command.flowType !== 'API_ONLY' && !context.hostedPagesEnabled) {
    throw new AppError(
      'HOSTED_PAGES_NOT_CONFIGURED',
      'Hosted payment pages cannot be used right now; create the payment with flowType API_ONLY',
    );
  }
  const descriptor = providerDescriptor(command.provider);
  if (descriptor) checkProviderTakes(command, descriptor);
  if (command.bankId) reachableBank(command.bankId, command.provider, context);
};

/**
 * What a provider's banks can take, from its descriptor: 400 VALIDATION_FAILED naming each field
 * it cannot, before anything is stored or sent.
 */
const checkProviderTakes = (command: CreatePaymentCommand, descriptor: ProviderDescriptor): void => {
  const { code } = descriptor;
  const issues: { field: string; message: string }[] = [];
  const { currency, value } = command.amount;
  if (descriptor.currencies !== 'any' && !descriptor.currencies.includes(currency)) {
    issues.push({
      field: 'amount.currency',
      message: `must be ${descriptor.currencies.join(' or ')} with provider ${code}`,
    });
  }
  const decimals = value.split('.')[1]?.length ?? 0;
  if (descriptor.maxDecimals !== undefined && decimals > descriptor.maxDecimals) {
    issues.push({
      field: 'amount.value',
      message: `must have at most ${descriptor.maxDecimals} decimals with provider ${code}`,
    });
  }
  const scheme = command.toAccount.iban ? 'iban' : 'sortCode';
  if (!descriptor.accountSchemes.includes(scheme)) {
    issues.push({
      field: scheme === 'iban' ? 'toAccount.iban' : 'toAccount.sortCode',
      message: `cannot be used with provider ${code}: give ${descriptor.accountSchemes.map((name) => (name === 'iban' ? 'an iban' : 'a sortCode with an accountNumber')).join(', or ')}`,
    });
  }
  if (descriptor.bankRequiredForApiOnly && command.flowType === 'API_ONLY' && !command.bankId) {
    // A real provider reaches many banks, and API_ONLY has no page to choose one on.
    issues.push({
      field: 'bankId',
      message: `is required with provider ${code} and flowType API_ONLY (see GET /api/banks)`,
    });
  }
  if (issues.length > 0) throw validationFailed(issues);
};

/**
 * An origin a merchant allows return URLs to go to: `https://shop.example` or
 * `http://localhost:8080`, exactly (no path, query or user information), as `URL.origin` spells it.
 */
export const ReturnOrigin = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (value) => {
      const url = URL.parse(value);
      return (
        url !== null &&
        /^https?:$/.test(url.protocol) &&
        url.username === '' &&
        url.password === '' &&
        url.pathname === '/' &&
        !value.includes('?') &&
        !value.includes('#')
      );
    },
    { error: 'must be an origin such as https://shop.example (scheme, host and optional port only)' },
  )
  .transform((value) => (URL.parse(value) as URL).origin);

export type ReturnUrlContext = {
  /** This service's public origin: a return URL must not lead the customer back into its pages. */
  serviceBaseUrl: string;
  /** The organization's allowed return origins; empty: any. */
  allowedReturnOrigins: readonly string[];
};

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * A host as a comparable name. WHATWG URL parsing already lower-cases it, turns IDNs into
 * punycode and reads every IPv4 spelling (`2130706433`, `127.1`, `0x7f.1`) as dotted quads;
 * this also drops the DNS root's trailing dot and treats every loopback spelling (localhost,
 * `*.localhost`, 127.0.0.0/8, `::1`, the IPv4-mapped `::ffff:7f00:1`, and 0.0.0.0, which Linux
 * connects to this machine) as one name, since all of them reach a service on this machine.
 */
const comparableHost = (url: URL): string => {
  const host = url.hostname.replace(/\.+$/, '');
  const loopback =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    host === '0.0.0.0' ||
    host === '[::1]' ||
    host === '[::]' ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
  return loopback ? 'loopback' : host;
};

const effectivePort = (url: URL): string => url.port || DEFAULT_PORTS[url.protocol] || '';
const onDefaultPort = (url: URL): boolean => effectivePort(url) === DEFAULT_PORTS[url.protocol];

/**
 * Whether a return URL leads into this service's pages, by parsed and normalized origins rather
 * than strings: the same host (any spelling, see comparableHost) on the same effective port
 * (`:443` on https is no port at all), or both on their scheme's default port:
 * `http://pay.example/...` is upgraded to https (HSTS or the usual redirect) and lands on our
 * pages. Another port is another site (a shop beside the service in development).
 */
const pointsAtService = (target: URL, service: URL): boolean =>
  comparableHost(target) === comparableHost(service) &&
  (effectivePort(target) === effectivePort(service) || (onDefaultPort(target) && onDefaultPort(service)));

/**
 * The return-URL rules that need more than the body (which already refuses user information):
 * not this service's own pages (a "return" into the Mock bank or another customer's page would
 * deceive the customer), and one of the organization's allowed origins when it set any.
 */
export const checkReturnUrl = (redirectUrl: string | undefined, context: ReturnUrlContext): void => {
  if (!redirectUrl) return;
  const target = new URL(redirectUrl);
  if (pointsAtService(target, new URL(context.serviceBaseUrl))) {
    throw validationFailed([
      {
        field: 'redirectUrl',
        message: "must point at the merchant's site, not at this payment service's pages",
      },
    ]);
  }
  if (context.allowedReturnOrigins.length > 0 && !context.allowedReturnOrigins.includes(target.origin)) {
    throw validationFailed([
      {
        field: 'redirectUrl',
        message: `must be on one of your organization's allowed return origins (${context.allowedReturnOrigins.join(', ')})`,
      },
    ]);
  }
};

import { AppError, type Bank, findBank, MOCK_PROVIDER, validationFailed } from '@pis/shared';
import { z } from 'zod';

// The create rules that live in the server's payments module rather than in @pis/shared
// (server/src/payments/create-payment.ts, idempotency.ts, reachable-bank.ts), mirrored here with
// the same order, codes and messages. The contract test (test/contract) runs both and fails on
// any difference; these belong in shared so that both import them (asked of the lead).

/** `Idempotency-Key`: at most 255 printable ASCII characters. */
const IdempotencyKeyValue = z
  .string()
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(255, { error: 'must be at most 255 characters' })
  .regex(/^[\x20-\x7e]+$/, { error: 'must be printable ASCII' });

/** How long a key is remembered, as on the service. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** The header's value, validated; undefined when absent. */
export const parseIdempotencyKey = (header: string | null): string | undefined => {
  if (header === null) return undefined;
  const parsed = IdempotencyKeyValue.safeParse(header);
  if (!parsed.success) {
    throw validationFailed([
      { field: 'Idempotency-Key', message: parsed.error.issues[0]?.message ?? 'is invalid' },
    ]);
  }
  return parsed.data;
};

/**
 * Fingerprint of the validated command: key order, `10.5` vs `"10.5"` and spelled-out defaults
 * count as the same request, as on the service.
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

/** Provider rules of create, in the service's order (the kit's organization has only `mock`). */
export const assertUsableProvider = (command: { provider: string; mockBank?: unknown }): void => {
  if (command.mockBank && command.provider !== MOCK_PROVIDER) {
    throw new AppError('MOCK_BANK_ONLY', `mockBank can only be used with provider ${MOCK_PROVIDER}`);
  }
  if (command.provider !== MOCK_PROVIDER) {
    throw new AppError(
      'PROVIDER_NOT_APPROVED',
      `Organization is not approved for provider ${command.provider}`,
    );
  }
};

type BankContext = Parameters<typeof findBank>[1];

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

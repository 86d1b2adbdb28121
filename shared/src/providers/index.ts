import { MOCK_BANK_CATALOGUE, type MockBankDefinition } from '../bank-catalogue.ts';
import { MOCK_PROVIDER } from '../primitives.ts';
import { NEXTGENPSD2_DESCRIPTOR } from './nextgenpsd2.ts';
import { OBIE_DESCRIPTOR } from './obie.ts';
import type { ProviderDescriptor } from './provider-descriptor.ts';

export * from './nextgenpsd2.ts';
export * from './obie.ts';
export * from './provider-descriptor.ts';

/** The Mock bank: our own practice pages, any currency and account. */
const MOCK_DESCRIPTOR: ProviderDescriptor = {
  code: MOCK_PROVIDER,
  name: 'Mock bank',
  linkKind: 'ours',
  currencies: 'any',
  accountSchemes: ['sortCode', 'iban'],
  bankRequiredForApiOnly: false,
  banks: MOCK_BANK_CATALOGUE,
};

/** Every provider the service knows, one line each (its descriptor lives in its own file). */
export const PROVIDERS: readonly ProviderDescriptor[] = [
  MOCK_DESCRIPTOR,
  OBIE_DESCRIPTOR,
  NEXTGENPSD2_DESCRIPTOR,
];

const byCode = new Map(PROVIDERS.map((descriptor) => [descriptor.code, descriptor]));

/** A known provider's descriptor; undefined for a code the service has never heard of. */
export const providerDescriptor = (code: string): ProviderDescriptor | undefined => byCode.get(code);

/** Banks reached through real providers (the Mock bank's catalogue can be replaced in tests). */
export const REAL_PROVIDER_BANKS: readonly MockBankDefinition[] = PROVIDERS.filter(
  (descriptor) => descriptor.code !== MOCK_PROVIDER,
).flatMap((descriptor) => descriptor.banks);

/** Whether a bank takes only test payments: every Mock bank, and real providers' banks marked `practice`. */
export const isPracticeBank = (bankId: string): boolean => {
  if (MOCK_BANK_CATALOGUE.some((bank) => bank.id === bankId)) return true;
  return REAL_PROVIDER_BANKS.find((bank) => bank.id === bankId)?.practice ?? true;
};

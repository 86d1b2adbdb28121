import { z } from 'zod';
import { MOCK_BANK_CATALOGUE, type MockBankDefinition } from './bank-catalogue.ts';
import { BankId } from './payments.ts';
import { MOCK_PROVIDER, queryInteger } from './primitives.ts';
import { isPracticeBank, PROVIDERS, providerDescriptor, REAL_PROVIDER_BANKS } from './providers/index.ts';

export const BankFeatures = z
  .object({
    accountAccess: z.boolean(),
    accountBalance: z.boolean(),
    transactions: z.boolean(),
    payments: z.boolean(),
  })
  .meta({ id: 'BankFeatures' });

export const ProviderSupport = z
  .array(z.object({ provider: z.string(), supportedPaymentMethods: z.array(z.string()) }))
  .meta({
    id: 'ProviderSupport',
    description: "The organization's approved providers that reach this bank, with the methods each supports",
  });

export const Bank = z
  .object({
    id: z.string().meta({ description: 'The value to use as bankId' }),
    uuid: z.string(),
    name: z.string(),
    displayName: z.string().nullable().optional(),
    country: z.string().meta({ description: 'ISO 3166-1 alpha-2' }),
    logoUrl: z.string().optional(),
    supportedPaymentMethods: z.array(z.string()),
    active: z.boolean(),
    features: BankFeatures,
    providerSupport: ProviderSupport.optional(),
    recommendedProvider: z.string().nullable().optional(),
  })
  .meta({ id: 'Bank', description: 'A bank the customer can pay from' });
export type Bank = z.infer<typeof Bank>;

/** Strict, as the payments list: an unknown parameter is a 400. */
export const ListBanksQuery = z.strictObject({
  // GB when omitted, as the spec says; but a provider that reaches no GB bank (nextgenpsd2: the
  // euro area) lists its own banks rather than an empty page (listBanks).
  country: z
    .string()
    .length(2, { error: 'must be a two-letter country code' })
    .transform((country) => country.toUpperCase())
    .optional()
    .meta({ description: 'Default GB; with a provider that reaches no GB bank, that provider’s countries' }),
  provider: z.string().max(50).optional(),
  paymentMethod: z.string().max(50).optional(),
  search: z.string().max(100).optional(),
  page: queryInteger({ min: 1 }).default(1),
  limit: queryInteger({ min: 1, max: 100 }).default(100),
});
export type ListBanksQuery = z.input<typeof ListBanksQuery>;
type ListBanksFilters = z.output<typeof ListBanksQuery>;

export const Pagination = z
  .object({ total: z.int(), page: z.int(), limit: z.int(), pages: z.int() })
  .meta({ id: 'Pagination' });
export const BankList = z
  .object({ banks: z.array(Bank), pagination: Pagination })
  .meta({ id: 'BankList', description: 'One page of banks, by name' });
export type BankList = z.infer<typeof BankList>;

export const BankIdInput = z.object({ id: BankId });
export const BankResponse = z.object({ bank: Bank }).meta({ id: 'BankResponse' });
export const BankProvidersList = z
  .object({ providers: z.array(z.string()) })
  .meta({ id: 'BankProvidersList', description: 'Provider codes whose banks the caller can see' });

export const ProviderEntry = z
  .object({
    id: z.string(),
    name: z.string(),
    supportsPayments: z.literal(true),
  })
  .meta({ id: 'Provider', description: 'A provider the organization can create payments with' });
export type ProviderEntry = z.infer<typeof ProviderEntry>;
export const ProvidersList = z.object({ providers: z.array(ProviderEntry) }).meta({ id: 'ProvidersList' });

/** Providers whose banks a caller sees: the Mock bank's, and the real providers it is approved for. */
export const bankProviders = (approvedProviders: readonly string[]): string[] =>
  PROVIDERS.map((descriptor) => descriptor.code).filter(
    (code) => code === MOCK_PROVIDER || approvedProviders.includes(code),
  );

/** The providers that reach a bank (its `providerSupport`), among those the caller sees. */
const providersOf = (definition: MockBankDefinition, visible: readonly string[]) =>
  (definition.providers ?? [MOCK_PROVIDER]).filter((code) => visible.includes(code));

/** Providers the organization may create payments with, among those the service can serve. */
export const paymentProviders = (usableProviders: readonly string[]): ProviderEntry[] =>
  [...new Set([MOCK_PROVIDER, ...usableProviders])].map((id) => ({
    id,
    name: providerDescriptor(id)?.name ?? id,
    supportsPayments: true as const,
  }));

export const bankLogoPath = (bankId: string) => `/bank-logos/${encodeURIComponent(bankId)}.svg`;

export type BankContext = {
  approvedProviders: readonly string[];
  baseUrl: string;
  /** Another set of sandbox banks (the MSW kit's seedBanks); the Mock catalogue by default. */
  catalogue?: readonly MockBankDefinition[];
  /** A live payment's picker: practice banks (isPracticeBank) would only refuse it, so none is shown. */
  liveOnly?: boolean;
};

const toBank = (definition: MockBankDefinition, context: BankContext): Bank => {
  const providers = providersOf(definition, bankProviders(context.approvedProviders));
  return {
    id: definition.id,
    uuid: definition.uuid,
    name: definition.name,
    displayName: definition.displayName,
    country: definition.country,
    logoUrl: `${context.baseUrl.replace(/\/$/, '')}${bankLogoPath(definition.id)}`,
    supportedPaymentMethods: definition.paymentMethods,
    active: definition.active,
    features: definition.features,
    providerSupport: providers.map((provider) => ({
      provider,
      supportedPaymentMethods: definition.paymentMethods,
    })),
    recommendedProvider: providers[0] ?? null,
  };
};

/**
 * The banks the caller sees: those reached by a provider it sees (the Mock bank's always), or by
 * `provider` alone when given. `catalogue` replaces the Mock bank's banks only.
 */
const visibleDefinitions = (context: BankContext, provider?: string) => {
  const visible = bankProviders(context.approvedProviders);
  if (provider !== undefined && !visible.includes(provider)) return [];
  const wanted = provider === undefined ? visible : [provider];
  return [...(context.catalogue ?? MOCK_BANK_CATALOGUE), ...REAL_PROVIDER_BANKS].filter(
    (definition) =>
      providersOf(definition, wanted).length > 0 && !(context.liveOnly && isPracticeBank(definition.id)),
  );
};

/** Filter, order by name and paginate the banks the caller may see. */
export const listBanks = (filters: ListBanksFilters, context: BankContext): BankList => {
  const search = filters.search?.trim().toLowerCase();
  const method = filters.paymentMethod?.toUpperCase();
  const visible = visibleDefinitions(context, filters.provider);
  const countryOf = (bank: MockBankDefinition) =>
    filters.country === undefined
      ? bank.country === 'GB' ||
        (filters.provider !== undefined && !visible.some((other) => other.country === 'GB'))
      : bank.country === filters.country;
  const matching = visible
    .filter(countryOf)
    .filter((bank) => !method || bank.paymentMethods.includes(method))
    .filter(
      (bank) =>
        !search ||
        bank.name.toLowerCase().includes(search) ||
        (bank.displayName?.toLowerCase().includes(search) ?? false),
    )
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
  const start = (filters.page - 1) * filters.limit;
  return {
    banks: matching.slice(start, start + filters.limit).map((bank) => toBank(bank, context)),
    pagination: {
      total: matching.length,
      page: filters.page,
      limit: filters.limit,
      pages: Math.ceil(matching.length / filters.limit),
    },
  };
};

export const findBank = (id: string, context: BankContext): Bank | undefined => {
  const definition = visibleDefinitions(context).find((bank) => bank.id === id);
  return definition && toBank(definition, context);
};

/** Countries that have at least one bank the caller may see, for the hosted page's switch. */
/** Countries with a bank the caller sees; with `provider`, only where that provider reaches one. */
export const bankCountries = (context: BankContext, provider?: string): string[] => [
  ...new Set(visibleDefinitions(context, provider).map((bank) => bank.country)),
];

export { MOCK_BANK_CATALOGUE, type MockBankDefinition };

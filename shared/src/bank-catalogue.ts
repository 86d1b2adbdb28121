/**
 * The Mock provider's sandbox banks: fictional, for practice only, spread over the countries
 * the hosted page offers. Logos are drawn by the server from `brandColor` and the initials.
 */
export type MockBankDefinition = {
  id: string;
  uuid: string;
  name: string;
  displayName: string | null;
  country: string;
  paymentMethods: string[];
  active: boolean;
  features: { accountAccess: boolean; accountBalance: boolean; transactions: boolean; payments: boolean };
  brandColor: string;
  /** Providers that reach this bank (providerSupport); the Mock bank's when absent. */
  providers?: readonly string[];
  /** A practice bank takes only test payments (every Mock bank is one; a real bank says false). */
  practice?: boolean;
};

export const UK = ['FASTER_PAYMENTS'];
const SEPA = ['SEPA_CREDIT_TRANSFER', 'SEPA_INSTANT'];
const SEPA_STANDARD = ['SEPA_CREDIT_TRANSFER'];
const FULL = { accountAccess: true, accountBalance: true, transactions: true, payments: true };
export const PAYMENTS_ONLY = {
  accountAccess: false,
  accountBalance: false,
  transactions: false,
  payments: true,
};
const NO_BALANCE = { accountAccess: true, accountBalance: false, transactions: true, payments: true };

type Row = [
  id: string,
  name: string,
  displayName: string | null,
  color: string,
  methods?: string[],
  features?: MockBankDefinition['features'],
  active?: boolean,
];

const COUNTRIES: Record<string, { methods: string[]; banks: Row[] }> = {
  GB: {
    methods: UK,
    banks: [
      ['mock-gb-albion', 'Albion Sandbox Bank', 'Albion', '#1d4ed8'],
      ['mock-gb-thames', 'Thames Mutual Sandbox', 'Thames Mutual', '#0f766e', UK, NO_BALANCE],
      ['mock-gb-highland', 'Highland Practice Bank', null, '#7c3aed'],
      ['mock-gb-kestrel', 'Kestrel Digital Sandbox', 'Kestrel', '#b45309', UK, PAYMENTS_ONLY],
      ['mock-gb-pennine', 'Pennine Building Society (Sandbox)', 'Pennine', '#be123c'],
      ['mock-gb-harbour', 'Harbour Street Test Bank', null, '#475569'],
      ['mock-gb-heritage', 'Heritage Sandbox Bank', 'Heritage', '#57534e', UK, FULL, false],
    ],
  },
  IE: {
    methods: SEPA,
    banks: [
      ['mock-ie-liffey', 'Liffey Sandbox Bank', 'Liffey', '#15803d'],
      ['mock-ie-shamrock', 'Shamrock Practice Bank', null, '#16a34a', SEPA_STANDARD],
      [
        'mock-ie-atlantic',
        'Atlantic Test Credit Union',
        'Atlantic CU',
        '#0369a1',
        SEPA_STANDARD,
        PAYMENTS_ONLY,
      ],
    ],
  },
  DE: {
    methods: SEPA,
    banks: [
      ['mock-de-rhein', 'Rheinland Sandbox Bank', 'Rheinland', '#b91c1c'],
      ['mock-de-alpen', 'Alpenbank Übungsinstitut', 'Alpenbank', '#1e40af'],
      ['mock-de-hanse', 'Hanse Sparkasse (Sandbox)', null, '#dc2626', SEPA_STANDARD, NO_BALANCE],
      ['mock-de-spree', 'Spree Digitalbank Test', 'Spree', '#4d7c0f'],
    ],
  },
  FR: {
    methods: SEPA,
    banks: [
      ['mock-fr-seine', 'Banque Seine Bac à Sable', 'Seine', '#1e3a8a'],
      ['mock-fr-provence', 'Crédit Provence Test', null, '#c2410c', SEPA_STANDARD],
      ['mock-fr-loire', 'Banque de la Loire (Sandbox)', 'Loire', '#0e7490'],
      ['mock-fr-mistral', 'Mistral Néobanque Test', 'Mistral', '#6d28d9', SEPA, PAYMENTS_ONLY],
    ],
  },
  ES: {
    methods: SEPA,
    banks: [
      ['mock-es-iberia', 'Banco Iberia Pruebas', 'Iberia', '#b91c1c'],
      ['mock-es-sol', 'Caja del Sol Sandbox', null, '#ca8a04', SEPA_STANDARD],
      ['mock-es-meseta', 'Banco Meseta de Prueba', 'Meseta', '#9a3412'],
      ['mock-es-cantabrico', 'Cantábrico Digital Test', null, '#0284c7', SEPA, NO_BALANCE],
    ],
  },
  NL: {
    methods: SEPA,
    banks: [
      ['mock-nl-tulip', 'Tulip Sandbox Bank', 'Tulip', '#e11d48'],
      ['mock-nl-polder', 'Polder Spaarbank Test', null, '#2563eb', SEPA_STANDARD],
      ['mock-nl-gracht', 'Grachtenbank Oefen', 'Grachtenbank', '#ea580c'],
    ],
  },
};

/** Stable uuid per bank id, so the catalogue is deterministic without a table of literals. */
export const stableUuid = (id: string): string => {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const hex: string[] = [];
  for (let round = 0; round < 4; round += 1) {
    for (const char of `${id}#${round}`) {
      h1 = Math.imul(h1 ^ char.charCodeAt(0), 0x01000193) >>> 0;
      h2 = Math.imul(h2 ^ char.charCodeAt(0), 0x5bd1e995) >>> 0;
    }
    hex.push(((h1 ^ h2) >>> 0).toString(16).padStart(8, '0'));
  }
  const digits = hex.join('');
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(13, 16)}-a${digits.slice(17, 20)}-${digits.slice(20, 32)}`;
};

export const MOCK_BANK_CATALOGUE: readonly MockBankDefinition[] = Object.entries(COUNTRIES).flatMap(
  ([country, { methods, banks }]) =>
    banks.map(
      ([id, name, displayName, brandColor, paymentMethods = methods, features = FULL, active = true]) => ({
        id,
        uuid: stableUuid(id),
        name,
        displayName,
        country,
        paymentMethods,
        active,
        features,
        brandColor,
      }),
    ),
);

import type { PaymentRecord } from './lifecycle.ts';
import type { PaymentFilters } from './payments.ts';

/**
 * The amount a search names, when it is one (`18.40`, `18.4`, `18`, `1,250.00`): a merchant
 * looks a payment up by what the customer paid. As a decimal string the numeric column compares
 * exactly (`18.4` finds `18.40`); null when the search is no amount.
 */
export const searchedAmount = (search: string): string | null => {
  const plain = search.trim().replace(/^[£€]\s*/, '');
  // No leading zero: `0042` is an order number, searched in the references, never 42.00.
  if (!/^([1-9]\d{0,2}(,\d{3})+|[1-9]\d{0,14}|0)(\.\d{1,2})?$/.test(plain)) return null;
  return plain.replace(/,/g, '');
};

/**
 * Whether a payment matches the list's and the export's filters, as the service's SQL decides
 * (server/src/payments/payment-store.ts): for the MSW kit and anything else without Postgres.
 * `search` is a payment id or end-to-end id exactly, an amount exactly (searchedAmount), or part
 * of the reference or payee name ignoring case; created bounds are inclusive.
 */
export function paymentMatches(record: PaymentRecord, filters: Partial<PaymentFilters>): boolean {
  if (filters.status && record.status !== filters.status) return false;
  if (filters.provider && record.provider !== filters.provider) return false;
  if (filters.currency && record.amount.currency !== filters.currency) return false;
  const created = record.createdAt.getTime();
  if (filters.createdFrom && created < Date.parse(filters.createdFrom)) return false;
  if (filters.createdTo && created > Date.parse(filters.createdTo)) return false;
  if (filters.search) {
    const search = filters.search;
    const lower = search.toLowerCase();
    const amount = searchedAmount(search);
    return (
      record.id === search ||
      (amount !== null && Number(record.amount.value) === Number(amount)) ||
      record.reference.endToEndId === search ||
      record.reference.reference.toLowerCase().includes(lower) ||
      record.toAccount.accountName.toLowerCase().includes(lower)
    );
  }
  return true;
}

const utc = (date: Date | null) => (date ? date.toISOString() : '');

/** The export's columns, in order: header and cell (every cell a string, times in UTC). */
export const EXPORT_COLUMNS: readonly { header: string; cell: (record: PaymentRecord) => string }[] = [
  { header: 'paymentId', cell: (r) => r.id },
  { header: 'createdAt', cell: (r) => utc(r.createdAt) },
  { header: 'updatedAt', cell: (r) => utc(r.updatedAt) },
  { header: 'completedAt', cell: (r) => utc(r.completedAt) },
  { header: 'expiresAt', cell: (r) => utc(r.expiresAt) },
  { header: 'status', cell: (r) => r.status },
  { header: 'isoStatus', cell: (r) => r.isoCode },
  { header: 'isoReason', cell: (r) => r.isoReason ?? '' },
  // As written at creation (the numeric column read as text): `10.50` keeps its digits.
  { header: 'amount', cell: (r) => r.amount.value },
  { header: 'currency', cell: (r) => r.amount.currency },
  { header: 'reference', cell: (r) => r.reference.reference },
  { header: 'endToEndId', cell: (r) => r.reference.endToEndId },
  { header: 'payeeName', cell: (r) => r.toAccount.accountName },
  // An IBAN, or sort code and account number.
  {
    header: 'payeeAccount',
    cell: (r) =>
      r.toAccount.iban ?? [r.toAccount.sortCode, r.toAccount.accountNumber].filter(Boolean).join(' '),
  },
  { header: 'provider', cell: (r) => r.provider },
  { header: 'bankId', cell: (r) => r.bankId ?? '' },
];

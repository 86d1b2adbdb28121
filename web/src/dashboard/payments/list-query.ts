import { isPaymentStatus, type PaymentStatusName } from '@pis/shared/payment-statuses';

export const PAGE_SIZE = 20;
/** As the server's bound (shared `SEARCH_MAX_LENGTH`): longer is refused there, so dropped here. */
export const SEARCH_MAX = 100;

export interface ListQuery {
  status?: PaymentStatusName;
  provider?: string;
  search?: string;
  /** RFC 3339: the start of the `from` day and the end of the `to` day, in the merchant's time zone. */
  createdFrom?: string;
  createdTo?: string;
  limit: number;
  offset: number;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as a local calendar day (its midnight, or the next day's), or null when not one. */
const localDay = (text: string, next = false): Date | null => {
  const match = DAY.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day + (next ? 1 : 0));
  // new Date rolls 2026-02-31 over to March: such a day is not one.
  const check = next ? new Date(year, month - 1, day) : date;
  if (check.getFullYear() !== year || check.getMonth() !== month - 1 || check.getDate() !== day) return null;
  return date;
};

/**
 * The list's filters from the address (so Back and a shared link show the same page), and what
 * in it could not be used: a status that is not one, a provider the organization cannot use, a
 * page that is not a whole number from 1, a search longer than the server takes, a day that is
 * not one or a range that ends before it starts. Those are dropped here, never sent to the server.
 * The range is days (`from`, `to`, inclusive) in the address, so a link reads well and means the
 * same days to whoever opens it; the server gets instants.
 */
export const readListQuery = (
  params: URLSearchParams,
  providers: readonly string[],
): { query: ListQuery; unusable: string[] } => {
  const unusable: string[] = [];
  const status = params.get('status');
  const provider = params.get('provider');
  const pageText = params.get('page');
  if (status !== null && !isPaymentStatus(status)) unusable.push(`status “${status}”`);
  if (provider !== null && !providers.includes(provider)) unusable.push(`provider “${provider}”`);
  const page = pageText === null ? 1 : Number(pageText);
  const pageUsable = Number.isSafeInteger(page) && page >= 1 && /^\d+$/.test(pageText ?? '1');
  if (!pageUsable) unusable.push(`page “${pageText}”`);

  const searchText = params.get('search')?.trim() ?? '';
  const search = searchText.length <= SEARCH_MAX ? searchText : '';
  if (searchText.length > SEARCH_MAX) unusable.push(`a search longer than ${SEARCH_MAX} characters`);

  const fromText = params.get('from');
  const toText = params.get('to');
  let from = fromText === null ? null : localDay(fromText);
  let to = toText === null ? null : localDay(toText, true);
  if (fromText !== null && !from) unusable.push(`from “${fromText}”`);
  if (toText !== null && !to) unusable.push(`to “${toText}”`);
  if (from && to && from >= to) {
    unusable.push(`a range from ${fromText} to ${toText}, which ends before it starts`);
    from = null;
    to = null;
  }
  return {
    query: {
      ...(isPaymentStatus(status) ? { status } : {}),
      ...(provider !== null && providers.includes(provider) ? { provider } : {}),
      ...(search ? { search } : {}),
      ...(from ? { createdFrom: from.toISOString() } : {}),
      // The last millisecond of the `to` day: the server's bound is inclusive.
      ...(to ? { createdTo: new Date(to.getTime() - 1).toISOString() } : {}),
      limit: PAGE_SIZE,
      offset: pageUsable ? (page - 1) * PAGE_SIZE : 0,
    },
    unusable,
  };
};

/** Whether the merchant narrowed the list (an empty answer then means "none match", not "none yet"). */
export const isFiltered = (query: ListQuery): boolean =>
  query.status !== undefined ||
  query.provider !== undefined ||
  query.search !== undefined ||
  query.createdFrom !== undefined ||
  query.createdTo !== undefined;

/** The export link's query: the list's filters without its page. */
export const exportQuery = (query: ListQuery): string => {
  const { limit: _limit, offset: _offset, ...filters } = query;
  return new URLSearchParams(
    Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  ).toString();
};

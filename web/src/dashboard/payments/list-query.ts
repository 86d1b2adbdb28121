import { isPaymentStatus, type PaymentStatusName } from '@pis/shared/payment-statuses';

export const PAGE_SIZE = 20;

export interface ListQuery {
  status?: PaymentStatusName;
  provider?: string;
  limit: number;
  offset: number;
}

/**
 * The list's filters from the address (so Back and a shared link show the same page), and what
 * in it could not be used: a status that is not one, a provider the organization cannot use, a
 * page that is not a whole number from 1. Those are dropped here, never sent to the server.
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
  return {
    query: {
      ...(isPaymentStatus(status) ? { status } : {}),
      ...(provider !== null && providers.includes(provider) ? { provider } : {}),
      limit: PAGE_SIZE,
      offset: pageUsable ? (page - 1) * PAGE_SIZE : 0,
    },
    unusable,
  };
};

/** Whether the merchant narrowed the list (an empty answer then means "none match", not "none yet"). */
export const isFiltered = (query: ListQuery): boolean =>
  query.status !== undefined || query.provider !== undefined;

/**
 * What the customer's browser brought back to the merchant's return URL. `claimedStatus` is
 * whatever the query said and is NOT evidence of anything: anyone can type a URL.
 */
export interface ReturnUrlParams {
  paymentId: string;
  claimedStatus: string | undefined;
}

// Lets a path-only URL (`/checkout/return?paymentId=...`, as Express's req.url gives it) parse.
const PLACEHOLDER_ORIGIN = 'http://return.invalid';

/** Reads `paymentId` (and, for logging only, `status`) from a return URL, absolute or path-only. */
export const parseReturnUrl = (returnUrl: string | URL): ReturnUrlParams => {
  const url = new URL(String(returnUrl), PLACEHOLDER_ORIGIN);
  const paymentId = url.searchParams.get('paymentId')?.trim();
  if (!paymentId) throw new TypeError('The return URL has no paymentId query parameter');
  return { paymentId, claimedStatus: url.searchParams.get('status') ?? undefined };
};

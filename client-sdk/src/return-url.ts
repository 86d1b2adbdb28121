import { paymentIdSegment } from './resources/path.ts';

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

/**
 * Reads `paymentId` (and, for logging only, `status`) from a return URL, absolute or path-only.
 * The URL comes from the customer's browser, so anything but exactly one well-formed payment id
 * is a TypeError: none, two (which one would a server read?), an empty one, a path-like one.
 */
export const parseReturnUrl = (returnUrl: string | URL): ReturnUrlParams => {
  if (typeof returnUrl !== 'string' && !(returnUrl instanceof URL)) {
    throw new TypeError(`The return URL must be a string or a URL, got ${typeof returnUrl}`);
  }
  let url: URL;
  try {
    url = new URL(String(returnUrl), PLACEHOLDER_ORIGIN);
  } catch {
    throw new TypeError('The return URL is not a URL');
  }
  const ids = url.searchParams.getAll('paymentId');
  if (ids.length === 0) throw new TypeError('The return URL has no paymentId query parameter');
  if (ids.length > 1) throw new TypeError(`The return URL has ${ids.length} paymentId query parameters`);
  const paymentId = paymentIdSegment(ids[0], "The return URL's paymentId");
  return { paymentId, claimedStatus: url.searchParams.get('status') ?? undefined };
};

import { BANK_ID_PATTERN, PAYMENT_ID_PATTERN } from '@pis/shared';

/** An id for an error message: quoted, cut short, so a hostile value cannot flood a log. */
export const quoteId = (id: string): string => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/**
 * A path segment from an id a caller passes. Ids often come back through a browser (a return
 * URL, a form), so they are hostile: `.` survives `encodeURIComponent` and collapses the path,
 * `providers` names a sibling route, '' turns a read into a list. Only the shape the service
 * issues goes into a path; anything else is a TypeError before any request is sent.
 */
const idSegment =
  (pattern: RegExp, shape: string) =>
  (id: unknown, what: string): string => {
    if (typeof id !== 'string') throw new TypeError(`${what} must be a string, got ${typeof id}`);
    if (!pattern.test(id)) throw new TypeError(`${what} ${quoteId(id)} is not ${shape}`);
    // The patterns admit only URL-safe characters: nothing to encode.
    return id;
  };

/** A payment id as the service issues it: `pay_` and 24 letters or digits. */
export const paymentIdSegment = idSegment(PAYMENT_ID_PATTERN, 'a payment id (pay_ and 24 letters or digits)');

/** A bank id as the catalogue issues it: lower-case words joined by hyphens (`mock-gb-albion`). */
export const bankIdSegment = idSegment(BANK_ID_PATTERN, 'a bank id (lower-case words joined by hyphens)');

import { z } from 'zod';

/**
 * Waiting reads (DESIGN.md "Live reads"): `GET /payments/{id}` with `If-None-Match: <ETag>` and
 * `Prefer: wait=N` holds until the payment changes or N seconds pass. The server, the MSW kit
 * and the dashboard share these rules.
 */

/** The longest wait a client may ask for; more is capped, and `Preference-Applied` says so. */
export const MAX_WAIT_SECONDS = 60;

/**
 * The ETag of a payment as a client sees it: a hash of its JSON, so it changes whenever anything
 * in the answer does (status, history, timestamps) and never otherwise. FNV-1a, twice with
 * different seeds (64 bits): not for security, only to tell versions of one payment apart, and
 * it runs the same in Node and in a browser (the MSW kit).
 */
export const paymentEtag = (payment: unknown): string => jsonEtag(JSON.stringify(payment));

/** The ETag of an answer already serialised (a payment's stored answer): paymentEtag of its value. */
export function jsonEtag(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 13);
  }
  const hex = (value: number) => (value >>> 0).toString(16).padStart(8, '0');
  return `"${hex(a)}${hex(b)}"`;
}

/**
 * The `wait` preference of a `Prefer` header (RFC 7240; several headers joined by commas), in
 * whole seconds, capped at MAX_WAIT_SECONDS; undefined when absent or not a number.
 */
export function preferredWaitSeconds(prefer: string | readonly string[] | undefined): number | undefined {
  if (prefer === undefined) return undefined;
  const text = typeof prefer === 'string' ? prefer : prefer.join(',');
  for (const preference of text.split(',')) {
    const match = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*(;.*)?$/i.exec(preference);
    if (match) return Math.min(Number(match[1]), MAX_WAIT_SECONDS);
  }
  return undefined;
}

/**
 * Whether an `If-None-Match` header names this ETag (a list, or weak `W/` forms, included).
 * `*` names none: a wait needs a state to wait for a change from, so it answers at once.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === etag);
}

/** The request headers of a waiting read, as the OpenAPI document describes them. */
export const WaitingReadRequestHeaders = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({
      description:
        'The `ETag` of the payment as you last read it. With `Prefer: wait=N`, the read is held until the payment ' +
        'no longer matches it (or N seconds pass); a wrong or stale ETag answers at once. Alone it changes nothing.',
      example: '"3f2a9c1d7e5b4a60"',
    }),
  Prefer: z
    .string()
    .optional()
    .meta({
      description:
        '`wait=N` (RFC 7240): with `If-None-Match`, hold the read up to N seconds (at most 60; more is capped) ' +
        'for the payment to change, then answer 200 with it either way. Without `If-None-Match` it changes nothing.',
      example: 'wait=30',
    }),
});

/** The response headers of GET /payments/{id}. */
export const WaitingReadResponseHeaders = z.object({
  ETag: z.string().meta({
    description:
      'Identifies this state of the payment: it changes whenever the payment does. Send it back in `If-None-Match` to wait for the next change.',
  }),
  'Preference-Applied': z
    .string()
    .optional()
    .meta({
      description:
        'Present when the read honoured `Prefer: wait` (with `If-None-Match`): `wait=N`, the seconds actually ' +
        'applied (capped at 60). Absent: this server does not wait, poll instead.',
    }),
});

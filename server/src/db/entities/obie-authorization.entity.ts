import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * The `obie` adapter's own facts about one payment at its bank: the consent and the bank's
 * payment (the customer's authorization requests: ObieAuthorizationRequest). Only the adapter reads and writes it; the payment's statuses live on
 * `payment` (consent_status, bank_status). No foreign key: an API_ONLY start runs before the
 * payment row is inserted.
 */
export const ObieAuthorization = defineEntity({
  name: 'ObieAuthorization',
  tableName: 'obie_authorization',
  properties: {
    paymentId: p.string().length(40).primary(),
    /** The bank connection (one per ASPSP) the consent was made at. */
    bankId: p.string().length(100),
    consentId: p.string().length(128),
    /** When the customer's callback was taken: a second one (a replay) changes nothing. */
    callbackAt: p.datetime().nullable(),
    bankPaymentId: p.string().length(128).nullable(),
    createdAt: p.datetime(),
  },
});
export type ObieAuthorization = InferEntity<typeof ObieAuthorization>;

/**
 * One authorization request at the bank (a PAR request), made each time the customer opens our
 * link: its state, nonce and PKCE verifier, checked when the customer comes back with the bank's
 * answer. Every open request stays good (two tabs: whichever the customer finishes in counts);
 * only one callback per payment submits (`ObieAuthorization.callbackAt`).
 */
export const ObieAuthorizationRequest = defineEntity({
  name: 'ObieAuthorizationRequest',
  tableName: 'obie_authorization_request',
  properties: {
    state: p.string().length(128).primary(),
    paymentId: p.string().length(40).index(),
    nonce: p.string().length(128),
    codeVerifier: p.string().length(128),
    createdAt: p.datetime(),
  },
});
export type ObieAuthorizationRequest = InferEntity<typeof ObieAuthorizationRequest>;

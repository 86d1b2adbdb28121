import { z } from 'zod';
import { IdempotencyKeyValue } from './create-rules.ts';
import { awaitsDecision, PAYMENT_MODES } from './lifecycle.ts';
import { MAX_WAIT_SECONDS } from './live-reads.ts';
import { ApprovalTiming, RejectReason } from './mock-bank.ts';
import { CreatePaymentInput, Payment, PaymentIdInput } from './payments.ts';
import { MOCK_PROVIDER } from './primitives.ts';
import { providerDescriptor } from './providers/index.ts';
import { isTerminal, PaymentStatus } from './state-machine.ts';

/**
 * Contract of the merchant dashboard's procedures (/trpc `dashboard.*`, never /api). A signed-in
 * user's session cookie is the credential; every state-changing call also sends the session's
 * CSRF token in the `x-csrf-token` header (see DASHBOARD_CSRF_HEADER).
 */

export const DASHBOARD_CSRF_HEADER = 'x-csrf-token';
/**
 * `__Host-`: browsers accept it only Secure, at Path=/ and without Domain, so neither a sibling
 * subdomain nor a plain-http page can set or shadow it. Browsers treat http://localhost and
 * 127.0.0.1 as secure for this, so development over plain http on loopback still signs in.
 */
export const DASHBOARD_SESSION_COOKIE = '__Host-pis_session';

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Printable single-line text: what a name shown on a page and in other people's lists may hold. */
const PlainName = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { error: 'is required' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((text) => !CONTROL_CHARACTERS.test(text), { error: 'must not contain control characters' });

export const BusinessName = PlainName(200);

/** Addresses are unique regardless of case; kept as typed (trimmed) for display. */
export const Email = z
  .string()
  .trim()
  .max(254, { error: 'must be at most 254 characters' })
  .pipe(z.email({ error: 'must be a valid email address' }));

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * A new password: long enough to resist guessing (NIST SP 800-63B asks length, not character
 * classes), bounded so hashing cannot be abused, and not one character repeated.
 */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, { error: `must be at least ${PASSWORD_MIN_LENGTH} characters` })
  .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` })
  .refine((password) => new Set(password).size >= 4, {
    error: 'is too weak: use at least 4 different characters',
  });

export const SignUpInput = z.object({ businessName: BusinessName, email: Email, password: NewPassword });
export type SignUpInput = z.input<typeof SignUpInput>;

/** Sign-in checks only bounds: the answer to a wrong email or password is one message. */
export const SignInInput = z.object({
  email: z.string().max(254, { error: 'must be at most 254 characters' }),
  password: z.string().max(1024, { error: 'must be at most 1024 characters' }),
});
export type SignInInput = z.infer<typeof SignInInput>;

export const DashboardOrganization = z.object({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  /** Always contains `mock`. */
  approvedProviders: z.array(z.string()),
});
export type DashboardOrganization = z.infer<typeof DashboardOrganization>;

export const DashboardSession = z.object({
  /** `emailVerified`: proven by the mailed link; live mode and invitations wait for it. */
  /** `role`: what the member may change (Owner, Developer, Support, Viewer); the server enforces it. */
  user: z.object({
    id: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    role: z.enum(['owner', 'developer', 'support', 'viewer']),
  }),
  organization: DashboardOrganization,
  /** Send as the `x-csrf-token` header on every mutation of this session. */
  csrfToken: z.string(),
  /** The test/live switch: the dashboard shows this mode's payments (a new session: test). */
  mode: z.enum(PAYMENT_MODES),
});
export type DashboardSession = z.infer<typeof DashboardSession>;

export const SetDashboardModeInput = z.object({ mode: z.enum(PAYMENT_MODES) });

export const SignedOut = z.object({ signedOut: z.literal(true) });

export const API_KEY_PERMISSIONS = ['read', 'write'] as const;
export const ApiKeyPermission = z.enum(API_KEY_PERMISSIONS);
export type ApiKeyPermission = z.infer<typeof ApiKeyPermission>;

export const API_KEY_STATES = ['active', 'expired', 'revoked'] as const;
export const ApiKeyState = z.enum(API_KEY_STATES);
export type ApiKeyState = z.infer<typeof ApiKeyState>;

export const ApiKeyEntry = z.object({
  id: z.string(),
  name: z.string(),
  /** The key's first characters: not secret, enough to tell keys apart. */
  prefix: z.string(),
  /** Live or test: the key sees only payments of its mode (test unless the operator made it live). */
  mode: z.enum(PAYMENT_MODES),
  permissions: z.array(ApiKeyPermission),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
  state: ApiKeyState,
});
export type ApiKeyEntry = z.infer<typeof ApiKeyEntry>;

export const ApiKeyList = z.object({ apiKeys: z.array(ApiKeyEntry) });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

export const ApiKeyName = PlainName(100);

export const CreateApiKeyInput = z.object({
  name: ApiKeyName,
  permissions: z
    .array(ApiKeyPermission)
    .min(1, { error: 'choose Read, Write or both' })
    .max(2, { error: 'choose Read, Write or both' })
    .refine((list) => new Set(list).size === list.length, { error: 'must not repeat a permission' }),
  /** Must be in the future (checked by the server against its clock). */
  expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const CreatedApiKey = z.object({
  apiKey: ApiKeyEntry,
  /** The whole key: shown this once, never stored or readable again. */
  secret: z.string(),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const ApiKeyIdInput = z.object({ apiKeyId: z.string().min(1).max(100) });

/** Which buttons the payment's page shows, by the rules the actions themselves apply. */
export const PaymentActions = z.object({
  cancel: z.boolean(),
  approve: z.boolean(),
  reject: z.boolean(),
  /** "Advance time": a test clock, for any unfinished Mock bank payment (shared `advanceClock`). */
  advance: z.boolean(),
  /**
   * "New customer link": unfinished, and the customer's page is ours to sign (a hosted flow, or
   * the Mock bank for API_ONLY): the rule of the server's `newCustomerLink` (409 otherwise).
   */
  link: z.boolean(),
});
export type PaymentActions = z.infer<typeof PaymentActions>;

/**
 * Cancel while unfinished (lifecycle `cancel`); approve and reject on a Mock bank payment waiting
 * for the customer (lifecycle `awaitsDecision` + the Mock-only rule). A payment leaves
 * AUTHORIZING in the same transaction that sets its approval time, so the status is enough here.
 */
/**
 * Whether a new customer link can be made for a payment: its customer link is ours to sign (a
 * hosted flow; for API_ONLY a provider whose `linkKind` is `ours`: the Mock bank, or a link of ours that asks the bank for its
 * page when opened); a provider whose bank issues the link itself could not. The one rule behind
 * `POST /payments/{id}/link`'s 409 LINK_NOT_RENEWABLE and the dashboard's button.
 */
export const customerLinkRenewable = (payment: { flowType: string; provider: string }): boolean =>
  payment.flowType !== 'API_ONLY' || providerDescriptor(payment.provider)?.linkKind === 'ours';

export const paymentActions = (
  payment: Pick<Payment, 'status' | 'provider' | 'flowType'>,
): PaymentActions => {
  const decidable =
    payment.provider === MOCK_PROVIDER && awaitsDecision({ status: payment.status, approvedAt: null });
  const unfinished = !isTerminal(payment.status);
  return {
    cancel: unfinished,
    approve: decidable,
    reject: decidable,
    advance: unfinished && payment.provider === MOCK_PROVIDER,
    link: unfinished && customerLinkRenewable(payment),
  };
};

/**
 * A payment's page, read live: with the `etag` of the last answer and `waitSeconds`, the read is
 * held until the payment changes (as GET /payments/{id} with If-None-Match and Prefer: wait).
 */
export const DashboardPaymentInput = PaymentIdInput.extend({
  ifNoneMatch: z.string().max(100).optional(),
  waitSeconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).optional(),
});
export type DashboardPaymentInput = z.infer<typeof DashboardPaymentInput>;

export const DashboardPayment = z.object({
  payment: Payment,
  /** Changes whenever the payment does; hand it back as `ifNoneMatch` to wait for the next change. */
  etag: z.string(),
  actions: PaymentActions,
  /** The customer's page while the payment still waits for them (null otherwise). */
  customerLink: z.object({ url: z.string(), expiresAt: z.iso.datetime() }).nullable(),
  /**
   * A real provider's own statuses as its bank last reported them (obie: consent AWAU, AUTH,
   * COND, RJCT; payment RCVD ... ACSC, RJCT), kept beside ours; absent for the Mock bank.
   */
  /** A real provider's own statuses for the payment as its bank last reported them (obie: consent, payment). */
  atBank: z.record(z.string(), z.string()).optional(),
});
export type DashboardPayment = z.infer<typeof DashboardPayment>;

export const DashboardApproveInput = PaymentIdInput.extend({ scenario: ApprovalTiming.default({}) });
export const DashboardRejectInput = PaymentIdInput.extend({ reason: RejectReason });

/**
 * "New payment" on the dashboard: the API's own create body, checked by the same schema, and an
 * idempotency key the page makes once per form, so a double submit or a retry after a lost
 * answer creates one payment (issue 23 item 4).
 */
export const DashboardCreatePaymentInput = z.object({
  payment: CreatePaymentInput,
  idempotencyKey: IdempotencyKeyValue,
});

export const VolumeDay = z.object({
  /** UTC day, YYYY-MM-DD. */
  day: z.iso.date(),
  currency: z.string(),
  /** Sum of COMPLETED payments created that day, as a decimal string. */
  value: z.string(),
  count: z.int(),
});
export type VolumeDay = z.infer<typeof VolumeDay>;

/** The overview's periods: the last 7, 30 or 90 UTC days, today included. */
export const OVERVIEW_PERIODS = [7, 30, 90] as const;
export const OverviewInput = z
  .object({ days: z.union([z.literal(7), z.literal(30), z.literal(90)]).default(30) })
  .default({ days: 30 });
export type OverviewInput = z.input<typeof OverviewInput>;

/** How the payments created in the period ended (those still unfinished are not counted). */
export const OverviewOutcomes = z.object({
  finished: z.int(),
  completed: z.int(),
  /** COMPLETED of all finished, 0 to 1; null when none finished. */
  successRate: z.number().nullable(),
  /** From creation to COMPLETED, to within 5 %; null when none completed. */
  medianSecondsToComplete: z.number().nullable(),
  /** Where COMPLETED payments were paid from, most first (at most 5; `''`: no bank recorded). */
  topBanks: z.array(z.object({ bankId: z.string(), completed: z.int() })),
  /** Why FAILED payments failed (ISO reason), most first (at most 5). */
  topFailureReasons: z.array(z.object({ code: z.string(), count: z.int() })),
});
export type OverviewOutcomes = z.infer<typeof OverviewOutcomes>;

export const Overview = z.object({
  organization: DashboardOrganization,
  /** Every status, zero included. */
  countsByStatus: z.record(PaymentStatus, z.int()),
  /** The period asked for (days). */
  days: z.int(),
  /** The period's UTC days (today included), only days with payments; oldest first. */
  volume: z.array(VolumeDay),
  outcomes: OverviewOutcomes,
});
export type Overview = z.infer<typeof Overview>;

export const QuickStart = z.object({
  /** Where the REST API lives: `${publicBaseUrl}/api`. */
  apiBaseUrl: z.string(),
  publicBaseUrl: z.string(),
  /** Active keys (prefix only) to name in the examples; a full key exists only at creation. */
  apiKeys: z.array(ApiKeyEntry.pick({ id: true, name: true, prefix: true, permissions: true })),
  approvedProviders: z.array(z.string()),
});
export type QuickStart = z.infer<typeof QuickStart>;

/**
 * The settings page: where the organization's customers may be sent back to. Empty: any origin
 * (the spec's default). The rules of an origin are the domain's (server `setAllowedReturnOrigins`,
 * built on `ReturnOrigin`), so the input only bounds the size before anything walks it.
 */
export const ReturnOriginSettings = z.object({ allowedReturnOrigins: z.array(z.string()) });
export type ReturnOriginSettings = z.infer<typeof ReturnOriginSettings>;

export const SetReturnOriginsInput = z.object({ origins: z.array(z.string().max(2048)).max(100) });
export type SetReturnOriginsInput = z.infer<typeof SetReturnOriginsInput>;

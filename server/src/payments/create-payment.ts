import {
  AppError,
  byActor,
  type Change,
  type CreatedPayment,
  type CreatePaymentCommand,
  checkCreateRules,
  checkReturnUrl,
  newEndToEndId,
  newPaymentId,
  providerNotConfigured,
  randomId,
  receivePayment,
  sendToProvider,
  toCreatedPayment,
} from '@pis/shared';
import { customerLink } from '../links/customer-links.ts';
import { countCreated } from '../observability/metrics.ts';
import { defaultReferenceOf } from '../organizations/default-reference.ts';
import { allowedReturnOrigins } from '../organizations/return-origins.ts';
import { type PaymentProvider, ProviderOutcomeUnknownError } from '../providers/payment-provider.ts';
import { announcePaymentDue } from './change-payments.ts';
import { createAtRealProvider } from './create-at-real-provider.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  dropIdempotencyClaim,
  holdIdempotencyClaim,
  type IdempotencyClaim,
  requestHash,
  settleFailedClaim,
} from './idempotency.ts';
import { insertPayment } from './payment-store.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';
import { ProviderOutcomeUnknown } from './provider-claims.ts';
import { providerUnavailable } from './refresh-payment.ts';

/**
 * POST /payments. Validate (the schema ran in the router; here the rules that need the caller
 * and the configuration), decide with the pure lifecycle, persist payment + history (+ the
 * idempotency key) in one transaction, then schedule its expiry.
 *
 * API_ONLY goes to the provider at once (history PENDING, AUTHORIZING) and the customer is sent
 * to the bank's page; hosted flows stay PENDING and the customer is sent to our hosted page,
 * where choosing a bank hands the payment to the provider.
 */
export async function createPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  command: CreatePaymentCommand,
  idempotencyKey?: string,
): Promise<CreatedPayment> {
  const provider = usableProvider(deps, caller, command);
  if (command.redirectUrl) {
    checkReturnUrl(command.redirectUrl, {
      serviceBaseUrl: deps.config.publicBaseUrl,
      allowedReturnOrigins:
        caller.allowedReturnOrigins ?? (await allowedReturnOrigins(deps.em, caller.organizationId)),
    });
  }
  const now = deps.clock.now();
  const claim: IdempotencyClaim | undefined = idempotencyKey
    ? {
        organizationId: caller.organizationId,
        mode: modeOf(caller),
        key: idempotencyKey,
        hash: requestHash(command),
        token: randomId('idem'),
      }
    : undefined;
  // Claimed before the provider hears of anything: a concurrent duplicate is refused (409) or,
  // once this one is done, answered with its result.
  if (claim) {
    const replay = await claimIdempotencyKey(deps.em, claim, now).catch(async (error: unknown) => {
      // Not a refusal: the claim may have committed and its answer been lost with the connection
      // (a failover). Freed by its token, which deletes nothing if it never landed.
      if (!(error instanceof AppError)) {
        await settleFailedClaim(() => dropIdempotencyClaim(deps.em, claim), deps.logger);
      }
      throw error;
    });
    if (replay) return replay;
  }
  try {
    return await createClaimed(deps, caller, command, provider, now, claim);
  } catch (error) {
    // A provider whose answer never came may have started the payment: keep the key claimed
    // longer (duplicates get 409 meanwhile) rather than start a second one. Otherwise free it.
    if (claim) {
      const unknownOutcome = error instanceof ProviderOutcomeUnknown;
      await settleFailedClaim(
        () =>
          unknownOutcome ? holdIdempotencyClaim(deps.em, claim, now) : dropIdempotencyClaim(deps.em, claim),
        deps.logger,
      );
    }
    throw error;
  }
}

async function createClaimed(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  command: CreatePaymentCommand,
  provider: PaymentProvider,
  now: Date,
  claim: IdempotencyClaim | undefined,
): Promise<CreatedPayment> {
  const ids = {
    id: newPaymentId(),
    organizationId: caller.organizationId,
    endToEndId: newEndToEndId(),
    mode: modeOf(caller),
  };
  // No reference given: the bank shows the merchant's name and a short code, not the hex id.
  const referenced =
    command.reference === undefined
      ? { ...command, reference: await defaultReferenceOf(deps.em, caller.organizationId, ids.endToEndId) }
      : command;
  const received = byActor(caller.actor, receivePayment)(referenced, ids, now);
  if (command.flowType === 'API_ONLY' && provider.keepsPayments) {
    return createAtRealProvider(deps, provider, received, command, claim, caller.actor);
  }
  let change: Change = received;
  let customerUrl: string | null;
  if (command.flowType === 'API_ONLY') {
    const sent = byActor(caller.actor, sendToProvider)(received.record, command.bankId ?? null, now);
    change = { record: sent.record, history: [...received.history, ...sent.history] };
    customerUrl = await startAtProvider(deps, provider, change, now);
  } else {
    customerUrl = customerLink(deps.config, 'hosted', ids.id, now).url;
  }
  const created = toCreatedPayment(change.record, customerUrl);

  // Without a key: one statement (payment + history), its own transaction. With one, completing
  // the claimed key joins the same transaction.
  if (claim) {
    await deps.em.fork().transactional(async (em) => {
      await insertPayment(em, change);
      await completeIdempotencyKey(em, claim, ids.id, created);
    });
  } else {
    await insertPayment(deps.em, change);
  }
  countCreated(change.record, change.history);
  if (change.record.nextDueAt) await announcePaymentDue(deps, ids.id, change.record.nextDueAt);
  return created;
}

/** The create rules that depend on who asks and how this service is configured (shared with the MSW kit). */
function usableProvider(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  command: CreatePaymentCommand,
): PaymentProvider {
  checkCreateRules(command, {
    approvedProviders: caller.approvedProviders,
    baseUrl: deps.config.publicBaseUrl,
    isConfigured: (code) => deps.providers.get(code) !== undefined,
    hostedPagesEnabled: deps.config.hostedPagesEnabled,
    mode: modeOf(caller),
  });
  const provider = deps.providers.get(command.provider);
  if (!provider) throw providerNotConfigured(command.provider);
  return provider;
}

/**
 * The provider's customer link; its failure means nothing was stored (502). API_ONLY creates at
 * the Mock bank call it before the row exists: it keeps nothing per payment, so nothing can be
 * orphaned there; duplicates are held off by the Idempotency-Key claim. Providers that keep
 * payments go row first (create-at-real-provider.ts).
 */
export async function startAtProvider(
  deps: PaymentsDeps,
  provider: PaymentProvider,
  change: Change,
  now: Date,
): Promise<string | null> {
  try {
    return (await provider.startPayment(change.record, now)).customerUrl;
  } catch (error) {
    deps.logger.warn(
      { err: error, paymentId: change.record.id, provider: provider.code },
      'provider start failed',
    );
    if (error instanceof ProviderOutcomeUnknownError) throw new ProviderOutcomeUnknown();
    throw providerUnavailable();
  }
}

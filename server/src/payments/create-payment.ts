import { UniqueConstraintViolationException } from '@mikro-orm/core';
import {
  type Change,
  type CreatedPayment,
  type CreatePaymentCommand,
  checkCreateRules,
  newEndToEndId,
  newPaymentId,
  providerNotConfigured,
  receivePayment,
  sendToProvider,
  toCreatedPayment,
} from '@pis/shared';
import { preparedQuery } from '../db/prepared-query.ts';
import { customerLink } from '../links/customer-links.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { announceNextDue } from './apply-payment-event.ts';
import { claimKey, findReplay, type IdempotencyClaim, requestHash } from './idempotency.ts';
import { insertPaymentSql } from './payment-record.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';
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
  const now = deps.clock.now();
  const claim: IdempotencyClaim | undefined = idempotencyKey
    ? { organizationId: caller.organizationId, key: idempotencyKey, hash: requestHash(command) }
    : undefined;
  if (claim) {
    const replay = await findReplay(deps.em, claim, now);
    if (replay) return replay;
  }

  const ids = { id: newPaymentId(), organizationId: caller.organizationId, endToEndId: newEndToEndId() };
  const received = receivePayment(command, ids, now);
  let change: Change = received;
  let customerUrl: string | null;
  if (command.flowType === 'API_ONLY') {
    const sent = sendToProvider(received.record, command.bankId ?? null, now);
    change = { record: sent.record, history: [...received.history, ...sent.history] };
    customerUrl = await startAtProvider(deps, provider, change, now);
  } else {
    customerUrl = customerLink(deps.config, 'hosted', ids.id, now).url;
  }
  const created = toCreatedPayment(change.record, customerUrl);

  // Without a key: one statement (payment + history), its own transaction. With one, the claim
  // joins the same transaction.
  const insert = insertPaymentSql(change.record, change.history);
  try {
    if (claim) {
      await deps.em.fork().transactional(async (em) => {
        await em.execute(insert.statement.sql, insert.values, 'run');
        await claimKey(em, claim, ids.id, created, now);
      });
    } else {
      await preparedQuery(deps.em, insert.statement, insert.values);
    }
  } catch (error) {
    // A concurrent request with the same key committed first: answer what it answered.
    if (claim && error instanceof UniqueConstraintViolationException) {
      const replay = await findReplay(deps.em, claim, now);
      if (replay) return replay;
    }
    throw error;
  }
  await announceNextDue(deps, null, change.record);
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
  });
  const provider = deps.providers.get(command.provider);
  if (!provider) throw providerNotConfigured(command.provider);
  return provider;
}

/** The provider's customer link; its failure means nothing was stored (502). */
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
    throw providerUnavailable();
  }
}

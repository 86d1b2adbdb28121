import { AppError, awaitsDecision, isTerminal, OBIE_PROVIDER } from '@pis/shared';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import type { Orm } from '../../db/orm.ts';
import { openCustomerLink, paymentOfExpiredLink } from '../../links/customer-links.ts';
import {
  type CustomerStatusPage,
  onwardPage,
  type PagePayment,
  pagePaymentOf,
  sendCustomerStatusPage,
} from '../../links/customer-status-page.ts';
import type { Logger } from '../../logger.ts';
import { applyPaymentEvent } from '../../payments/apply-payment-event.ts';
import { openLink } from '../../payments/customer-pages/open-link.ts';
import { loadPayment } from '../../payments/load-payment.ts';
import { organizationView } from '../../payments/organization-view.ts';
import { type PaymentsDeps, paymentsDeps } from '../../payments/payments-deps.ts';
import { startPolling } from '../../payments/poll-provider.ts';
import { refreshPayment } from '../../payments/refresh-payment.ts';
import { rateLimitClient } from '../../rate-limits/client-address.ts';
import { enforceRateLimit } from '../../rate-limits/rate-limits.ts';
import type { ObieProvider } from './obie-provider.ts';

/**
 * The `obie` provider's routes at our origin, outside the merchant API:
 *
 * - `GET /providers/obie/authorize/:token`: the customer's link (signed, 30 minutes). Opening it
 *   makes a fresh authorization request (PAR) at the bank and sends the browser there (303): the
 *   bank keeps a PAR request for 60 s only, a link must outlive that. Each open is a request of
 *   its own; the first answer back counts. A link that is forged or expired, a payment no longer
 *   waiting for the customer, a bank that cannot be reached: a short page, and nothing changed.
 * - `GET /providers/obie/callback`: the customer back from the bank with its JARM answer. A
 *   verified answer is applied to the payment and the customer goes on to the merchant's
 *   redirectUrl with `paymentId` and `status` (as after the Mock bank). A forged, replayed or
 *   unknown answer changes nothing and shows a short page.
 * - `POST /api/providers/obie/event-notifications`: the bank's signed SET (issuer, audience =
 *   our client id, PS256 with the bank's key), treated as "read this payment now". 202 when
 *   accepted, 400 when its signature or audience is wrong.
 */
/** What the routes need of the app's services (the app passes its own). */
export type ObieRouteServices = Pick<PaymentsDeps, 'clock' | 'providers' | 'scheduler'> & {
  orm: Orm;
  config: PaymentsDeps['config'] & Pick<Config, 'rateLimits' | 'webDistDir'>;
};

export async function obieRoutes(
  app: FastifyInstance,
  options: { services: ObieRouteServices },
): Promise<void> {
  const { services } = options;
  const provider = services.providers.get(OBIE_PROVIDER) as ObieProvider | undefined;
  if (!provider) return;
  const deps = (log: Logger): PaymentsDeps =>
    paymentsDeps({ em: services.orm.em, clock: services.clock, config: services.config, log, services });
  // The service's own styled pages (links/customer-status-page.ts): what happened, the payment
  // where known, "Try again" where following the same link again can work, and the way back.
  const page = (reply: FastifyReply, status: number, content: CustomerStatusPage) =>
    sendCustomerStatusPage(reply, status, content, { distDir: services.config.webDistDir });
  /** An expired link's payment, to show what it was for and the way back (nothing is read at the bank). */
  const expiredLinkPayment = async (token: string): Promise<PagePayment | null> => {
    const paymentId = paymentOfExpiredLink(services.config, token, 'obie');
    if (!paymentId) return null;
    try {
      const { record } = await loadPayment(services.orm.em.fork(), { paymentId });
      const merchant = await organizationView(services.orm.em, record.organizationId);
      return merchant.active ? pagePaymentOf(record, merchant.name) : null;
    } catch {
      return null;
    }
  };

  app.get<{ Params: { token: string } }>('/providers/obie/authorize/:token', async (request, reply) => {
    const log = request.log as Logger;
    let opened: Awaited<ReturnType<typeof openLink>>;
    // The same link again: what "Try again" follows (a fresh authorization request each time).
    const sameLink = `/providers/obie/authorize/${encodeURIComponent(request.params.token)}`;
    try {
      // Per client address, as every customer page: each open makes a request at the bank.
      await enforceRateLimit(
        services.orm.em.fork(),
        services.config.rateLimits,
        (name, value) => reply.header(name, value),
        'pages',
        rateLimitClient(request.ip),
      );
      // A HEAD (a link checker, a mail scanner, a chat's preview) learns whether the link is
      // genuine and current, nothing more: no payment is read, so the bank is not asked (its
      // status read and the authorization request are a GET's, which a browser follows).
      if (request.method === 'HEAD') {
        openCustomerLink(services.config, request.params.token, 'obie', services.clock.now());
        return reply.code(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send();
      }
      opened = await openLink(deps(log), request.params.token, 'obie');
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        const refused = linkRefused(error, sameLink);
        if (error.kind === 'LINK_EXPIRED') refused.payment = await expiredLinkPayment(request.params.token);
        return page(reply, error.status, refused);
      }
      log.warn({ err: error }, 'obie link could not be opened');
      return page(reply, 503, {
        kind: 'UNAVAILABLE',
        tone: 'problem',
        title: 'This page is not available right now',
        lines: ['Your payment was not changed. Please try again in a moment.'],
        tryAgainUrl: sameLink,
      });
    }
    const { record } = opened;
    const payment = pagePaymentOf(record, opened.organization.name);
    if (isTerminal(record.status)) return page(reply, 409, finishedPage(record.status, payment));
    if (!awaitsDecision(record)) return page(reply, 409, notAwaitingPage(record.status, payment));
    let bankUrl: string | null;
    try {
      bankUrl = await provider.authorizationUrl(record.id, services.clock.now());
    } catch (error) {
      if (error instanceof AppError && error.kind === 'RATE_LIMITED') {
        reply.header('retry-after', '60');
        return page(reply, error.status, { ...linkRefused(error, sameLink), payment });
      }
      log.warn({ err: error, paymentId: record.id }, 'obie authorization request failed');
      return page(reply, 502, {
        kind: 'BANK_UNREACHABLE',
        tone: 'problem',
        title: 'The bank could not be reached',
        lines: ['Your payment was not changed. Please try again in a moment.'],
        payment,
        tryAgainUrl: sameLink,
      });
    }
    if (!bankUrl) return page(reply, 409, notAwaitingPage(record.status, payment));
    return reply
      .code(303)
      .header('location', bankUrl)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  });

  app.get('/providers/obie/callback', async (request, reply) => {
    const url = new URL(request.url, services.config.publicBaseUrl);
    const now = services.clock.now();
    let outcome: Awaited<ReturnType<ObieProvider['handleCallback']>>;
    try {
      outcome = await provider.handleCallback(url, now);
    } catch (error) {
      request.log.warn({ err: error }, 'obie callback failed');
      // The bank's answer is used up either way: following it again cannot work.
      return page(reply, 502, {
        kind: 'BANK_UNREACHABLE',
        tone: 'problem',
        title: 'The bank could not be reached',
        lines: ['Your payment was not changed. Please go back to the shop and try again in a moment.'],
      });
    }
    if (outcome.kind === 'refused') {
      request.log.warn({ reason: outcome.reason }, 'obie callback refused');
      return page(reply, 400, {
        kind: 'CALLBACK_REFUSED',
        tone: 'problem',
        title: 'This link cannot be used',
        lines: ['This answer from the bank is not valid or was already used. Your payment was not changed.'],
      });
    }
    const applied = await applyPaymentEvent(
      deps(request.log as Logger),
      { paymentId: outcome.paymentId },
      outcome.update,
      {
        whileClaimed: 'hold',
      },
    );
    const { record } = applied;
    await startPolling(deps(request.log as Logger), record.id);
    const merchant = await organizationView(services.orm.em, record.organizationId);
    const payment = pagePaymentOf(record, merchant.name);
    // Not a 303: the customer arrives here at the end of a redirect chain that began with the
    // bank's form post, and browsers hold that whole chain to the bank's CSP form-action (which
    // names us, never the merchant). A page that moves on by itself leaves the chain behind.
    if (payment.returnUrl) return page(reply, 200, onwardPage(payment.returnUrl, payment));
    return page(reply, 200, {
      kind: 'THANK_YOU',
      tone: record.status === 'FAILED' ? 'failure' : record.status === 'COMPLETED' ? 'success' : 'waiting',
      title: 'Thank you',
      lines: [`Your payment is ${record.status.toLowerCase()}. You can close this page.`],
      payment,
    });
  });

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/jwt',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_req, body, done) => done(null, body),
    );
    scope.post('/api/providers/obie/event-notifications', async (request, reply) => {
      const jwt = typeof request.body === 'string' ? request.body.trim() : '';
      let paymentId: string | null;
      try {
        paymentId = await provider.paymentOfNotification(jwt);
      } catch (error) {
        request.log.warn({ err: error }, 'obie notification refused');
        return reply.code(400).send({
          error: {
            code: 'NOTIFICATION_INVALID',
            message:
              'The notification is not valid for this service: its signature, audience, type or age, or it was received already',
          },
        });
      }
      if (paymentId) {
        const paymentDeps = deps(request.log as Logger);
        try {
          const loaded = await loadPayment(paymentDeps.em, { paymentId });
          await refreshPayment(paymentDeps, { paymentId }, loaded, 'quiet');
        } catch (error) {
          // The poller reads it later: a notification is only a pointer.
          if (!(error instanceof AppError))
            request.log.warn({ err: error, paymentId }, 'obie notification read failed');
        }
      }
      return reply.code(202).send();
    });
  });
}

/** A link refused before the payment was read: forged, expired, too many opens, a suspended merchant. */
function linkRefused(error: AppError, sameLink: string): CustomerStatusPage {
  const base = { kind: error.kind, tone: 'problem' as const, lines: [error.message] };
  switch (error.kind) {
    case 'LINK_EXPIRED':
      return { ...base, title: 'This link has expired' };
    case 'RATE_LIMITED':
      // Works again after a short wait: the same link.
      return {
        ...base,
        title: 'Too many attempts',
        lines: [error.message, 'Wait a minute, then try again.'],
        tryAgainUrl: sameLink,
      };
    case 'MERCHANT_SUSPENDED':
      return { ...base, title: 'This payment cannot go ahead' };
    default:
      return { ...base, title: 'This link is not valid' };
  }
}

/** Finished: the outcome, and the way back to the shop. */
const finishedPage = (status: string, payment: PagePayment): CustomerStatusPage => ({
  kind: 'FINISHED',
  tone: status === 'COMPLETED' ? 'success' : 'failure',
  title: `This payment is ${status.toLowerCase()}`,
  lines: ['There is nothing more to do with this link.'],
  payment,
});

/** Authorised already (or not at the bank yet): the link has nothing to do, and says so. */
const notAwaitingPage = (status: string, payment: PagePayment): CustomerStatusPage => ({
  kind: 'NOT_AWAITING',
  tone: 'waiting',
  title: 'This payment is not waiting for you',
  lines: [`Its status is ${status.toLowerCase()}: there is nothing to authorise with this link.`],
  payment,
});

import { AppError, awaitsDecision, isTerminal, merchantReturnUrl, OBIE_PROVIDER } from '@pis/shared';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.ts';
import type { Orm } from '../../db/orm.ts';
import { openCustomerLink } from '../../links/customer-links.ts';
import type { Logger } from '../../logger.ts';
import { applyPaymentEvent } from '../../payments/apply-payment-event.ts';
import { openLink } from '../../payments/customer-pages/open-link.ts';
import { loadPayment } from '../../payments/load-payment.ts';
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
  config: PaymentsDeps['config'] & Pick<Config, 'rateLimits'>;
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

  app.get<{ Params: { token: string } }>('/providers/obie/authorize/:token', async (request, reply) => {
    const log = request.log as Logger;
    let opened: Awaited<ReturnType<typeof openLink>>;
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
        const title =
          error.kind === 'LINK_EXPIRED'
            ? 'This link has expired'
            : error.kind === 'RATE_LIMITED'
              ? 'Too many attempts'
              : error.kind === 'MERCHANT_SUSPENDED'
                ? 'This payment cannot go ahead'
                : 'This link is not valid';
        return page(reply, error.status, title, error.message);
      }
      log.warn({ err: error }, 'obie link could not be opened');
      return page(
        reply,
        503,
        'This page is not available right now',
        'Your payment was not changed. Please try again in a moment.',
      );
    }
    const { record } = opened;
    const status = record.status.toLowerCase();
    if (isTerminal(record.status)) {
      return page(reply, 409, `This payment is ${status}`, 'There is nothing more to do with this link.');
    }
    if (!awaitsDecision(record)) return notAwaiting(reply, status);
    let bankUrl: string | null;
    try {
      bankUrl = await provider.authorizationUrl(record.id, services.clock.now());
    } catch (error) {
      if (error instanceof AppError && error.kind === 'RATE_LIMITED') {
        reply.header('retry-after', '60');
        return page(reply, error.status, 'Too many attempts', error.message);
      }
      log.warn({ err: error, paymentId: record.id }, 'obie authorization request failed');
      return page(
        reply,
        502,
        'The bank could not be reached',
        'Your payment was not changed. Please try this link again in a moment.',
      );
    }
    if (!bankUrl) return notAwaiting(reply, status);
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
      return page(
        reply,
        502,
        'The bank could not be reached',
        'Your payment was not changed. Please go back to the shop and try again in a moment.',
      );
    }
    if (outcome.kind === 'refused') {
      request.log.warn({ reason: outcome.reason }, 'obie callback refused');
      return page(
        reply,
        400,
        'This link cannot be used',
        'This answer from the bank is not valid or was already used. Your payment was not changed.',
      );
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
    const target = merchantReturnUrl(record.returnUrl, record.id, record.status);
    // Not a 303: the customer arrives here at the end of a redirect chain that began with the
    // bank's form post, and browsers hold that whole chain to the bank's CSP form-action (which
    // names us, never the merchant). A page that moves on by itself leaves the chain behind.
    if (target) return onwardPage(reply, target);
    return page(
      reply,
      200,
      'Thank you',
      `Your payment is ${record.status.toLowerCase()}. You can close this page.`,
    );
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

/** Authorised already (or not at the bank yet): the link has nothing to do, and says so. */
const notAwaiting = (reply: FastifyReply, status: string) =>
  page(
    reply,
    409,
    'This payment is not waiting for you',
    `Its status is ${status}: there is nothing to authorise with this link.`,
  );

function page(reply: FastifyReply, status: number, title: string, text: string) {
  const html = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${html(title)}</title></head><body><main><h1>${html(title)}</h1><p>${html(text)}</p></main></body></html>`,
    );
}

/** "Returning to the shop": moves on at once (Refresh header and meta refresh), with a link. */
function onwardPage(reply: FastifyReply, target: string) {
  const html = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('refresh', `0; url=${target}`)
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${html(target)}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Returning to the shop</title></head><body><main><h1>Returning to the shop</h1><p><a href="${html(target)}">Continue to the shop</a></p></main></body></html>`,
    );
}

import { AppError } from '@pis/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Orm } from '../../db/orm.ts';
import { sendFailure } from '../../http/fastify-failure.ts';
import { openCustomerLink } from '../../links/customer-links.ts';
import {
  type CustomerStatusPage,
  onwardPage,
  type PagePayment,
  pagePaymentOf,
  sendCustomerStatusPage,
} from '../../links/customer-status-page.ts';
import type { Logger } from '../../logger.ts';
import { plainClientAddress, rateLimitClient } from '../../rate-limits/client-address.ts';
import { enforceRateLimit } from '../../rate-limits/rate-limits.ts';
import { publicFailure } from '../../trpc/public-failure.ts';
import { type PaymentsDeps, paymentsDeps } from '../payments-deps.ts';
import {
  bankNotification,
  bankProvider,
  completeBankReturn,
  expiredBankLinkPayment,
  type OpenedBankLink,
  openBankLink,
  type PaymentAtBank,
} from '../provider-callbacks.ts';

/**
 * The routes at our origin every real provider shares, outside the merchant API (the domain half
 * is payments/provider-callbacks.ts; the adapter says which payment and what news):
 *
 * - `GET /providers/:code/authorize/:token`: the customer's link (signed, 30 minutes). Opening it
 *   asks the adapter for the bank's page (obie: a fresh authorization request, as the bank keeps
 *   one 60 s only) and sends the browser there (303). Each open is a request of its own; the
 *   first answer back counts. A link that is forged, expired or another provider's, a payment no
 *   longer waiting for the customer, a bank that cannot be reached: a short page, nothing changed.
 * - `GET /providers/:code/callback`: the customer back from the bank. A verified answer is
 *   applied to the payment and the customer goes on to the merchant's redirectUrl with
 *   `paymentId` and `status` (as after the Mock bank). A forged, replayed or unknown answer
 *   changes nothing and shows a short page.
 * - `POST /api/providers/:code/event-notifications`: the bank's push (its raw body), treated as
 *   "read this payment now". 202 when accepted, 400 NOTIFICATION_INVALID when the adapter finds
 *   it not genuine, 404 for a provider without one; past RATE_LIMIT_PAGES refusals from one
 *   address in a window (counted apart from its pages), 429 RATE_LIMITED (accepted ones are never
 *   counted).
 */
/** What the routes need of the app's services (the app passes its own). */
export type ProviderRouteServices = Pick<PaymentsDeps, 'clock' | 'providers' | 'scheduler'> & {
  orm: Orm;
  config: PaymentsDeps['config'] & Pick<Config, 'rateLimits' | 'webDistDir'>;
};

type CodeParams = { code: string };

export async function providerRoutes(
  app: FastifyInstance,
  options: { services: ProviderRouteServices },
): Promise<void> {
  const { services } = options;
  const deps = (log: Logger): PaymentsDeps =>
    paymentsDeps({ em: services.orm.em, clock: services.clock, config: services.config, log, services });
  // The service's own styled pages (links/customer-status-page.ts): what happened, the payment
  // where known, "Try again" where following the same link again can work, and the way back.
  const page = (reply: FastifyReply, status: number, content: CustomerStatusPage) =>
    sendCustomerStatusPage(reply, status, content, { distDir: services.config.webDistDir });
  const shown = ({ record, organization }: PaymentAtBank): PagePayment =>
    pagePaymentOf(record, organization.name);
  /** One request against its client address's `budget` (429 RATE_LIMITED past it). */
  const spendBudget = (
    request: FastifyRequest,
    reply: FastifyReply,
    budget: 'pages' | 'bank-notifications' = 'pages',
  ) =>
    enforceRateLimit(
      services.orm.em.fork(),
      services.config.rateLimits,
      (name, value) => reply.header(name, value),
      budget,
      rateLimitClient(request.ip),
    );
  /** A provider this process cannot take customers to: the link is as good as a forged one. */
  const unknownProvider = (code: string) => {
    try {
      bankProvider(services, code);
      return false;
    } catch {
      return true;
    }
  };

  app.get<{ Params: CodeParams & { token: string } }>(
    '/providers/:code/authorize/:token',
    async (request, reply) => {
      const log = request.log as Logger;
      const { code, token } = request.params;
      let opened: OpenedBankLink;
      // The same link again: what "Try again" follows (a fresh request at the bank each time).
      const sameLink = `/providers/${encodeURIComponent(code)}/authorize/${encodeURIComponent(token)}`;
      try {
        if (unknownProvider(code)) {
          throw new AppError(
            'LINK_INVALID',
            'This payment link is not valid. Ask the merchant for a new one.',
          );
        }
        // Per client address, as every customer page: each open makes a request at the bank.
        await spendBudget(request, reply);
        // A HEAD (a link checker, a mail scanner, a chat's preview) learns whether the link is
        // genuine and current, nothing more: no payment is read, so the bank is not asked (its
        // status read and the authorization request are a GET's, which a browser follows).
        if (request.method === 'HEAD') {
          openCustomerLink(services.config, token, 'bank', services.clock.now());
          return reply.code(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send();
        }
        opened = await openBankLink(deps(log), code, token);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) {
          const refused = linkRefused(error, sameLink);
          if (error.kind === 'LINK_EXPIRED') {
            const expired = await expiredBankLinkPayment(deps(log), code, token);
            refused.payment = expired ? shown(expired) : null;
          }
          return page(reply, error.status, refused);
        }
        log.warn({ err: error, provider: code }, 'bank link could not be opened');
        return page(reply, 503, {
          kind: 'UNAVAILABLE',
          tone: 'problem',
          title: 'This page is not available right now',
          lines: ['Your payment was not changed. Please try again in a moment.'],
          tryAgainUrl: sameLink,
        });
      }
      const payment = shown(opened);
      switch (opened.kind) {
        case 'finished':
          return page(reply, 409, finishedPage(opened.record.status, payment));
        case 'not-awaiting':
          return page(reply, 409, notAwaitingPage(opened.record.status, payment));
        case 'refused': {
          const error = opened.error as AppError;
          // The adapter's count of one payment's opens (RATE_LIMITED): the bank would be asked too often.
          if (error.kind === 'RATE_LIMITED') reply.header('retry-after', '60');
          return page(reply, error.status, { ...linkRefused(error, sameLink), payment });
        }
        case 'unreachable':
          return page(reply, 502, {
            kind: 'BANK_UNREACHABLE',
            tone: 'problem',
            title: 'The bank could not be reached',
            lines: ['Your payment was not changed. Please try again in a moment.'],
            payment,
            tryAgainUrl: sameLink,
          });
      }
      return reply
        .code(303)
        .header('location', opened.bankUrl)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send();
    },
  );

  app.get<{ Params: CodeParams }>('/providers/:code/callback', async (request, reply) => {
    const { code } = request.params;
    const log = request.log as Logger;
    const url = new URL(request.url, services.config.publicBaseUrl);
    // A HEAD (a link checker, a preview) must not use up the bank's answer: nothing is done.
    if (request.method === 'HEAD') {
      return reply.code(200).header('cache-control', 'no-store').type('text/html; charset=utf-8').send();
    }
    let returned: Awaited<ReturnType<typeof completeBankReturn>>;
    try {
      // Per client address, as every customer page: each return may read the bank.
      await spendBudget(request, reply);
      if (unknownProvider(code)) returned = { kind: 'refused', reason: 'no such provider' };
      else returned = await completeBankReturn(deps(log), code, url, plainClientAddress(request.ip));
    } catch (error) {
      if (error instanceof AppError && error.kind === 'RATE_LIMITED') {
        return page(
          reply,
          error.status,
          linkRefused(error, `/providers/${encodeURIComponent(code)}/callback`),
        );
      }
      log.warn({ err: error, provider: code }, 'bank return failed');
      // The bank's answer is used up either way: following it again cannot work.
      return page(reply, 502, {
        kind: 'BANK_UNREACHABLE',
        tone: 'problem',
        title: 'The bank could not be reached',
        lines: ['Your payment was not changed. Please go back to the shop and try again in a moment.'],
      });
    }
    if (returned.kind === 'refused') {
      log.warn({ reason: returned.reason, provider: code }, 'bank return refused');
      return page(reply, 400, {
        kind: 'CALLBACK_REFUSED',
        tone: 'problem',
        title: 'This link cannot be used',
        lines: ['This answer from the bank is not valid or was already used. Your payment was not changed.'],
      });
    }
    const { record } = returned;
    const payment = shown(returned);
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

  /**
   * The 429 once the address's refused notifications pass their budget; undefined while within
   * it, or when they could not be counted (the refusal is then answered and logged as always).
   */
  const refusalOverBudget = (request: FastifyRequest, reply: FastifyReply) =>
    spendBudget(request, reply, 'bank-notifications').then(
      () => undefined,
      (error: unknown) => (error instanceof AppError && error.kind === 'RATE_LIMITED' ? error : undefined),
    );

  await app.register(async (scope) => {
    // The bank's body as it came (obie: a signed JWT as application/jwt): the adapter verifies it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) =>
      done(null, body),
    );
    scope.post<{ Params: CodeParams }>('/api/providers/:code/event-notifications', async (request, reply) => {
      const { code } = request.params;
      const log = request.log as Logger;
      try {
        await bankNotification(deps(log), code, {
          body: typeof request.body === 'string' ? request.body.trim() : '',
          contentType: request.headers['content-type'],
        });
      } catch (error) {
        // Anyone can post here: refusals (never a genuine notification) are counted per sending
        // address, so a flood of garbage is answered 429 and leaves no log line.
        const limited = await refusalOverBudget(request, reply);
        if (limited) return sendFailure(reply, publicFailure(limited));
        if (!(error instanceof AppError))
          log.warn({ err: error, provider: code }, 'bank notification refused');
        return sendFailure(
          reply,
          publicFailure(
            error instanceof AppError
              ? error
              : new AppError(
                  'NOTIFICATION_INVALID',
                  'The notification is not valid for this service: its signature, audience, type or age, or it was received already',
                ),
          ),
        );
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

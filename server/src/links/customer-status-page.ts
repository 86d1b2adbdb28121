import { readFileSync } from 'node:fs';
import path from 'node:path';
import { merchantReturnUrl, type PaymentRecord } from '@pis/shared';
import escapeHtml from 'escape-html';
import type { FastifyReply } from 'fastify';

/**
 * The service's own customer pages that the server answers itself (no SPA): a provider's link
 * that cannot go on, a finished payment, a bank that cannot be reached, an answer from a bank
 * that is not valid. They are the hosted picker's pages in HTML: the same frame and the same
 * stylesheet (the web build's), no script, so they work where the SPA is not involved (the end
 * of a bank's redirect chain) and stay within the pages' CSP (`style-src 'self'`).
 *
 * Nothing here knows a provider: a route says what happened and what it knows of the payment.
 */

/** What the customer is told of the payment, when the page knows it. */
export interface PagePayment {
  merchantName: string;
  amount: { value: string; currency: string };
  payeeName: string;
  /** The shop's return URL (with `paymentId` and `status`, as after a decision), when it gave one. */
  returnUrl: string | null;
}

export interface CustomerStatusPage {
  title: string;
  /** Paragraphs under the title. */
  lines: string[];
  tone: 'problem' | 'success' | 'failure' | 'waiting';
  payment?: PagePayment | null;
  /** A link that can work when followed again (the same customer link): shown as "Try again". */
  tryAgainUrl?: string | null;
  /** Moves on by itself to this address (the shop), with a "Continue to the shop" link. */
  continueUrl?: string | null;
  /** Names the case for tests and support (`data-page-kind`), never shown. */
  kind: string;
}

const ICONS: Record<CustomerStatusPage['tone'], string> = {
  problem: '!',
  success: '✓',
  failure: '✕',
  waiting: '…',
};

/** As the pages show it (web/src/format/money.ts): the decimal string, never a float. */
export const pageAmount = (value: string, currency: string): string => {
  const decimals = value.split('.')[1]?.length ?? 0;
  try {
    const digits =
      new Intl.NumberFormat('en-GB', { style: 'currency', currency }).resolvedOptions()
        .maximumFractionDigits ?? 2;
    return new Intl.NumberFormat('en-GB', {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: Math.max(digits, decimals),
    }).format(value as Intl.StringNumericLiteral);
  } catch {
    return `${value} ${currency}`;
  }
};

/** The web build's stylesheet, read from its index.html once; none without a build (plain HTML still reads). */
const stylesheets = new Map<string, string | null>();
function stylesheetOf(distDir: string): string | null {
  if (!stylesheets.has(distDir)) {
    let href: string | null = null;
    try {
      const index = readFileSync(path.join(distDir, 'index.html'), 'utf8');
      href = /<link[^>]+rel="stylesheet"[^>]+href="(\/assets\/[^"]+\.css)"/.exec(index)?.[1] ?? null;
    } catch {
      href = null;
    }
    stylesheets.set(distDir, href);
  }
  return stylesheets.get(distDir) ?? null;
}

/** The page's HTML: the hosted pages' frame (brand bar, one card, footer). */
export function customerStatusHtml(page: CustomerStatusPage, options: { distDir: string }): string {
  const stylesheet = stylesheetOf(options.distDir);
  const { payment } = page;
  const parts: string[] = [
    `<span class="notice__icon" aria-hidden="true">${ICONS[page.tone]}</span>`,
    `<h1 class="heading">${escapeHtml(page.title)}</h1>`,
    ...page.lines.map((line) => `<p>${escapeHtml(line)}</p>`),
  ];
  if (payment) {
    parts.push(
      `<p class="muted" data-testid="page-payment">${escapeHtml(pageAmount(payment.amount.value, payment.amount.currency))} to ${escapeHtml(payment.payeeName)}</p>`,
    );
  }
  const actions: string[] = [];
  if (page.continueUrl) {
    actions.push(
      `<a class="button button--primary" href="${escapeHtml(page.continueUrl)}">Continue to the shop</a>`,
    );
  }
  if (page.tryAgainUrl) {
    actions.push(`<a class="button button--primary" href="${escapeHtml(page.tryAgainUrl)}">Try again</a>`);
  }
  if (payment?.returnUrl) {
    const to = payment.merchantName ? `Return to ${payment.merchantName}` : 'Return to the shop';
    const primary = actions.length === 0 ? ' button--primary' : '';
    actions.push(`<a class="button${primary}" href="${escapeHtml(payment.returnUrl)}">${escapeHtml(to)}</a>`);
  } else if (!page.continueUrl) {
    parts.push(
      `<p>${payment?.merchantName ? `Go back to ${escapeHtml(payment.merchantName)}’s website` : 'Go back to the shop’s website'} to start again or to see your order.</p>`,
    );
  }
  if (actions.length > 0) parts.push(`<p class="notice__actions">${actions.join(' ')}</p>`);

  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light"><meta name="referrer" content="no-referrer">',
    '<meta name="robots" content="noindex, nofollow"><link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    page.continueUrl ? `<meta http-equiv="refresh" content="0; url=${escapeHtml(page.continueUrl)}">` : '',
    stylesheet ? `<link rel="stylesheet" href="${escapeHtml(stylesheet)}">` : '',
    `<title>${escapeHtml(page.title)}</title></head><body>`,
    '<div class="shell shell--hosted">',
    `<header class="topbar"><span class="topbar__brand">${escapeHtml(payment?.merchantName || 'Secure payment')}</span></header>`,
    '<main class="page"><div class="card">',
    `<div class="notice notice--${page.tone}" data-page-kind="${escapeHtml(page.kind)}">`,
    ...parts,
    '</div></div></main>',
    '<footer class="footer">Secure connection · your bank details are never shared with the merchant</footer>',
    '</div></body></html>',
  ].join('');
}

/** Sends the page with its status: never cached (it names a payment), never a search result. */
export function sendCustomerStatusPage(
  reply: FastifyReply,
  status: number,
  page: CustomerStatusPage,
  options: { distDir: string },
) {
  if (page.continueUrl) reply.header('refresh', `0; url=${page.continueUrl}`);
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex, nofollow')
    .send(customerStatusHtml(page, options));
}

/**
 * "Returning to the shop": moves on at once (Refresh header and meta refresh, no script), with a
 * link, in the same frame. For where a 303 cannot be (the end of a bank's form-post chain).
 */
export const onwardPage = (target: string, payment: PagePayment | null): CustomerStatusPage => ({
  kind: 'returning',
  tone: 'waiting',
  title: payment?.merchantName ? `Returning to ${payment.merchantName}` : 'Returning to the shop',
  lines: [],
  payment: payment ? { ...payment, returnUrl: null } : null,
  continueUrl: target,
});

/** What the page shows of a payment it has loaded: its merchant, amount, payee and the way back. */
export const pagePaymentOf = (payment: PaymentRecord, merchantName: string): PagePayment => ({
  merchantName,
  amount: payment.amount,
  payeeName: payment.toAccount.accountName,
  returnUrl: merchantReturnUrl(payment.returnUrl, payment.id, payment.status),
});

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { customerStatusHtml } from '../../src/links/customer-status-page.ts';
import { post } from '../payments/payment-fixtures.ts';
import { bankFaults, CALLBACK, obieMerchant, obieWithSandboxBank, openObieLink } from './obie-test-setup.ts';

/**
 * The service's own customer pages for a real bank (issue 34 item 4): the hosted pages' frame and
 * stylesheet, the merchant's name and amount where the page knows the payment, "Try again" where
 * the same link can work, and the way back to the shop's return URL.
 */
// A web build of one stylesheet: the pages link the build's CSS, as the SPA's index.html does.
const distDir = mkdtempSync(path.join(tmpdir(), 'pis-pages-dist-'));
mkdirSync(path.join(distDir, 'assets'));
writeFileSync(
  path.join(distDir, 'index.html'),
  '<!doctype html><html><head><link rel="stylesheet" crossorigin href="/assets/index-Test1234.css"></head></html>',
);

const { bank, app, factories, clock } = await obieWithSandboxBank({
  stepMs: 200,
  config: { webDistDir: distDir },
});
const { merchant, obiePayment } = await obieMerchant({ app, factories });
const MERCHANT = 'Test Merchant';

const open = (link: string | null | undefined) =>
  app.inject({ method: 'GET', url: new URL(link ?? '').pathname, headers: { accept: 'text/html' } });

/** The frame every customer page has, with the build's stylesheet; never cached, never a redirect. */
function expectStyledPage(response: Awaited<ReturnType<typeof open>>, status: number, kind: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toContain('text/html');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toContain('<link rel="stylesheet" href="/assets/index-Test1234.css">');
  expect(response.body).toContain('<div class="shell shell--hosted">');
  expect(response.body).toContain(`data-page-kind="${kind}"`);
  expect(response.body).not.toMatch(/<script/i);
  return response.body;
}

const tryAgainOf = (body: string) => /<a class="button[^"]*" href="([^"]+)">Try again<\/a>/.exec(body)?.[1];
const returnOf = (body: string) =>
  /<a class="button[^"]*" href="([^"]+)">Return to [^<]+<\/a>/.exec(body)?.[1]?.replaceAll('&amp;', '&');

describe('real-bank customer pages in the hosted pages’ style', () => {
  test('the bank cannot be reached: the merchant, the amount, "Try again" (the same link) and the way back', async () => {
    const payment = await obiePayment();
    await bankFaults(bank.dataDir, { outage: true });
    try {
      const body = expectStyledPage(await open(payment.redirectUrl), 502, 'BANK_UNREACHABLE');
      expect(body).toContain('The bank could not be reached');
      expect(body).toContain(`<span class="topbar__brand">${MERCHANT}</span>`);
      expect(body).toContain('£10.50 to Acme Ltd');
      expect(tryAgainOf(body)).toBe(new URL(payment.redirectUrl ?? '').pathname);
      const back = new URL(returnOf(body) ?? '');
      expect(back.origin + back.pathname).toBe('https://shop.example/return');
      expect(back.searchParams.get('paymentId')).toBe(payment.paymentId);
      expect(back.searchParams.get('status')).toBe('AUTHORIZING');
    } finally {
      await bankFaults(bank.dataDir, {});
    }
    // "Try again" once the bank is back: the bank's page.
    await openObieLink(app, payment.redirectUrl);
  });

  test('an expired link: which payment it was for and the way back, no "Try again"', async () => {
    const payment = await obiePayment();
    clock.advance(30 * 60_000);
    const body = expectStyledPage(await open(payment.redirectUrl), 410, 'LINK_EXPIRED');
    expect(body).toContain('This link has expired');
    expect(body).toContain('£10.50 to Acme Ltd');
    expect(tryAgainOf(body)).toBeUndefined();
    expect(new URL(returnOf(body) ?? '').searchParams.get('paymentId')).toBe(payment.paymentId);
    // A day after it expired (an old mail, a browser's history), it names nothing of its payment.
    clock.advance(24 * 60 * 60_000);
    const old = expectStyledPage(await open(payment.redirectUrl), 410, 'LINK_EXPIRED');
    expect(old).toContain('This link has expired');
    expect(old).not.toContain('Acme Ltd');
    expect(returnOf(old)).toBeUndefined();
  });

  test('a forged link: no payment named, no "Try again", the service’s own name', async () => {
    const payment = await obiePayment();
    const link = payment.redirectUrl ?? '';
    const forged = `${link.slice(0, -2)}${link.endsWith('AA') ? 'BB' : 'AA'}`;
    const body = expectStyledPage(await open(forged), 400, 'LINK_INVALID');
    expect(body).toContain('This link is not valid');
    expect(body).toContain('<span class="topbar__brand">Secure payment</span>');
    expect(body).not.toContain('Acme Ltd');
    expect(tryAgainOf(body)).toBeUndefined();
    expect(body).toContain('Go back to the shop’s website');
  });

  test('a finished payment: its outcome and the way back', async () => {
    const payment = await obiePayment();
    expect((await post(app, merchant.headers, `/api/payments/${payment.paymentId}/cancel`)).statusCode).toBe(
      200,
    );
    const body = expectStyledPage(await open(payment.redirectUrl), 409, 'FINISHED');
    expect(body).toContain('This payment is cancelled');
    expect(body).toContain(`Return to ${MERCHANT}`);
    expect(new URL(returnOf(body) ?? '').searchParams.get('status')).toBe('CANCELLED');
  });

  test('a callback with garbage: a styled 400 page, nothing named', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/providers/obie/callback?response=not.a.jwt&state=%3Cscript%3E',
    });
    const body = expectStyledPage(response, 400, 'CALLBACK_REFUSED');
    expect(body).toContain('This link cannot be used');
    expect(body).not.toContain('<script>');
  });

  test('back from the bank: "Returning to <merchant>" moves on to the shop by itself', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
      action: 'approve',
    });
    const url = new URL(redirect);
    const response = await app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    const body = expectStyledPage(response, 200, 'returning');
    expect(body).toContain(`Returning to ${MERCHANT}`);
    const target = /^0; url=(.+)$/.exec(String(response.headers.refresh))?.[1] ?? '';
    expect(new URL(target).searchParams.get('paymentId')).toBe(payment.paymentId);
    expect(body).toContain('Continue to the shop');
  });
});

describe('the page renderer', () => {
  test('escapes everything it is given, and works without a web build', () => {
    const html = customerStatusHtml(
      {
        kind: 'x"y',
        tone: 'problem',
        title: '<b>Title</b>',
        lines: ['a & b'],
        payment: {
          merchantName: '<img src=x onerror=alert(1)>',
          amount: { value: '1234.5', currency: 'EUR' },
          payeeName: '"Payee"',
          returnUrl: 'https://shop.example/r?a=1&b="2"',
        },
        tryAgainUrl: '/again?x="y"',
      },
      { distDir: '/nonexistent' },
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('rel="stylesheet"');
    expect(html).toContain('&lt;b&gt;Title&lt;/b&gt;');
    expect(html).toContain('€1,234.50 to &quot;Payee&quot;');
    expect(html).toContain('href="https://shop.example/r?a=1&amp;b=&quot;2&quot;"');
  });
});

import { describe, expect, test } from 'vitest';
import { redactedUrl } from '../../src/logger.ts';
import { MASK, maskedBody, maskText } from '../../src/observability/masking.ts';

/**
 * The `obie` customer link (/providers/obie/authorize/<token>) is a bearer credential like the
 * payment page's and the Mock bank's: neither the log lines nor the stored request log keep it.
 */
const TOKEN = 'a1B2c3.eyJwIjoicGF5XzEiLCJ1Ijoib2JpZSIsImUiOjE3NjR9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

describe('the obie customer link is never logged in clear', () => {
  test('request log bodies: in a created payment, inside another URL (encoded), in free text', () => {
    const link = `https://pay.example.com/providers/obie/authorize/${TOKEN}`;
    const body = maskedBody(JSON.stringify({ data: { paymentId: 'pay_1', redirectUrl: link } })) ?? '';
    expect(body).not.toContain(TOKEN);
    expect(body).toContain(`/providers/obie/authorize/${MASK}`);
    const encoded = maskText(`https://shop.example/?next=${encodeURIComponent(link)}`);
    expect(encoded).not.toContain(TOKEN);
    expect(encoded).toContain(`%2Fobie%2Fauthorize%2F${MASK}`);
    expect(maskText(`see /providers/obie/authorize/${TOKEN} please`)).toBe(
      `see /providers/obie/authorize/${MASK} please`,
    );
    // The callback and the notification routes carry no link token: left as they are.
    expect(maskText('/providers/obie/callback?response=x')).toBe('/providers/obie/callback?response=x');
  });

  test('request log bodies: a link after a line break and another link with an encoded slash', () => {
    // JSON writes the line break as `\n`: over the body's text the first token would run on into
    // the second link and leave its token whole (review, 2026-11-27).
    for (const [page, encoded] of [
      ['pay', '%2Fpay/'],
      ['mock-bank', '%2Fmock-bank/'],
      ['providers/obie/authorize', '%2Fobie/authorize/'],
    ]) {
      for (const space of ['\n', '\t', '\r', '\f', '\u000b']) {
        const text = `see https://x/${page}/abc${space}next=${encoded}SECRETTOKEN123`;
        const body = maskedBody(JSON.stringify({ description: text })) ?? '';
        expect(body, JSON.stringify(text)).not.toContain('SECRETTOKEN123');
      }
    }
  });

  test('log lines: the request URL', () => {
    expect(redactedUrl(`/providers/obie/authorize/${TOKEN}`)).toBe('/providers/obie/authorize/[redacted]');
    expect(redactedUrl(`//Providers/Obie/Authorize/${TOKEN}?x=1`)).toBe(
      '//Providers/Obie/Authorize/[redacted]?x=1',
    );
    expect(redactedUrl('/providers/obie/callback')).toBe('/providers/obie/callback');
  });

  test('every provider’s link, and a return’s state, are kept out too (nextgenpsd2)', () => {
    const link = `https://pay.example.com/providers/nextgenpsd2/authorize/${TOKEN}`;
    const body = maskedBody(JSON.stringify({ data: { redirectUrl: link } })) ?? '';
    expect(body).not.toContain(TOKEN);
    expect(body).toContain(`/providers/nextgenpsd2/authorize/${MASK}`);
    expect(redactedUrl(`/providers/nextgenpsd2/authorize/${TOKEN}`)).toBe(
      '/providers/nextgenpsd2/authorize/[redacted]',
    );
    expect(redactedUrl('/providers/nextgenpsd2/callback?state=0123456789abcdef&nok=1')).toBe(
      '/providers/nextgenpsd2/callback?state=[redacted]&nok=1',
    );
  });
});

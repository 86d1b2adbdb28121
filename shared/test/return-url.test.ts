import { describe, expect, test } from 'vitest';
import { checkReturnUrl, ReturnOrigin } from '../src/create-rules.ts';
import { AppError } from '../src/errors.ts';
import { RedirectUrl } from '../src/primitives.ts';

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details;
  }
  return undefined;
};

describe('return URLs', () => {
  test('RedirectUrl refuses user information, keeps plain http', () => {
    expect(RedirectUrl.safeParse('https://bank.example@evil.example/').success).toBe(false);
    expect(RedirectUrl.safeParse('https://u:p@shop.example/').success).toBe(false);
    expect(RedirectUrl.safeParse('http://shop.example/return?order=1').success).toBe(true);
  });

  test("checkReturnUrl: not the service's own origin; one of the allowed origins when any are set", () => {
    const context = { serviceBaseUrl: 'https://pay.example', allowedReturnOrigins: [] };
    expect(refusal(() => checkReturnUrl('https://pay.example/mock-bank/x', context))).toEqual([
      {
        field: 'redirectUrl',
        message: "must point at the merchant's site, not at this payment service's pages",
      },
    ]);
    expect(refusal(() => checkReturnUrl('https://shop.example/', context))).toBeUndefined();
    expect(refusal(() => checkReturnUrl(undefined, context))).toBeUndefined();
    const restricted = { ...context, allowedReturnOrigins: ['https://shop.example'] };
    expect(refusal(() => checkReturnUrl('https://shop.example/back?x=1', restricted))).toBeUndefined();
    expect(refusal(() => checkReturnUrl('https://other.example/', restricted))?.[0]?.field).toBe(
      'redirectUrl',
    );
  });

  test("checkReturnUrl: the service's host by another spelling or over plain http is still its pages", () => {
    const context = { serviceBaseUrl: 'https://pay.example', allowedReturnOrigins: [] };
    // http://pay.example/... is upgraded to https (HSTS, or the usual redirect) and lands on our
    // pages; pay.example. (the root's dot) is the same host under another origin string.
    for (const url of [
      'http://pay.example/mock-bank/x',
      'https://pay.example./pay/x',
      'http://PAY.example.:80/pay/x',
      'https://pay.example:443/',
    ]) {
      expect(refusal(() => checkReturnUrl(url, context))?.[0]?.field, url).toBe('redirectUrl');
    }
    // Another port of the host is another site (a shop beside the service in development).
    const local = { serviceBaseUrl: 'http://localhost:3000', allowedReturnOrigins: [] };
    expect(refusal(() => checkReturnUrl('http://localhost:3001/done', local))).toBeUndefined();
    expect(refusal(() => checkReturnUrl('https://localhost:3000/done', local))?.[0]?.field).toBe(
      'redirectUrl',
    );
  });

  test("checkReturnUrl compares parsed, normalized origins: every spelling of the service's own is refused", () => {
    const port = 3300;
    for (const serviceBaseUrl of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const context = { serviceBaseUrl, allowedReturnOrigins: [] };
      for (const url of [
        `http://2130706433:${port}/pay/x`,
        `http://127.1:${port}/pay/x`,
        `http://0x7f.0.0.1:${port}/`,
        `http://127.0.0.1.:${port}/`,
        `http://LOCALHOST:${port}/`,
        `http://localhost.:${port}/`,
        `http://app.localhost:${port}/`,
        `http://[::1]:${port}/`,
        `http://[::ffff:127.0.0.1]:${port}/`,
        `http://0.0.0.0:${port}/`,
        `https://localhost:${port}/`,
      ]) {
        expect(refusal(() => checkReturnUrl(url, context))?.[0]?.field, `${url} vs ${serviceBaseUrl}`).toBe(
          'redirectUrl',
        );
      }
      expect(refusal(() => checkReturnUrl(`http://127.0.0.1:${port + 1}/done`, context))).toBeUndefined();
      expect(refusal(() => checkReturnUrl('http://shop.example:3300/done', context))).toBeUndefined();
    }
    const https = { serviceBaseUrl: 'https://Pay.Example:443/', allowedReturnOrigins: [] };
    for (const url of ['HTTPS://PAY.EXAMPLE./x', 'http://pay.example:80/x']) {
      expect(refusal(() => checkReturnUrl(url, https))?.[0]?.field, url).toBe('redirectUrl');
    }
    expect(refusal(() => checkReturnUrl('https://pay.example:8443/x', https))).toBeUndefined();
    expect(refusal(() => checkReturnUrl('https://shop.pay.example/x', https))).toBeUndefined();
  });

  test('ReturnOrigin: scheme, host and port only, spelled as URL.origin', () => {
    expect(ReturnOrigin.parse('https://Shop.Example/')).toBe('https://shop.example');
    expect(ReturnOrigin.parse('http://localhost:8080')).toBe('http://localhost:8080');
    for (const bad of [
      'https://shop.example/path',
      'shop.example',
      'ftp://shop.example',
      'https://u@shop.example',
      '',
    ]) {
      expect(ReturnOrigin.safeParse(bad).success, bad).toBe(false);
    }
  });
});

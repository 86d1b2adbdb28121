import { AppError } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { customerLink, openCustomerLink } from '../../src/links/customer-links.ts';
import { linkKeyId, signLinkToken, verifyLinkToken } from '../../src/links/link-token.ts';

const secret = 'test-link-signing-secret-0123456789abcdef';
const config = { publicBaseUrl: 'https://pay.example', linkSigningSecret: secret };
const now = new Date('2026-01-15T10:00:00.000Z');

const failure = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a failure');
};

describe('customer links', () => {
  test('hosted links open /pay/<token> and last 1 hour; Mock bank links /mock-bank/<token> and 30 minutes', () => {
    const hosted = customerLink(config, 'hosted', 'pay_1', now);
    expect(hosted.url).toMatch(/^https:\/\/pay\.example\/pay\/[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(hosted.expiresAt.toISOString()).toBe('2026-01-15T11:00:00.000Z');
    const bank = customerLink(config, 'mock-bank', 'pay_1', now);
    expect(bank.url).toMatch(/^https:\/\/pay\.example\/mock-bank\/[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(bank.expiresAt.toISOString()).toBe('2026-01-15T10:30:00.000Z');

    const token = bank.url.split('/').at(-1) as string;
    expect(verifyLinkToken(secret, token, 'mock-bank', new Date(now.getTime() + 29 * 60_000))).toEqual({
      paymentId: 'pay_1',
      purpose: 'mock-bank',
      expiresAt: bank.expiresAt,
    });
  });

  test('an expired link is LINK_EXPIRED and says how long such links last', () => {
    const hosted = signLinkToken(secret, { paymentId: 'pay_1', purpose: 'hosted', expiresAt: now });
    const hostedError = failure(() => verifyLinkToken(secret, hosted, 'hosted', now));
    expect(hostedError.kind).toBe('LINK_EXPIRED');
    expect(hostedError.status).toBe(410);
    expect(hostedError.message).toMatch(/1 hour/);
    const bank = signLinkToken(secret, { paymentId: 'pay_1', purpose: 'mock-bank', expiresAt: now });
    expect(failure(() => verifyLinkToken(secret, bank, 'mock-bank', now)).message).toMatch(/30 minutes/);
  });

  test('tampered, truncated, foreign or misdirected tokens are LINK_INVALID', () => {
    const expiresAt = new Date(now.getTime() + 60_000);
    const token = signLinkToken(secret, { paymentId: 'pay_1', purpose: 'hosted', expiresAt });
    const [kid, payload, mac] = token.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ p: 'pay_2', u: 'hosted', e: 9_999_999_999 })).toString(
      'base64url',
    );
    const flipped = `${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.at(-1)}`;
    const cases = [
      `${kid}.${forgedPayload}.${mac}`, // another payment, same MAC
      `${kid}.${payload}.${flipped}`, // MAC altered
      `${kid}.${payload}.${mac.slice(0, 10)}`, // MAC truncated
      `${kid}.${payload}`, // no MAC
      `${payload}.${mac}`, // no key id
      `${kid}.${payload}.${mac}.x`, // extra part
      `xxxxxxxx.${payload}.${mac}`, // unknown key id
      '',
      'not a token',
      signLinkToken('another-secret-another-secret-12345', {
        paymentId: 'pay_1',
        purpose: 'hosted',
        expiresAt,
      }),
      `${kid}.${Buffer.from('not json').toString('base64url')}.${mac}`,
    ];
    for (const candidate of cases) {
      const error = failure(() => verifyLinkToken(secret, candidate, 'hosted', now));
      expect(error.kind, candidate).toBe('LINK_INVALID');
      expect(error.status).toBe(400);
    }
    // A genuine hosted link does not open the Mock bank page, and vice versa.
    expect(failure(() => verifyLinkToken(secret, token, 'mock-bank', now)).kind).toBe('LINK_INVALID');
  });

  test('a forged payload signed with the right secret shape but wrong key never verifies, even when expired', () => {
    // Signature is checked before expiry: an attacker cannot learn whether an old token was genuine.
    const old = signLinkToken('x'.repeat(40), {
      paymentId: 'pay_1',
      purpose: 'hosted',
      expiresAt: new Date(0),
    });
    expect(failure(() => verifyLinkToken(secret, old, 'hosted', now)).kind).toBe('LINK_INVALID');
  });

  test('only the canonical spelling verifies: padding, percent signs and spare bits are refused', () => {
    const expiresAt = new Date(now.getTime() + 60_000);
    const token = signLinkToken(secret, { paymentId: 'pay_1', purpose: 'hosted', expiresAt });
    expect(verifyLinkToken(secret, token, 'hosted', now).paymentId).toBe('pay_1');
    const [kid, payload, mac] = token.split('.') as [string, string, string];
    // A 32-byte MAC is 43 base64url characters: the last one carries 2 spare bits.
    const last = mac.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = alphabet[alphabet.indexOf(last) ^ 1] as string;
    expect(Buffer.from(`${mac.slice(0, -1)}${sameBytes}`, 'base64url')).toEqual(
      Buffer.from(mac, 'base64url'),
    );
    for (const candidate of [
      `${token}==`,
      `${token}%%`,
      `${token}=`,
      `${kid}.${payload}==.${mac}`,
      `${kid}.${payload}.${mac.slice(0, -1)}${sameBytes}`,
      `${kid}.${payload}.${mac.slice(0, 20)} ${mac.slice(20)}`,
      `${kid}.${payload}.${mac.slice(0, 20)}+${mac.slice(21)}`,
    ]) {
      expect(failure(() => verifyLinkToken(secret, candidate, 'hosted', now)).kind, candidate).toBe(
        'LINK_INVALID',
      );
    }
  });

  test('rotation: links signed with the previous secret verify while it is configured, then stop', () => {
    const previous = 'previous-link-signing-secret-0123456789';
    const expiresAt = new Date(now.getTime() + 60_000);
    const old = signLinkToken(previous, { paymentId: 'pay_1', purpose: 'hosted', expiresAt });
    const rotated = {
      publicBaseUrl: 'https://pay.example',
      linkSigningSecret: secret,
      previousLinkSigningSecret: previous,
    };
    expect(openCustomerLink(rotated, old, 'hosted', now).paymentId).toBe('pay_1');
    // New links are signed with the current secret and name it.
    const fresh = customerLink(rotated, 'hosted', 'pay_2', now).url.split('/').at(-1) as string;
    expect(fresh.split('.')[0]).toBe(linkKeyId(secret));
    expect(openCustomerLink(rotated, fresh, 'hosted', now).paymentId).toBe('pay_2');
    expect(failure(() => verifyLinkToken(previous, fresh, 'hosted', now)).kind).toBe('LINK_INVALID');
    // Once the previous secret is retired, its links are invalid.
    expect(failure(() => openCustomerLink(config, old, 'hosted', now)).kind).toBe('LINK_INVALID');
  });

  test('a derived link never outlives the link it came from, and still lasts at most 30 minutes', () => {
    const parentExpiry = new Date(now.getTime() + 60_000);
    expect(customerLink(config, 'mock-bank', 'pay_1', now, parentExpiry).expiresAt).toEqual(parentExpiry);
    const later = new Date(now.getTime() + 3 * 60 * 60_000);
    expect(customerLink(config, 'mock-bank', 'pay_1', now, later).expiresAt.toISOString()).toBe(
      '2026-01-15T10:30:00.000Z',
    );
  });
});

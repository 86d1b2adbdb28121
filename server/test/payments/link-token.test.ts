import { AppError } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { customerLink } from '../../src/links/customer-links.ts';
import { signLinkToken, verifyLinkToken } from '../../src/links/link-token.ts';

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
    expect(hosted.url).toMatch(/^https:\/\/pay\.example\/pay\/[\w-]+\.[\w-]+$/);
    expect(hosted.expiresAt.toISOString()).toBe('2026-01-15T11:00:00.000Z');
    const bank = customerLink(config, 'mock-bank', 'pay_1', now);
    expect(bank.url).toMatch(/^https:\/\/pay\.example\/mock-bank\/[\w-]+\.[\w-]+$/);
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
    const [payload, mac] = token.split('.') as [string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ p: 'pay_2', u: 'hosted', e: 9_999_999_999 })).toString(
      'base64url',
    );
    const flipped = `${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.at(-1)}`;
    const cases = [
      `${forgedPayload}.${mac}`, // another payment, same MAC
      `${payload}.${flipped}`, // MAC altered
      `${payload}.${mac.slice(0, 10)}`, // MAC truncated
      payload, // no MAC
      `${payload}.${mac}.x`, // extra part
      '',
      'not a token',
      signLinkToken('another-secret-another-secret-12345', {
        paymentId: 'pay_1',
        purpose: 'hosted',
        expiresAt,
      }),
      `${Buffer.from('not json').toString('base64url')}.${mac}`,
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
});

import { describe, expect, test } from 'vitest';
import { customerLink } from '../../src/links/customer-links.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  MINUTE,
  paymentBody,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcMutation,
  trpcQuery,
} from './payment-fixtures.ts';

/**
 * Customer links through the pages: bounded by the link that made them (issue 13, item 6),
 * one spelling per token (issue 11, item 6), and a secret rotation that keeps live links
 * working (issue 11, item 8).
 */
const PREVIOUS_SECRET = 'previous-link-signing-secret-0123456789abcdef';
const { app, factories, clock, config } = await createTestApp({
  config: { previousLinkSigningSecret: PREVIOUS_SECRET },
});
const { headers } = await factories.createMerchant();

const hostedToken = async () =>
  tokenOf((await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }))).redirectUrl);
const session = (token: string) => trpcQuery(app, 'pages.hostedSession', { token });
const expiryOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')).e * 1000;

describe('a derived link never outlives the link that made it', () => {
  test('a bank chosen on a 59-minute-old hosted link: the Mock bank link ends with the hosted one', async () => {
    const token = await hostedToken();
    const hostedExpiry = expiryOf(token);
    clock.advance(59 * MINUTE);
    const { redirectUrl } = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'mock-gb-albion' }),
    );
    const bankToken = tokenOf(redirectUrl);
    expect(expiryOf(bankToken)).toBe(hostedExpiry);
    // The reload of the hosted page hands out the same bound.
    const next = trpcData<{ next: { mockBankUrl: string } }>(await session(token)).next;
    expect(expiryOf(tokenOf(next.mockBankUrl))).toBe(hostedExpiry);
    trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: bankToken }));
    clock.advance(MINUTE);
    expect(trpcFailure(await trpcQuery(app, 'pages.mockBankSession', { token: bankToken }), 410).kind).toBe(
      'LINK_EXPIRED',
    );
  });

  test('a fresh hosted link still gives a Mock bank link of at most 30 minutes', async () => {
    const token = await hostedToken();
    const { redirectUrl } = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'mock-gb-albion' }),
    );
    expect(expiryOf(tokenOf(redirectUrl))).toBe(
      Math.floor(clock.now().getTime() / 1000) * 1000 + 30 * MINUTE,
    );
  });
});

describe('tokens', () => {
  test('only the canonical spelling opens a page: TOKEN== and TOKEN%% are LINK_INVALID', async () => {
    const token = await hostedToken();
    trpcData(await session(token));
    for (const variant of [`${token}==`, `${token}%%`, `${token}=`, ` ${token}`]) {
      expect(trpcFailure(await session(variant), 400).kind, variant).toBe('LINK_INVALID');
    }
  });

  test('rotation: a link signed with the previous secret still opens; new links use the current one', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const old = customerLink(
      { publicBaseUrl: config.publicBaseUrl, linkSigningSecret: PREVIOUS_SECRET },
      'hosted',
      paymentId,
      clock.now(),
    );
    expect(trpcData<{ paymentId: string }>(await session(tokenOf(old.url))).paymentId).toBe(paymentId);
    const unknown = customerLink(
      { publicBaseUrl: config.publicBaseUrl, linkSigningSecret: 'some-other-secret-0123456789abcdefgh' },
      'hosted',
      paymentId,
      clock.now(),
    );
    expect(trpcFailure(await session(tokenOf(unknown.url)), 400).kind).toBe('LINK_INVALID');
  });
});

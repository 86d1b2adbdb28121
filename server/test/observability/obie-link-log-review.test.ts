import { describe, expect, test } from 'vitest';
import { redactedUrl } from '../../src/logger.ts';

/**
 * Security review (review4): Fastify's router decodes percent-escapes before matching, so
 * `/providers/obie/%61uthorize/<token>` opens the obie customer link (proved against the app in
 * test/providers/obie-link-review.test.ts). The log line's URL must not keep that token either.
 */
const TOKEN = 'a1B2c3.eyJwIjoicGF5XzEiLCJ1Ijoib2JpZSIsImUiOjE3NjR9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

describe('a customer link spelled with percent-escapes is not logged in clear', () => {
  test.each([
    `/providers/obie/%61uthorize/${TOKEN}`,
    `/providers/%6Fbie/authorize/${TOKEN}?x=1`,
    `/%70roviders/obie/authorize/${TOKEN}`,
    `/p%61y/${TOKEN}`,
    `/mock%2Dbank/${TOKEN}`,
  ])('%s', (url) => {
    const logged = redactedUrl(url);
    expect(logged).not.toContain(TOKEN);
    expect(logged).not.toContain(TOKEN.slice(0, 20));
    expect(logged).toContain('[redacted]');
  });

  test('other paths are left as they are', () => {
    // The bank's answer carries the authorization code (issue 31 item 7).
    expect(redactedUrl('/providers/obie/callback?response=x')).toBe(
      '/providers/obie/callback?response=[redacted]',
    );
    expect(redactedUrl('/api/payments/pay%5F1')).toBe('/api/payments/pay%5F1');
    expect(redactedUrl('/bad%ZZpath')).toBe('/bad%ZZpath');
  });
});
